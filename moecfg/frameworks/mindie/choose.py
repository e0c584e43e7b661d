"""Which MoE path MindIE's torch backend runs for a step: its strategy table, as pure functions.

Ascend/MindIE-LLM@8b4871a mindie_llm/runtime/layers/fused_moe/moe_comm_strategy.py (MCS) and moe_comm_method.py
(MCM): the first applicable of FusedMC2, MC2, All2All, AllGather (MCS:204-209); none applicable is
`RuntimeError: MoE strategy selection failed` (MCM:48-57); FusedMC2 past 4096 tokens per device raises instead of
falling through (MCS:89-97). Tokens per device: max tokens across DP, / attention TP when TP > 1 (flash comm is on
with attention TP: forward_context_exp.py:223-226; MCS:25-37). The MC2 capacity: forward_context_exp.py:33-52, set
by model_runner_exp.py:128,217 with max_num_reqs = maxBatchSize x (1 + MTP) and query length 1 + MTP.
"""
from __future__ import annotations

from dataclasses import dataclass

FUSED_MAX_TOKENS = 4096  # MCS:22 MAX_FUSED_MC2_OPERATOR_CAPACITY
FUSED_MAX_EP = 32  # MCS:86
MC2_MAX_CAPACITY = 512  # forward_context_exp.py:30 MAX_MC2_OPERATOR_CAPACITY
MAX_EXPERTS_PER_RANK = 24  # MCS:128, :134
A2_MC2_WORLD = (16, 32, 64)  # MCS:127

FUSED, FUSED_TOO_MANY, MC2, ALLTOALL, ALLGATHER, FAILS = ("fused_mc2", "fused_mc2_too_many", "mc2", "all2all",
                                                          "allgather", "fails")
MCS = "moe_comm_strategy.py"


@dataclass(frozen=True, slots=True)
class Setup:
    product: str  # "A2" (910B) | "A3" (910_93)
    world: int | None
    dp: int
    moe_tp: int
    moe_ep: int
    experts_per_rank: int  # ceil(experts / moe_ep): fused_moe.py:78


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def per_device(tokens: int, tp: int) -> int:
    """cal_num_tokens_per_device without CP: / attention TP when TP > 1 (MCS:25-37)."""
    return ceil_div(tokens, tp) if tp > 1 else tokens


def capacity(max_batch: int, spec: int, cp: int, dp: int, tp: int) -> tuple[int, str]:
    """min(maxBatchSize x (1 + MTP) x (1 + MTP) [/ CP] [/ TP when DP and TP], 512) and how."""
    n = max_batch * (1 + spec) * (1 + spec)
    text = f"maxBatchSize {max_batch} x (1 + {spec}) x (1 + {spec}) = {n}"
    if cp > 1:
        n = ceil_div(n, cp)
        text += f", / CP {cp} = {n}"
    if dp > 1 and tp > 1:
        n = ceil_div(n, tp)
        text += f", / TP {tp} = {n}"
    cap = min(n, MC2_MAX_CAPACITY)
    return cap, (f"min({text}, {MC2_MAX_CAPACITY}) = {cap} (forward_context_exp.py:33-52; model_runner_exp.py:128,217 "
                 "multiply by 1 + MTP twice)")


def choose(s: Setup, tokens: int, cap: int, prefill: bool) -> tuple[str, str]:
    """(path, why) for a step of `tokens` per device."""
    ep_on, tp_on = s.moe_ep > 1, s.moe_tp > 1
    if tp_on:
        return FAILS, (f"moe_tp {s.moe_tp} > 1: every strategy refuses MoE TP (MCS:80, :120, :160, :186), so "
                       f"RuntimeError 'MoE strategy selection failed' (MCM:55-57)")
    if s.product == "A3" and ep_on and s.moe_ep <= FUSED_MAX_EP:
        if tokens > FUSED_MAX_TOKENS:
            return FUSED_TOO_MANY, (f"A3, moe_ep {s.moe_ep} <= {FUSED_MAX_EP}, no moe_tp: FusedMC2, whose {tokens} "
                                    f"tokens per device > {FUSED_MAX_TOKENS} raise RuntimeError (MCS:76-97)")
        return FUSED, f"A3, moe_ep {s.moe_ep} <= {FUSED_MAX_EP}, no moe_tp: FusedMC2 (MCS:64-98)"
    mc2_no = _mc2_refusal(s, tokens, cap) if ep_on else "moe_ep 1"
    if not mc2_no:
        return MC2, f"MC2: {tokens} tokens per device <= capacity {cap}, {s.experts_per_rank} experts per rank <= " \
                    f"{MAX_EXPERTS_PER_RANK}" + (f", world size {s.world} in 16/32/64" if s.product == "A2" else "") \
                    + f" (MCS:105-139)"
    if ep_on and prefill:
        return ALLTOALL, f"no MC2 ({mc2_no}); a prefill step: All2All, no MC2 op (MCS:146-169)"
    if s.product == "A2" and s.dp == 1:
        return ALLGATHER, f"no MC2 ({mc2_no}): A2 without attention DP: AllGather, no MC2 op (MCS:176-196)"
    why = "a decode step (All2All serves prefill only, MCS:166-168)" if ep_on else "moe_ep 1"
    tail = "AllGather needs A2 without attention DP (MCS:189-194)" if s.product == "A2" else \
        "AllGather runs on A2 only (MCS:193)"
    return FAILS, (f"no MC2 ({mc2_no}), {why}, {tail}: RuntimeError 'MoE strategy selection failed' (MCM:55-57)")


def _mc2_refusal(s: Setup, tokens: int, cap: int) -> str:
    why = []
    if tokens > cap:
        why.append(f"{tokens} tokens per device > capacity {cap}")
    if s.experts_per_rank > MAX_EXPERTS_PER_RANK:
        why.append(f"{s.experts_per_rank} experts per rank > {MAX_EXPERTS_PER_RANK}")
    if s.product == "A2" and s.world not in A2_MC2_WORLD:
        why.append(f"A2 world size {s.world} not 16/32/64")
    return ", ".join(why)
