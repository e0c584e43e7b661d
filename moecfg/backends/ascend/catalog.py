"""Typed, frozen rule-set catalogs: the limits of each product under each CANN release.

Checks read these values; a new CANN release is a new `RuleSet` in rulesets.py, not an edit of the
checks. They are stdlib frozen dataclasses rather than pydantic models so that `moecfg check` starts
without importing pydantic (~100 ms, half our start-up budget); `catalog_adapter()` gives the pydantic
TypeAdapter that validates them (used by the tests and by schema export).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class A3Rules:
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


@dataclass(frozen=True, slots=True)
class A2Rules:
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


@dataclass(frozen=True, slots=True)
class RuleSet:
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


# ---- more ops (ascend-mc2-rules.md §4-§6); one entry per rule set in rulesets.py -------------------------

@dataclass(frozen=True, slots=True)
class AddRmsNormRules:
    """combine_add_rms_norm on top of the dispatch/combine v2 limits (§4: CV2T[M] L363-428, L634-671, L981-1054)."""

    products: tuple = ("A3",)  # op config has ascend910_93 only: no A2 binary
    expand_x_dtypes: tuple = ("bf16", "fp16")  # R85 own tiling L502-504: bf16 only
    residual_dtypes: tuple = ("bf16",)
    gamma_dtypes: tuple = ("bf16",)
    local_x_ep_max: int | None = 2048  # R85 L1049-1050: the combine side only needs local_moe > 0 (None)
    source: str = ""


@dataclass(frozen=True, slots=True)
class V1A3Rules:
    """npu_moe_distribute_dispatch / combine (v1) on A3 (§5: R85 dispatch tiling L168-512, combine L86-97, L440-717)."""

    ep_values: tuple = (8, 16, 32, 64, 128, 144, 256, 288)  # ep <= 288, %8, and (256 % ep == 0 or ep % 144 == 0)
    h_value: int = 7168
    k_max: int = 8
    bs_max: int = 512
    moe_max: int = 512
    shared_expert_num: int = 1
    tp_max: int = 2
    comm_quant_modes: tuple = (0, 2)


@dataclass(frozen=True, slots=True)
class V1A2Rules:
    """v1 on A2 (§5): layered only through HCCL_INTRA_PCIE_ENABLE=1 / HCCL_INTRA_ROCE_ENABLE=0."""

    ep_max: int = 256
    ep_multiple: int = 8
    moe_max: int = 512
    moe_per_rank_max_flat: int | None = 24
    h_max: int = 7168
    h_multiple: int = 32
    bs_max: int = 256
    k_max: int = 16
    layered_window_warning: bool = False  # [M] arch22 a2a3 L284-297: warning-only window check


@dataclass(frozen=True, slots=True)
class V1Rules:
    name: str
    source: str
    a2: V1A2Rules
    a3: V1A3Rules

    def product(self, product: str):
        return self.a2 if product == "A2" else self.a3


@dataclass(frozen=True, slots=True)
class FfnRules:
    """FfnWorkerBatching (§6: ffn_worker_batching_tiling.cpp [M] L85-168; seed 004 constraints)."""

    available: bool = True  # new in 2026-02: not in CANN 8.5
    expert_num_max: int = 8192
    attention_workers_max: int = 1024  # max_out_shape[0] (the doc says the same)
    selected_experts_max: int = 64  # max_out_shape[2] = K + 1 (the doc says K <= 64)
    doc_top_k_max: int = 64
    doc_micro_batch_num_max: int = 64  # doc only: the tiling has no M
    need_schedule_values: tuple = (0, 1)
    schedule_block_dim_y_max: int = 200000  # need_schedule 1 and Y <= this: blockDim = min(aiv, 32)
    schedule_block_dim_max: int = 32
    source: str = ""


# ScheduleContext (seed 004; torch_npu afd/ScheduleContext.h, #pragma pack(1)): (area, ((member, bytes), ...)).
# CommonArea, ControlArea and AttentionArea are 128 bytes each; FfnArea is two 128-byte halves (input, output).
SCHEDULE_CONTEXT_BYTES = 1024
SCHEDULE_CONTEXT = (
    ("common", (("session_num", 4), ("micro_batch_num", 4), ("micro_batch_size", 4), ("selected_expert_num", 4),
                ("expert_num", 4), ("attn_to_ffn_token_size", 4), ("ffn_to_attn_token_size", 4),
                ("schedule_mode", 4), ("reserve0", 96))),
    ("control", (("run_flag", 4), ("reserve1", 124))),
    ("attention", (("token_info_buf", 8), ("token_info_buf_size", 8), ("token_data_buf", 8),
                   ("token_data_buf_size", 8), ("micro_batch_id", 4), ("reserve5", 92))),
    ("ffn", (("token_info_buf", 8), ("token_info_buf_size", 8), ("token_data_buf", 8), ("token_data_buf_size", 8),
             ("polling_index", 8), ("reserve3", 88),
             ("layer_ids_buf", 8), ("layer_ids_buf_size", 8), ("session_ids_buf", 8), ("session_ids_buf_size", 8),
             ("micro_batch_ids_buf", 8), ("micro_batch_ids_buf_size", 8), ("expert_ids_buf", 8),
             ("expert_ids_buf_size", 8), ("out_num", 4), ("reserve4", 60))),
    ("reserve6", (("reserve6", 384),)),
)
