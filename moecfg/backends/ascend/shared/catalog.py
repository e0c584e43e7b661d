"""Typed, frozen rule-set catalogs: the limits of each product under each CANN release.

Checks read these values; a new CANN release is a new `RuleSet` in rulesets.py, not an edit of the
checks. They are frozen records (core/record.py: dataclasses to `dataclasses` and pydantic, built without
importing either) rather than pydantic models so that `moecfg check` starts without importing pydantic (~100 ms)
or dataclasses; `catalog_adapter()` gives the pydantic TypeAdapter that validates them (used by the tests and
by schema export).
"""
from __future__ import annotations

from moecfg.core.record import record


@record(frozen=True, slots=True)
class A3Hierarchy:
    """A3 `hierarchy` (layered) template limits, CANN 9.0+ (DV2T[M] L668-1074, CWS[M] L63-79)."""

    ep_max: int = 256
    ep_multiple: int = 16
    bs_max: int = 256
    h_min: int = 1  # tiling hMin = 0 with hierarchy (DV2T[M] L1066-1074: no 1024 floor); infershape rejects H <= 0
    h_max: int = 7168
    h_multiple: int = 32
    moe_max: int = 512
    tp_max: int = 1  # R90/R91: hierarchy only with tp_world_size <= 1
    aiv_min: int = 16  # L1926-1929: aivNum >= 16 and > 2 * (ep / 16)


@record(frozen=True, slots=True)
class A3Rules:
    """Dispatch/combine v2 limits on Atlas A3 under one rule set."""

    comm_algs: tuple  # accepted comm_alg strings of dispatch v2
    ep_min: int = 2
    ep_max: int = 768
    bs_max: int = 512
    h_min: int = 1024
    h_max: int = 8192
    k_max: int = 16
    moe_max: int = 1024
    shared_num_max: int = 4
    local_x_ep_max: int = 2048
    legacy_tp: bool = True  # R85-R91: tp in [0, 2], tp=2 with one local expert, TP window
    tp_max: int = 2
    performance_info: bool = True
    fm2_bs_max: int = 256
    fm2_k_max: int = 12
    fm2_rejects: tuple = ()  # features fullmesh_v2 refuses: elastic, special, mask2d, variable_bs, tp2
    hierarchy: A3Hierarchy | None = None
    hier_rejects: tuple = ("elastic", "special", "mask2d", "performance_info")
    fm2_ub_check: bool = True
    ub_bytes: int = 196608  # UB per AIV core (A2/A3)
    aiv_num: int = 48  # vector cores per A3 die (24 AI cores x 2)
    combine_comm_quant_modes: tuple = (0, 2)
    comm_quant_zero_with_tp: bool = False  # R85-R91: tp > 1 forces comm_quant_mode 0 (CV2T[R85] L254-256)
    window_error: str = "HCCL_BUFFSIZE_EP is too SMALL"
    # context mode (aclnn V5 -> op MoeDistributeDispatchV3/CombineV3, ascend910_93 only; R90+): None = no op;
    # the comm_alg values it refuses (R91 combine, [M] dispatch and combine: hierarchy)
    context_rejects: tuple | None = ("hierarchy",)
    context_window_wraps: bool = True  # R91+: window = ccl - 1 MB in uint64 (R90: need + 1 MB <= ccl)


@record(frozen=True, slots=True)
class A2Rules:
    """Dispatch/combine v2 limits on Atlas A2 under one rule set."""

    ep_max_flat: int
    ep_max_hier: int = 64
    ep_multiple: int = 8
    ep_any_upto: int = 0  # R90+: any ep <= 8 is accepted (and always runs the flat algorithm)
    h_max_flat: int = 7168
    h_max_hier: int = 10240
    h_max_int32: int | None = None  # INT32 x supported (latest) with this H limit
    h_multiple: int = 32
    bs_max_flat: int = 256
    bs_max_hier: int = 256
    k_max: int = 16
    moe_max_flat: int = 512
    moe_max_hier: int = 512
    moe_per_rank_max_flat: int | None = None  # R85 (2025-11-24): moe / ep <= 24 unless hierarchy
    tp_max: int | None = None  # latest: tp_world_size >= 2 rejected; before: not checked
    window_source: str = "code"  # "code" (R90+ warning) or "doc" (R85: no host check; doc formula)
    combine_comm_quant_flat: tuple = (0,)
    combine_comm_quant_hier: tuple = (0, 2)


@record(frozen=True, slots=True)
class RuleSet:
    """The limits of one CANN release (or code point), per product."""

    name: str  # "8.5", "9.0", "9.1", "latest"
    source: str  # the ops-transformer tag or commit the limits were read from
    a2: A2Rules
    a3: A3Rules

    def product(self, product: str):
        return self.a2 if product == "A2" else self.a3


def catalog_adapter():
    """pydantic TypeAdapter validating a RuleSet (imports pydantic; not on the check path)."""
    from pydantic import TypeAdapter

    return TypeAdapter(RuleSet)


# The code points read after the release lines that share their neighbours' op tables (op name -> like name;
# verified like rulesets.RULESETS): 9.1.0 and 9.1.0-beta.1 change no v1 / add_rms_norm / ffn host code against
# 9.1 and 9.0; master-2026-07-24 already has the A2 v1 window warning (cannmirror 25fb6b9
# moe_distribute_dispatch_tiling_a2a3.cpp L266-270). The op catalogs (ops/*/catalog.py) apply it.
LATER_CODE_POINTS = (("9.1.0", "9.1"), ("9.1.0-beta.1", "9.0"), ("9.1.0-beta.3", "9.1"), ("9.1.0-beta.2", "9.1"),
                     ("master-2026-07-24", "latest"))
