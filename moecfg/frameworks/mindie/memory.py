"""Device memory one rank's HCCL communicators take (2 x buffer each), against what NPU_MEMORY_FRACTION leaves:
the per-rank table of frameworks/ascend_budget.py (MC954), with MindIE's groups and buffers.

torch backend (Ascend/MindIE-LLM@8b4871a mindie_llm/runtime/utils/distributed/parallel_info_manager.py): every
group gets pg_options hccl_buffer_size: 128 MB by default (:28, :191), moe_tp 64 (:206-207), moe_ep 256 (:208-209),
the MC2 group (moe_ep ranks, not shared) HCCL_BUFFSIZE (:217-220); groups are created lazily on first use
(:116-128) and shared when their ranks and buffer match (:293-308: attention TP and MLP TP are one group). Not
counted: the world group (the all-gather path only) and one-rank groups. KV cache: the warm-up's free memory
within total x NPU_MEMORY_FRACTION (text_generator/generator.py:811-813; default 0.8, utils/env.py:92), so a
communicator first used after the warm-up lands outside the fraction.

atb backend (examples/atb_models/atb_llm/utils/mapping.py:89,175-176): hccl_buffer for every group,
hccl_moe_ep_buffer for moe_ep, hccl_moe_tp_buffer for moe_tp (after calc_moe_buffer_size, atb.py).
"""
from __future__ import annotations

from moecfg.frameworks import ascend_budget
from moecfg.frameworks.vllm_ascend.groups import Comm

DEFAULT_MB, MOE_TP_MB, MOE_EP_MB = 128, 64, 256  # parallel_info_manager.py:28, :206, :208
FRACTION_DEFAULT = 0.8  # mindie_llm/utils/env.py:92 NPU_MEMORY_FRACTION
_PIM = "parallel_info_manager.py"


def torch_comms(sizes: dict[str, int], hccl_mb: int, hccl_how: str) -> list[Comm]:
    """sizes: tp, dp, cp, sp, moe_tp, moe_ep (group sizes as resolved)."""
    out = [Comm("attn_tp", sizes["tp"], DEFAULT_MB, f"{DEFAULT_MB} MB default ({_PIM}:28, :202; shared with mlp_tp)"),
           Comm("attn_dp", sizes["dp"], DEFAULT_MB, f"{DEFAULT_MB} MB default ({_PIM}:203)"),
           Comm("attn_cp", sizes["cp"], DEFAULT_MB, f"{DEFAULT_MB} MB default ({_PIM}:204)"),
           Comm("attn_inner_sp", sizes["sp"], DEFAULT_MB, f"{DEFAULT_MB} MB default ({_PIM}:223-225)"),
           Comm("moe_tp", sizes["moe_tp"], MOE_TP_MB, f"{MOE_TP_MB} MB fixed ({_PIM}:206-207)"),
           Comm("moe_ep", sizes["moe_ep"], MOE_EP_MB, f"{MOE_EP_MB} MB fixed ({_PIM}:208-209)"),
           Comm("moe_ep_mc2", sizes["moe_ep"], hccl_mb, f"{hccl_how}: the MC2 group's hccl_buffer_size, not shared "
                f"({_PIM}:217-220)")]
    return [c for c in out if c.ranks > 1]


def atb_comms(sizes: dict[str, int], buffers: dict[str, tuple[int, str]]) -> list[Comm]:
    """buffers: hccl_buffer / hccl_moe_ep_buffer / hccl_moe_tp_buffer -> (MB, how)."""
    base, ep, tp = buffers["hccl_buffer"], buffers["hccl_moe_ep_buffer"], buffers["hccl_moe_tp_buffer"]
    out = [Comm("attn_tp", sizes["tp"], base[0], base[1]), Comm("attn_dp", sizes["dp"], base[0], base[1]),
           Comm("moe_tp", sizes["moe_tp"], tp[0], tp[1]), Comm("moe_ep", sizes["moe_ep"], ep[0], ep[1])]
    return [c for c in out if c.ranks > 1]


def table(comms: list[Comm], extras, product: str, product_how: str, ctx, fraction: float | None,
          fraction_text: str) -> dict:
    return ascend_budget.table(comms, extras, product, product_how, ctx.device_memory_gb, fraction, fraction_text)


def fraction(env: dict, env_file: str = "conf/mindie_env.json") -> tuple[float | None, str]:
    """NPU_MEMORY_FRACTION from the env file (MindIE refuses <= 0 or > 1, env.py:137-138), else the default."""
    from moecfg.frameworks import values

    entry = env.get("NPU_MEMORY_FRACTION")
    if entry is None:
        return FRACTION_DEFAULT, f"NPU_MEMORY_FRACTION {FRACTION_DEFAULT} (MindIE's default, utils/env.py:92)"
    value = values.finite(entry.value)
    if value is None or not 0 < value <= 1:
        return None, f"NPU_MEMORY_FRACTION {entry.value!r} (MindIE refuses it at start-up, utils/env.py:137-138)"
    return value, f"NPU_MEMORY_FRACTION {value:g} ({env_file})"


def headroom_notes(tab: dict, span, env_file: str = "conf/mindie_env.json") -> list:
    if tab.get("headroom_bytes", 0) >= 0:
        return []
    fits = ascend_budget.largest_fitting_mb(tab, "moe_ep_mc2") if "moe_ep_mc2" in tab["buffers"] else 0
    fix = f"set HCCL_BUFFSIZE <= {fits} in {env_file}" if fits > 0 else \
        "the other groups' buffers alone exceed it"
    # the fraction named with the env file it was read from (a Motor deploy may name conf/mindie_env_a3.json)
    return ascend_budget.over_headroom(tab, f"{env_file} NPU_MEMORY_FRACTION", span, fix,
                                       seen="vllm-ascend#10839, the same scheme")
