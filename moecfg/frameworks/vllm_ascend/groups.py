"""The HCCL communicators one rank of a vllm-ascend launch creates, and the buffer (MB) each one gets.

vllm-ascend replaces vLLM's GroupCoordinator: every device group is created with
`create_hccl_pg_options(group_name)` (VA@182b75e vllm_ascend/patch/worker/patch_distributed.py:156-166;
@6281c12 and @2f1aed9 patch_distributed.py:50-56), whose `hccl_buffer_size` comes from
`get_hccl_config_for_pg_options` (VA@182b75e vllm_ascend/utils.py:968-991, constants :70-72; @6281c12 utils.py:939-963,
:63-64; @2f1aed9 utils.py:774-798, :57-58):
- a name containing "mc2": no option, so the process-wide HCCL_BUFFSIZE (HCCL's default 200 MB): MC2 ops partition it;
- "dp": max(ceil((DP + 1) x 4 B / MiB), 50) MB (v0.11: DP + 2; 50 MB for any real DP size);
- "dynamic_eplb" (main only): 100 MB;
- every other name: 200 MB.
HCCL allocates 2 x the buffer per communicator (in + out windows; CANN HCCL guide, as MC901 counts it).

Groups (one communicator per group this rank belongs to; a one-rank group runs no HCCL collective, so none):
- vLLM initialize_model_parallel (vllm-project/vllm@0c175ae vllm/distributed/parallel_state.py, the newest copy
  read; commit not matched to a vllm-ascend release): tp (TP), dcp (DCP), pcp (PCP), pp (PP), dp (DP), ep
  (DP x PCP x TP, MoE models only);
- vllm-ascend init_ascend_model_parallel: mc2 (DP x PCP x TP; VA@182b75e distributed/parallel_state.py:76-87),
  dynamic_eplb (same ranks, main with dynamic EPLB; :89-93), fine-grained TP groups otp / lmheadtp / emtp / mlptp
  of `finegrained_tp_config` sizes, one per distinct size (`_group_cache`; :100-134; @6281c12 :109-153), v0.11's
  top-level oproj / lmhead_tensor_parallel_size (@2f1aed9 parallel_state.py:132-159).
Not counted: vLLM's world group and the default process group (no MoE-path collective), p_tp (PD head ratio),
v0.13's flashcomm2 / shard_weight / fc3_quant_x groups and vLLM's eplb group (features moecfg does not read).
On main the HcclPgRegistry shares a group only between equal ranks and equal hccl_config, which includes the
group name (utils.py:960-965, _hccl_pg_registry.py:65-91): differently named groups never share a communicator.
"""
from __future__ import annotations

from dataclasses import dataclass

from moecfg.frameworks.vllm_ascend.formulas import HCCL_DEFAULT_BUFFER_MB as DEFAULT_GROUP_MB

HCCL_DEFAULT_MB = 200  # HCCL_BUFFSIZE unset: HCCL's default (CANN 8.5 HCCL user guide, HCCL_BUFFSIZE)
MIN_DP_MB = 50  # VA@182b75e vllm_ascend/utils.py:71 _MIN_DP_BUFFER_SIZE
DYNAMIC_EPLB_MB = 100  # VA@182b75e vllm_ascend/utils.py:72 _DYNAMIC_EPLB_BUFFER_SIZE
MIB = 1 << 20
_SRC = {"main": "VA@182b75e", "0.13.0": "VA@6281c12", "0.11.0": "VA@2f1aed9"}
FINE_GRAINED = (("otp", "oproj_tensor_parallel_size"), ("lmheadtp", "lmhead_tensor_parallel_size"),
                ("emtp", "embedding_tensor_parallel_size"), ("mlptp", "mlp_tensor_parallel_size"))


@dataclass(frozen=True, slots=True)
class Comm:
    name: str  # the group name vllm-ascend passes to create_hccl_pg_options
    ranks: int  # ranks in this rank's group
    mb: int  # the communicator's buffer (MB); HCCL allocates 2 x this
    why: str  # where the buffer size comes from

    @property
    def bytes(self) -> int:
        return 2 * self.mb * MIB


def dp_buffer_mb(dp: int, release: str) -> int:
    """max(ceil((dp + flags) x int32 / MiB), 50): flags 1 (with_prefill), 2 on v0.11 (+ enable_dbo)
    (VA@182b75e vllm_ascend/utils.py:994-1005; VA@2f1aed9 vllm_ascend/utils.py:801-811)."""
    flags = 2 if release == "0.11.0" else 1
    return max(-(-(dp + flags) * 4 // MIB), MIN_DP_MB)


@dataclass(frozen=True, slots=True)
class Layout:
    """The parallel sizes of a launch, as vllm-ascend reads them."""

    release: str  # "0.11.0" | "0.13.0" | "main"
    tp: int = 1
    dp: int = 1
    pp: int = 1
    pcp: int = 1
    dcp: int = 1
    moe: bool = True  # vLLM creates the ep group for MoE models only
    dynamic_eplb: bool = False
    fine_grained: tuple[tuple[str, int], ...] = ()  # (group name, size) as configured
    source: str = ""  # the release's commit as cited ("VA@5cb98ca"); "": the family's (_SRC)


def communicators(lay: Layout, hccl_buffsize_mb: int, hccl_how: str) -> list[Comm]:
    """Every communicator with more than one rank, in creation order (vLLM's groups, then vllm-ascend's)."""
    src = lay.source or _SRC.get(lay.release, _SRC["main"])  # one commit per derivation: the pinned release's
    default = f"pg_options hccl_buffer_size {DEFAULT_GROUP_MB} MB ({src} utils.py get_hccl_config_for_pg_options)"
    ep = lay.dp * lay.pcp * lay.tp
    out = [Comm("tp", lay.tp, DEFAULT_GROUP_MB, default), Comm("dcp", lay.dcp, DEFAULT_GROUP_MB, default),
           Comm("pcp", lay.pcp, DEFAULT_GROUP_MB, default), Comm("pp", lay.pp, DEFAULT_GROUP_MB, default),
           Comm("dp", lay.dp, dp_buffer_mb(lay.dp, lay.release),
                f"pg_options max(ceil((DP {lay.dp} + {2 if lay.release == '0.11.0' else 1}) x 4 B / MiB), 50) MB "
                f"({src} utils.py calculate_dp_buffer_size)")]
    if lay.moe:
        out.append(Comm("ep", ep, DEFAULT_GROUP_MB, default))
    out.append(Comm("mc2", ep, hccl_buffsize_mb, f"{hccl_how}: the mc2 group has no pg_options ({src} utils.py "
                    "get_hccl_config_for_pg_options)"))
    if lay.dynamic_eplb and lay.release == "main":
        out.append(Comm("dynamic_eplb", ep, DYNAMIC_EPLB_MB, f"pg_options {DYNAMIC_EPLB_MB} MB ({src} utils.py "
                        "_DYNAMIC_EPLB_BUFFER_SIZE; distributed/parallel_state.py init_ascend_model_parallel)"))
    out.extend(Comm(name, size, DEFAULT_GROUP_MB, default) for name, size in lay.fine_grained)
    return [c for c in out if c.ranks > 1]


def fine_grained_groups(config: dict | None, top_level: dict | None, release: str) -> tuple[tuple[str, int], ...]:
    """(name, size) of the fine-grained TP groups: main / v0.13 `finegrained_tp_config` sizes > 0, one group per
    distinct size (the first name wins, `_group_cache`); v0.11 top-level oproj / lmhead sizes, one group each."""
    if release == "0.11.0":
        keys = (("otp", "oproj_tensor_parallel_size"), ("lmheadtp", "lmhead_tensor_parallel_size"))
        return tuple((n, v) for n, k in keys if _size(v := (top_level or {}).get(k)))
    out, seen = [], set()
    for name, key in FINE_GRAINED:
        size = (config or {}).get(key)
        if _size(size) and size not in seen:
            seen.add(size)
            out.append((name, size))
    return tuple(out)


def _size(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0
