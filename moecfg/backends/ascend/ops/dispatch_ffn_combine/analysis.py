"""`op: dispatch_ffn_combine`: vllm-ascend's fused dispatch + FFN + combine op (its own csrc, not CANN's).

vllm-ascend calls `torch.ops._C_ascend.dispatch_ffn_combine(x, weight1, weight2, expert_idx, scale1, scale2,
bias1, bias2, probs, group, max_output_size, out, expert_token_nums, x_active_mask, swiglu_limit)` when
`enable_fused_mc2=1` and cann_ops_transformer (MegaMoE) is not installed (moe_comm_method.py L421-446
@182b75e); int8 weights run DispatchFFNCombine, int32-packed int4 weights the _W4A8 variant, others _BF16.
Fields of a document (`kind: ascend`, `op: dispatch_ffn_combine`):

| field | meaning (upstream name) | default |
|---|---|---|
| product, cann_version | A2 / A3 (the op ships for both; vllm-ascend selects it on A3 only) | required / latest |
| bs | x.size(0) = M: tokens of this call on one rank (vllm-ascend: <= 512 per TP rank) | required |
| h | x.size(1) = K, hidden | required |
| k | expert_idx.size(1) = topK | required |
| ep_world_size | size of `group` (vllm-ascend: the MC2 group, <= 32) | required |
| moe_expert_num | experts over the group; experts/rank = len(weight1) = this / ep | required |
| intermediate_hidden | weight2 dim0; N = 2 x this: bf16 / w4a8 workspace only (int8 tiling never reads it, L297-306) | none |
| weight_dtype | int8 (W8A8), int4 (W4A8) or bf16: selects the variant | int8 |
| max_output_size | `max_output_size` (vllm-ascend: additional_config mega_moe_max_tokens, 131072) | required |
| swiglu_limit | `swiglu_limit` | 0.0 |
| group | `group`: the EP communicator's name; empty is refused ("group is invalid.", tiling L98-99; MC110) | none |
| env.HCCL_BUFFSIZE | read by the op itself (getenv), not the group's hccl_buffer_size option | HCCL default 200 |

Buffers: `hccl_window` (int8 variant only: M*topK*K*3 + 10 MB, compared with HCCL_BUFFSIZE) and `workspace`
(16 MiB + the variant's workspace, which grows with max_output_size). Rules: rules.py.
"""
from __future__ import annotations

from moecfg.core.record import record
from moecfg.backends import Analysis, Options
from moecfg.backends.ascend.shared import fused_formulas as ff
from moecfg.backends.ascend.ops.dispatch_ffn_combine import formulas as dx
from moecfg.backends.ascend import kind
from moecfg.backends.ascend.shared.formulas import ceil_mb
from moecfg.backends.ascend.ops.dispatch_ffn_combine.catalog import DFC_RULES, DfcRules
from moecfg.backends.ascend.ops.dispatch_ffn_combine import rules

OP = "dispatch_ffn_combine"


@record(frozen=True, slots=True)
class DfcConfig:
    product: str
    bs: int
    h: int
    k: int
    ep_world_size: int
    moe_expert_num: int
    intermediate_hidden: int | None  # only the bf16 / w4a8 workspace needs it
    weight_dtype: str
    max_output_size: int
    hccl_buffsize_env: int | None
    group: str | None = None  # the EP communicator name (None: not given, the framework passes its own)

    @classmethod
    def from_values(cls, v: dict) -> "DfcConfig":
        return cls(v["product"], v["bs"], v["h"], v["k"], v["ep_world_size"], v["moe_expert_num"],
                   v.get("intermediate_hidden"), v["weight_dtype"], v["max_output_size"],
                   (v.get("env") or {}).get("HCCL_BUFFSIZE"), v.get("group"))


@record(frozen=True, slots=True)
class DfcFacts:
    limits: DfcRules
    experts_per_rank: int
    window_mb: int  # what GetMaxWindowSize returns (MB)
    least_bytes: int  # M * topK * K * 3 + 10 MB
    safe_output: int  # the most tokens a rank can receive: bs * ep * min(k, experts/rank)
    workspace_bytes: int  # at max_output_size
    workspace_safe_bytes: int  # at max_output_size = safe_output


def workspace(cfg: DfcConfig, epr: int, max_out: int) -> int:
    """The op's workspace bytes (0: unknown, the bf16 / w4a8 variant without intermediate_hidden)."""
    args, inter = (cfg.bs, cfg.k, cfg.h), cfg.intermediate_hidden or 0
    if cfg.weight_dtype != "int8" and inter <= 0:
        return 0
    if cfg.weight_dtype == "int8":
        op_ws = dx.dfc_workspace_int8(*args, cfg.ep_world_size, epr, max_out)
    elif cfg.weight_dtype == "int4":
        op_ws = dx.dfc_workspace_w4a8(*args, inter, cfg.ep_world_size, epr, max_out)
    else:
        op_ws = dx.dfc_workspace_bf16(*args, inter, cfg.ep_world_size, epr, max_out)
    return ff.total_workspace(op_ws)


def computable(cfg: DfcConfig) -> bool:
    return min(cfg.bs, cfg.h, cfg.k, cfg.ep_world_size, cfg.moe_expert_num) > 0 and cfg.max_output_size > 0


def derive(cfg: DfcConfig) -> DfcFacts:
    epr = cfg.moe_expert_num // cfg.ep_world_size if cfg.ep_world_size > 0 else 0
    safe = cfg.bs * cfg.ep_world_size * min(cfg.k, epr)
    ok = computable(cfg) and epr > 0
    return DfcFacts(DFC_RULES, epr, dx.dfc_window_mb(cfg.hccl_buffsize_env),
                    dx.dfc_least_window_bytes(cfg.bs, cfg.k, cfg.h, DFC_RULES.reserved_bytes), safe,
                    workspace(cfg, epr, cfg.max_output_size) if ok else 0, workspace(cfg, epr, safe) if ok else 0)


def analyze(doc, options: Options) -> Analysis:
    values, out, ruleset = kind.start(doc, options, OP)
    if ruleset is None:
        return out
    cfg = DfcConfig.from_values(values)
    facts = derive(cfg)
    for check in rules.CHECKS:
        out.findings.extend(check(cfg, facts))
    if computable(cfg):
        out.buffers = buffer_table(cfg, facts)
        out.derived = {"experts_per_rank": facts.experts_per_rank, "max_output_size_safe": facts.safe_output,
                       "hccl_window_mb": facts.window_mb, "workspace_bytes": facts.workspace_bytes or None,
                       "device_bytes": facts.workspace_bytes + 2 * _group_buffer_mb(cfg) * ff.MIB
                       if facts.workspace_bytes else None,  # unknown: bf16 / w4a8 without intermediate_hidden
                       "variant": {"int8": "DispatchFFNCombine", "int4": "DispatchFFNCombineW4A8",
                                   "bf16": "DispatchFFNCombineBF16"}[cfg.weight_dtype]}
        out.explanations = {"hccl_window": "the op reads env HCCL_BUFFSIZE itself (uint16; unset, unparsable or "
                            "> 65535 -> 200 MB) and checks one window; the int8 variant only"}
    return out


def _group_buffer_mb(cfg: DfcConfig) -> int:
    """The MB HCCL allocates per window for the group (it reads HCCL_BUFFSIZE itself, not as uint16)."""
    env = cfg.hccl_buffsize_env
    return env if env is not None and env > 0 else 200


def _window_source(cfg: DfcConfig) -> str:
    env = cfg.hccl_buffsize_env
    if env is None:
        return "HCCL default (HCCL_BUFFSIZE unset)"
    return "env HCCL_BUFFSIZE" if 0 <= env <= 65535 else f"200 MB default: HCCL_BUFFSIZE = {env} is not a uint16"


def buffer_table(cfg: DfcConfig, f: DfcFacts) -> dict:
    table = {}
    if cfg.weight_dtype in f.limits.checked_dtypes:
        table["hccl_window"] = {
            "required_bytes": f.least_bytes, "required_mb": ceil_mb(f.least_bytes), "configured_mb": f.window_mb,
            "sufficient": f.least_bytes <= f.window_mb * ff.MIB, "configured_from": _window_source(cfg),
            "enforced": "error", "formula": "M * topK * K * sizeof(int8) * 3 + 10 MB",
            "terms": {"M (bs)": cfg.bs, "topK (k)": cfg.k, "K (h)": cfg.h, "10 MB": f.limits.reserved_bytes},
            "note": "the op's error message says + 3MB; the code adds 10 MB"}
    if not f.workspace_bytes:  # bf16 / w4a8 without intermediate_hidden: MC883 says which figure needs it
        return table
    table["workspace"] = {
        "required_bytes": f.workspace_bytes, "sufficient": None,
        "formula": "16 MiB + cocWorkspace (routing indices, counts, max_output_size tokens of GMM in/out and scales)",
        "terms": {"max_output_size": cfg.max_output_size, "max_output_size_safe": f.safe_output,
                  "experts_per_rank": f.experts_per_rank, "weight_dtype": cfg.weight_dtype},
        "note": "device memory outside the HCCL buffer; the tiling takes the max with the init-routing workspace, "
                "not counted here"}
    return table
