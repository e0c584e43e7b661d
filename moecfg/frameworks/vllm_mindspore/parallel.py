"""The MoE parallel layout vllm-mindspore derives from vLLM's flags, as small pure functions.

FusedMoEParallelConfig.make (VMS@423bd12 vllm_mindspore/model_executor/layers/fused_moe/config.py:134-183): the MoE
layers span tp x dp devices; EP is used only when that is > 1 and --enable-expert-parallel is given. Then the EP
size is additional_config `expert_parallel` when set (MoE TP = tp x dp // expert_parallel), else tp x dp (MoE TP 1).
FusedExperts picks pure EP (ep > 1, MoE TP 1: MC2 dispatch/combine), TP+EP (ep > 1, MoE TP > 1: local experts
masked, all-reduce) or pure TP (ep 1) (fused_moe.py:241-266).
"""
from __future__ import annotations

from dataclasses import dataclass

PURE_EP, TP_MIX_EP, PURE_TP = "pure EP", "TP + EP", "pure TP"
# max_bs per rank, fixed: 256 when is_910b() (A2), else 512 (fused_moe.py:251-252); global_bs = max_bs x EP
MAX_BS = {"A2": 256, "A3": 512}


@dataclass(frozen=True, slots=True)
class Layout:
    mode: str
    ep: int
    moe_tp: int
    why: str


def layout(tp: int, dp: int, enable_ep: bool, expert_parallel: int | None) -> Layout:
    flat = tp * dp
    if flat <= 1 or not enable_ep:
        why = "tp x dp = 1: EP only when tp x dp > 1, --enable-expert-parallel and additional_config " \
            "expert_parallel have no effect" if flat <= 1 else "--enable-expert-parallel not given"
        return Layout(PURE_TP, 1, flat, f"{why}: MoE TP over tp x dp = {flat}")
    if expert_parallel is None:
        return Layout(PURE_EP, flat, 1, f"EP = tp {tp} x dp {dp} = {flat}, MoE TP 1")
    moe_tp = flat // expert_parallel
    mode = PURE_TP if expert_parallel == 1 else PURE_EP if moe_tp == 1 else TP_MIX_EP
    return Layout(mode, expert_parallel, moe_tp,
                  f"EP = additional_config expert_parallel {expert_parallel}, MoE TP = tp {tp} x dp {dp} // "
                  f"{expert_parallel} = {moe_tp}")


def experts_per_rank(experts: int, ep: int) -> tuple[int, int]:
    """(experts on ranks 0..ep-2, experts on the last rank): the remainder goes to the last rank
    (fused_moe.py:232-238, layer.py determine_expert_map :189-214)."""
    each = experts // ep
    return each, experts - each * (ep - 1)


def divisors_near(experts: int, ep: int, limit: int = 2) -> list[int]:
    """EP sizes that divide `experts`, nearest to `ep` first (at most `limit`)."""
    found = [d for d in range(2, experts + 1) if experts % d == 0]
    return sorted(found, key=lambda d: (abs(d - ep), d))[:limit]


def global_bs(product: str, ep: int) -> int:
    return MAX_BS[product] * ep
