"""MegaMoE document model: the config read from a document, the facts derived from it and the per-call sizes.

Shared by analysis.py (analysis, buffers) and rules.py (checks); formulas in formulas.py.
"""
from __future__ import annotations

from moecfg.core.record import record
from moecfg.backends.ascend.shared import fused_formulas as ff

from moecfg.backends.ascend.ops.mega_moe import formulas as mx
from moecfg.backends.ascend.ops.mega_moe.catalog import MegaMoeRules, mega_moe_rules
from moecfg.backends.ascend.shared.model import DEFAULT_HCCL_BUFFSIZE_MB


@record(frozen=True, slots=True)
class MegaMoeConfig:
    product: str
    bs: int
    h: int
    k: int
    ep_world_size: int
    moe_expert_num: int
    intermediate_hidden: int
    weight_dtype: str
    x_dtype: str
    num_max_tokens_per_rank: int
    num_max_tokens_given: bool
    max_recv_token_num: int
    dispatch_quant_mode: int
    dispatch_quant_out_dtype: str | None
    combine_quant_mode: int
    comm_alg: str
    activation: str
    activation_clamp: float | None
    hccl_buffsize_env: int | None
    hccl_buffer_ep: int | None

    @classmethod
    def from_values(cls, v: dict) -> "MegaMoeConfig":
        weight = v.get("weight_dtype") or ("int8" if v.get("dispatch_quant_mode") == 2 else "bf16")
        nmt = v.get("num_max_tokens_per_rank")
        return cls(v["product"], v["bs"], v["h"], v["k"], v["ep_world_size"], v["moe_expert_num"],
                   v["intermediate_hidden"], weight, v.get("x_dtype") or "bf16", v["bs"] if nmt is None else nmt, nmt is not None,
                   v["max_recv_token_num"], v["dispatch_quant_mode"], v.get("dispatch_quant_out_dtype"),
                   v["combine_quant_mode"], v.get("comm_alg") or "", v.get("activation"), v.get("activation_clamp"),
                   (v.get("env") or {}).get("HCCL_BUFFSIZE"), (v.get("hccl_buffer_size") or {}).get("ep"))


@record(frozen=True, slots=True)
class Window:
    mb: int
    source: str
    path: tuple


@record(frozen=True, slots=True)
class MegaMoeFacts:
    ruleset: str
    limits: MegaMoeRules
    experts_per_rank: int  # len(l1_weights) = moe_expert_num // ep_world_size
    quant: bool  # isQuantRouting: int8 / int4 weights
    w4a8: bool
    max_recv: int  # what the tiling uses for this call (auto-filled when 0 and the release does)
    safe_recv: int  # the most tokens a rank can receive: max(bs, num_max_tokens_per_rank) * ep * min(k, epr)
    window: Window


def window(cfg: MegaMoeConfig) -> Window:
    """The EP communicator's HCCL buffer (one window, MB): the pg option, else env HCCL_BUFFSIZE, else 200."""
    if cfg.hccl_buffer_ep is not None:
        return Window(cfg.hccl_buffer_ep, "hccl_buffer_size.ep", ("hccl_buffer_size", "ep"))
    if cfg.hccl_buffsize_env is not None:
        return Window(cfg.hccl_buffsize_env, "env HCCL_BUFFSIZE", ("env", "HCCL_BUFFSIZE"))
    return Window(DEFAULT_HCCL_BUFFSIZE_MB, "HCCL default (HCCL_BUFFSIZE unset)", ("env", "HCCL_BUFFSIZE"))


def derive(cfg: MegaMoeConfig, ruleset: str) -> MegaMoeFacts:
    limits = mega_moe_rules(ruleset)
    epr = cfg.moe_expert_num // cfg.ep_world_size if cfg.ep_world_size > 0 else 0
    mr = cfg.max_recv_token_num
    if mr == 0 and limits.auto_max_recv:
        mr = mx.mega_moe_auto_max_recv(cfg.bs, cfg.ep_world_size, cfg.k, epr)
    safe = mx.mega_moe_auto_max_recv(max(cfg.bs, cfg.num_max_tokens_per_rank), cfg.ep_world_size, cfg.k, epr)
    return MegaMoeFacts(ruleset, limits, epr, cfg.weight_dtype != "bf16", cfg.weight_dtype == "int4", mr, safe,
                        window(cfg))


def computable(cfg: MegaMoeConfig, f: MegaMoeFacts) -> bool:
    return min(cfg.bs, cfg.h, cfg.k, cfg.ep_world_size, cfg.intermediate_hidden, f.experts_per_rank) > 0 \
        and f.max_recv >= 0


def least_window(cfg: MegaMoeConfig, f: MegaMoeFacts, bs: int, max_recv: int) -> int:
    return mx.mega_moe_least_window_bytes(cfg.h, cfg.k, cfg.ep_world_size, bs, max_recv, f.quant, cfg.product == "A3")


def max_tokens_recv(cfg: MegaMoeConfig, f: MegaMoeFacts) -> int:
    """max_recv_token_num the tiling uses for a call of num_max_tokens_per_rank tokens."""
    if cfg.max_recv_token_num == 0 and f.limits.auto_max_recv:
        return f.safe_recv
    return f.max_recv


def workspace_bytes(cfg: MegaMoeConfig, f: MegaMoeFacts, max_recv: int) -> int:
    fn = mx.mega_moe_workspace_a3 if cfg.product == "A3" else mx.mega_moe_workspace_a2
    return ff.total_workspace(fn(cfg.bs, cfg.k, cfg.h, cfg.intermediate_hidden, cfg.ep_world_size,
                                 f.experts_per_rank, max_recv, f.quant, f.w4a8))
