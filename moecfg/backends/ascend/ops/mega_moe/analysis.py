"""`op: mega_moe`: CANN MegaMoE (dispatch + GMM1 + SwiGLU + GMM2 + combine in one op) on Atlas A2 / A3.

Python API (cann_ops_transformer.ops, ops-transformer torch_extension): `get_symm_buffer_for_mega_moe(group,
num_experts, num_max_tokens_per_rank, num_topk, hidden, intermediate_hidden, *, max_recv_token_num=0,
dispatch_quant_mode=0, dispatch_quant_out_dtype=None, combine_quant_mode=0, comm_alg="")` then
`mega_moe(x, topk_ids, topk_weights, l1_weights, l2_weights, sym_buffer, *, activation="swiglu",
activation_clamp=None, ...)`. Fields of a document (`kind: ascend`, `op: mega_moe`):

- product (required): A2 or A3; cann_version: the release (rule sets 9.1, latest; 8.5 and 9.0 have no MegaMoE)
- bs (required): x.size(0), the tokens this call sends from one rank
- h (required): x.size(1) = `hidden`; k (required): topk_ids.size(1) = `num_topk`
- ep_world_size (required): size of the EP `group`
- moe_expert_num (required): `num_experts` (routed, incl. EPLB redundant); experts per rank = len(l1_weights)
  = moe_expert_num / ep_world_size
- intermediate_hidden (required): l2_weights[i].size(0), the per-expert FFN width after TP (vllm-ascend passes
  2x this to get_symm_buffer_for_mega_moe, which only stores it; the tiling checks weight2's dim0)
- weight_dtype: l1/l2_weights dtype bf16, int8 (W8A8) or int4 (W4A8); default int8 if dispatch_quant_mode is 2,
  else bf16
- x_dtype: dtype of x, bf16 (default) or fp16
- num_max_tokens_per_rank (default bs), max_recv_token_num (default 0 = auto), dispatch_quant_mode (0),
  dispatch_quant_out_dtype (None; int8 for W8A8/W4A8), combine_quant_mode (0), comm_alg (""), activation
  ("swiglu"), activation_clamp (None): as named upstream
- env.HCCL_BUFFSIZE / hccl_buffer_size.ep: the EP group's HCCL buffer, MB (the pg option wins; HCCL default 200)

What vllm-ascend@182b75e passes (ops/fused_moe/moe_comm_method.py L283-410, moe_utils.py L124-147): bs = this
forward's tokens per rank; num_max_tokens_per_rank = global_bs // ep (or the dispatcher's rank-invariant cap:
min(ceil(capacity / TP), 4096)); max_recv_token_num = num_max_tokens_per_rank * ep * min(k, experts/rank),
explicit; intermediate_hidden = intermediate_size_per_partition; W8A8: dispatch_quant_mode 2, out dtype int8,
weight_dtype int8; W4A8: the same with weight_dtype int4; unquantised: 0, None, bf16; comm_alg and
combine_quant_mode left at their defaults; the EP (MC2) group's buffer is env HCCL_BUFFSIZE (no pg option).

Where the buffer comes from (read in the code, not the notes): on A2/A3 `get_symm_buffer_for_mega_moe`
builds its context with the "kfc" backend, whose `KfcContextBuilder` sets `ccl_buffer_size` from
`HcclGetHcclBuffer` of the EP communicator (torch_extension/.../csrc/comm_context.cpp L108-149, the call at
L130/L141; ops/mega_moe.py L119-140 passes the computed size as `customCclBufferSize`, which KFC ignores);
HcclGetHcclBuffer returns 2 x the communicator's buffer (HCCL_BUFFSIZE or the hccl_buffer_size option;
hicann/hcomm@78ad2b9 docs/en/api_ref/comm_opdev/control_plane_api/comms_domain_resource_mgmt/
HcclGetHcclBuffer.md). The tiling checks `ccl_buffer_size / 2`, i.e. one HCCL_BUFFSIZE window, against its
least size (MMT L1020-1055). Only Ascend 950 ("channel" backend) allocates the custom size (comm_context.cpp
L449-466, aclrtMalloc of customCclBufferSize). Buffers: `ccl_window` (what HCCL_BUFFSIZE must hold for this
call's bs), `ccl_window_max_tokens` (for num_max_tokens_per_rank, when larger) and `workspace` (the op's device
workspace). Rules: rules.py (MC860-MC875).
"""
from __future__ import annotations

from moecfg.backends import Analysis, Options
from moecfg.backends.ascend.shared import fused_formulas as ff
from moecfg.backends.ascend.ops.mega_moe import formulas as mx
from moecfg.backends.ascend import kind
from moecfg.backends.ascend.shared.formulas import ceil_mb
from moecfg.backends.ascend.ops.mega_moe.model import (MegaMoeConfig, MegaMoeFacts, computable, derive, least_window,
                                                   max_tokens_recv, workspace_bytes)
from moecfg.backends.ascend.ops.mega_moe import rules

OP = "mega_moe"


def analyze(doc, options: Options) -> Analysis:
    values, out, ruleset = kind.start(doc, options, OP)
    if ruleset is None:
        return out
    cfg = MegaMoeConfig.from_values(values)
    facts = derive(cfg, ruleset.name)
    if not facts.limits.available:
        out.findings.extend(rules.unavailable(cfg, facts))
        return out
    for check in rules.CHECKS:
        out.findings.extend(check(cfg, facts))
    if computable(cfg, facts):
        out.buffers = buffer_table(cfg, facts)
        out.derived = derived(cfg, facts)
        out.explanations = explanations(cfg, facts)
    return out


def _window_entry(cfg: MegaMoeConfig, f: MegaMoeFacts, bs: int, max_recv: int) -> dict:
    a3 = cfg.product == "A3"
    need = least_window(cfg, f, bs, max_recv)
    terms = {"TPE = ep * CeilAlign(ep * 128 + 1, 128) * 4": mx.mega_moe_tpe_bytes(cfg.ep_world_size),
             "tensors": mx.mega_moe_tensor_bytes(cfg.h, cfg.k, bs, max_recv, f.quant, a3),
             "flags": mx.mega_moe_flag_bytes(cfg.ep_world_size, a3), "reserved (10 MiB)": mx.MEGA_MOE_RESERVED,
             "bs": bs, "k": cfg.k, "h": cfg.h, "ep_world_size": cfg.ep_world_size,
             "token bytes (h + 512 quantised, else 2h)": mx.mega_moe_token_bytes(cfg.h, f.quant)}
    if a3:
        tensors = "bs*k*tok + bs*k*2h" + (" + bs*k*4" if f.quant else "")
        flags = "ep*512"
    else:
        terms["max_recv_token_num"] = max_recv
        tensors = "max(max_recv*tok + bs*k*2h, bs*k*tok + max_recv*2h)" + (" + max_recv*4" if f.quant else "")
        flags = "ep*512 + ep*128*64 + ep*64"
    w = f.window
    return {"required_bytes": need, "required_mb": ceil_mb(need), "configured_mb": w.mb,
            "sufficient": need <= w.mb * ff.MIB, "configured_from": w.source, "enforced": "error",
            "formula": f"ccl_buffer_size / 2 >= TPE + tensors + flags + 10 MiB; {cfg.product}: tensors = {tensors}, "
                       f"flags = {flags}", "terms": terms,
            "note": f"ccl_buffer_size = 2 x the EP group's HCCL buffer (HcclGetHcclBuffer); the tiling suggests "
                    f"{mx.mega_moe_suggested_mb(need)} MB"}


def buffer_table(cfg: MegaMoeConfig, f: MegaMoeFacts) -> dict:
    table = {"ccl_window": _window_entry(cfg, f, cfg.bs, f.max_recv)}
    if cfg.num_max_tokens_per_rank > cfg.bs:
        table["ccl_window_max_tokens"] = _window_entry(cfg, f, cfg.num_max_tokens_per_rank, max_tokens_recv(cfg, f))
    ws = workspace_bytes(cfg, f, f.max_recv)
    table["workspace"] = {"required_bytes": ws, "formula": "16 MiB + MegaMoE workspace (expandedRowIdx, cumsum, "
                          "GMM1/GMM2 in/out for max_recv_token_num tokens, scales, sync)",
                          "terms": {"max_recv_token_num": f.max_recv, "intermediate_hidden": cfg.intermediate_hidden,
                                    "experts_per_rank": f.experts_per_rank, "bs": cfg.bs},
                          "sufficient": None, "note": "device memory outside the HCCL buffer; the tiling takes the max "
                          "with the init-routing workspace, not counted here"}
    return table


def derived(cfg: MegaMoeConfig, f: MegaMoeFacts) -> dict:
    ws, ccl = workspace_bytes(cfg, f, f.max_recv), 2 * f.window.mb * ff.MIB
    return {"experts_per_rank": f.experts_per_rank, "num_max_tokens_per_rank": cfg.num_max_tokens_per_rank,
            "max_recv_token_num": f.max_recv, "max_recv_token_num_safe": f.safe_recv, "quant_routing": f.quant,
            "weight_dtype": cfg.weight_dtype, "ccl_buffer_size": ccl, "workspace_bytes": ws,
            "device_bytes": ccl + ws}  # the EP group's HCCL buffer pair + the op's workspace, per rank


def explanations(cfg: MegaMoeConfig, f: MegaMoeFacts) -> dict:
    return {"ccl_window": f"{cfg.product}: get_symm_buffer_for_mega_moe takes ccl_buffer_size from the EP "
                          f"communicator (HcclGetHcclBuffer = 2 x {f.window.mb} MB, {f.window.source}); the tiling "
                          "checks half of it. Only Ascend 950 allocates the size the wrapper computes.",
            "max_recv_token_num": f"{f.max_recv} tokens per rank after dispatch"
                                  + (" (auto: bs * ep * min(k, experts/rank))" if cfg.max_recv_token_num == 0
                                     and f.limits.auto_max_recv else "")}
