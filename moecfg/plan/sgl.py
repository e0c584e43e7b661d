"""`moecfg plan` / `sweep` for op sgl_deepep_normal / sgl_deepep_low_latency (sgl-kernel-npu DeepEP on Ascend).

The solving loop is plan/fused.py's; this module says where a candidate's token count and buffer go.
Tokens: low latency -> num_max_dispatch_tokens_per_rank (bs defaults to it); normal -> bs, or the per-round tokens
when the base sets DEEPEP_NORMAL_LONG_SEQ_ROUND alone (bs = ROUND x per-round). The buffer goes into
env.HCCL_BUFFSIZE and, when the base names them, env.DEEPEP_HCCL_BUFFSIZE (the tiling reads it first) and
hccl_buffer_size (the group's window): the tiling check (MC898) and the allocated window (MC899) agree.
"""
from __future__ import annotations

from moecfg.backends.ascend.ops.sgl_deepep import formulas as sx
from moecfg.backends.ascend.ops.sgl_deepep.analysis import LIMITS
from moecfg.backends.ascend.ops.sgl_deepep.fields import OPS

ROUND, PER_ROUND = "DEEPEP_NORMAL_LONG_SEQ_ROUND", "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS"
# x.size(0) <= BS_UPPER_BOUND 512: ops/op_host/moe_distribute_dispatch_v2_tiling.cpp L85, L908 (ops2 ...cc L89, L628);
# the planner's bs is T (deep_ep.cpp L867: global_bs = T * num_ranks)
LL_MAX_TOKENS = LIMITS["ll_fork"].bs_max[0]
NORMAL_MAX_BS = LIMITS["normal_cam_a3"].bs_max[0]  # 131072 = MAX_TOTAL_TOKENS (deep_ep.cpp L37)


def env_of(base: dict) -> dict:
    env = base.get("env")
    return dict(env) if isinstance(env, dict) else {}  # a non-mapping env: the engine reports it in the base


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def per_round_mode(base: dict) -> int | None:
    """ROUND when the base sets DEEPEP_NORMAL_LONG_SEQ_ROUND without the per-round tokens: those are solved."""
    env = env_of(base)
    if base.get("op") != "sgl_deepep_normal" or PER_ROUND in env:
        return None
    return _int(env.get(ROUND))


def tokens_meaning(base: dict) -> str:
    if base["op"] == "sgl_deepep_low_latency":
        return "tokens = num_max_dispatch_tokens_per_rank"
    rounds = per_round_mode(base)
    return f"tokens = {PER_ROUND} (bs = {rounds} x tokens)" if rounds else "tokens = bs (max_bs = min(bs, per-round))"


def max_tokens(base: dict) -> int:
    """The search's upper end: the op's own limit (MC894 / MC897 refuse the next value)."""
    if base["op"] == "sgl_deepep_low_latency":
        return LL_MAX_TOKENS
    if per_round_mode(base):
        return sx.MAX_TOKENS_PER_ROUND  # per-round tokens in [32, 8192]: deep_ep.cpp L35-36, L84-85 (@f425bdf)
    env = env_of(base)
    rounds, per_round = _int(env.get(ROUND)), _int(env.get(PER_ROUND))
    # deep_ep.cpp L127-130 (@f425bdf): num_tokens <= ROUND x PER_ROUND_TOKENS, 1 x 8192 when unset (L73-75)
    cap = rounds * per_round if rounds and per_round else sx.MAX_TOKENS_PER_ROUND
    return min(cap, NORMAL_MAX_BS)


def doc(base: dict, ep: int, tokens: int, buffer_mb: int) -> dict:
    env = {**env_of(base), "HCCL_BUFFSIZE": buffer_mb}
    if "DEEPEP_HCCL_BUFFSIZE" in env:
        env["DEEPEP_HCCL_BUFFSIZE"] = buffer_mb
    d = {**base, "ep_world_size": ep, "env": env}
    if "hccl_buffer_size" in base:
        d["hccl_buffer_size"] = buffer_mb
    if base["op"] == "sgl_deepep_low_latency":
        d["num_max_dispatch_tokens_per_rank"] = tokens
    elif per_round_mode(base):
        env[PER_ROUND] = tokens
        d.setdefault("bs", per_round_mode(base) * tokens)
    else:
        d["bs"] = tokens
    return d


def buffer_names(base: dict) -> str:
    env = env_of(base)
    names = ["HCCL_BUFFSIZE"] + [n for n in ("DEEPEP_HCCL_BUFFSIZE",) if n in env]
    return " = ".join(names + (["hccl_buffer_size"] if "hccl_buffer_size" in base else []))
