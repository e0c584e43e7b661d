"""The dispatch_v2 / combine_v2 call xLLM's TORCH FusedMoE makes on DeepSeek-V4 decode steps (EP level 2,
--enable_fused_mc2 0), as an `ascend` op call: arguments at jd-opensource/xllm@87e8d6e
xllm/core/layers/npu_torch/fused_moe.cpp:1411-1444 (dispatch) and 1567-1584 (combine), entry point
aclnnMoeDistributeDispatchV2 (xllm/core/kernels/npu/npu_moe_distribute_dispatch_v2.cpp:100-204).
"""
from __future__ import annotations

from moecfg.frameworks import OpCall
from moecfg.frameworks.values import integer, unknown_buffsize
from moecfg.frameworks.xllm.calls import KNOBS, Ctx
from moecfg.frameworks.xllm.releases import cite


def decode_tokens(c: Ctx) -> tuple[int | None, str, tuple]:
    """Rows of x on one rank in the largest decode step: every sequence of the step in this rank's DP group (the
    DeepSeek-V4 layer passes its whole batch, deepseek_v4_decoder_layer.cpp:176-198), one token each plus the draft
    tokens (--num_speculative_tokens). --max_seqs_per_batch is the scheduler's budget for the whole step
    (continuous_scheduler.cpp:1108-1109), so with --dp_size > 1 this is the bound when one DP group holds them all."""
    seqs, spec = c.int("max_seqs_per_batch"), c.int("num_speculative_tokens")
    if seqs is None or spec is None or seqs < 1 or spec < 0:
        return None, "--max_seqs_per_batch / --num_speculative_tokens not known", ()
    tokens = seqs * (1 + spec)
    text = f"{c.said('max_seqs_per_batch')} x (1 + {c.said('num_speculative_tokens')}) = {tokens} decode tokens"
    if (c.int("dp_size") or 1) > 1:
        text += f" (the step's budget; with {c.said('dp_size')} the bound when one DP group holds every sequence)"
    spans = c.span("max_seqs_per_batch") + c.span("num_speculative_tokens")
    padded, why = graph_rows(c, seqs, 1 + spec)
    if padded is not None and padded > tokens:
        return padded, f"{text}; {why}", spans + c.span("enable_graph")
    return tokens, text, spans


def bucket(tokens: int) -> int:
    """The ACL graph bucket a decode step of `tokens` rows is padded to: 1, 2, 4, 8, then multiples of 16
    (acl_graph_executor_impl.cpp:709-726)."""
    for size in (1, 2, 4, 8):
        if tokens <= size:
            return size
    return -(-tokens // 16) * 16


def graph_rows(c: Ctx, seqs: int, per_seq: int) -> tuple[int | None, str]:
    """With --enable_graph a decode batch of up to the graph limit (--acl_graph_decode_batch_size_limit, v0.10.0's
    --graph_decode_batch_size_limit; larger ones run eager) is padded to its bucket
    (acl_graph_executor_impl.cpp:486-511)."""
    if not c.bool("enable_graph") or c.bool("enable_graph_mode_decode_no_padding") is not False:
        return None, ""
    name = next((n for n in ("acl_graph_decode_batch_size_limit", "graph_decode_batch_size_limit")
                 if c.text(n) is not None), None)
    limit = c.int(name) if name else None
    if limit is None:
        return None, ""
    batch = min(seqs, max(limit, 1))
    padded = bucket(batch * per_seq)
    return padded, (f"{c.said('enable_graph')}: a decode batch of up to {c.said(name)} sequences is padded to its "
                    f"graph bucket, {batch} x {per_seq} = {batch * per_seq} -> {padded} rows "
                    f"({cite(c.release, 'graph_limit')}; {cite(c.release, 'graph_bucket')})")


def dispatch_call(c: Ctx, ctx, dims, ep: int, why: str) -> OpCall:
    call = OpCall("decode", "ascend", "dispatch_combine_v2", {"op": "dispatch_combine_v2"}, knobs=dict(KNOBS))
    a, d, s = call.arguments, call.derivation, call.sources
    d["op"] = f"dispatch_combine_v2 <- {why}"
    a["api"], d["api"] = "aclnn_v2", "aclnn_v2 <- xLLM calls aclnnMoeDistributeDispatchV2 / CombineV2 directly " \
        f"({cite(c.release, 'dispatch_api')})"
    a["product"], d["product"] = ctx.product, f"{ctx.product} <- {ctx.product_source or 'settings'}"
    if ctx.cann:
        a["cann_version"] = ctx.cann
    model = c.span("model")
    a["h"], d["h"], s["h"] = dims.hidden, f"{dims.hidden} <- hidden_size, {dims.how}", model
    a["k"], d["k"], s["k"] = dims.topk, f"{dims.topk} <- num_experts_per_tok, {dims.how}", model
    a["moe_expert_num"], s["moe_expert_num"] = dims.num_experts, model
    d["moe_expert_num"] = f"{dims.num_experts} <- n_routed_experts ({cite(c.release, 'moe_expert_num')}: " \
        f"num_total_experts_), {dims.how}"
    a["ep_world_size"], s["ep_world_size"] = ep, c.span("ep_size")
    d["ep_world_size"] = f"{ep} <- {c.said('ep_size')}: the moe_ep group ({cite(c.release, 'ep_world_size')})"
    tokens, text, spans = decode_tokens(c)
    if tokens is not None:
        a["bs"], d["bs"], s["bs"] = tokens, f"{tokens} <- {text}", spans
        _global_bs(c, call, tokens, ep)
    fixed = (("tp_world_size", 0), ("tp_rank_id", 0), ("expert_shard_type", 0), ("shared_expert_num", 1),
             ("shared_expert_rank_num", 0), ("quant_mode", 0), ("expert_token_nums_type", 1))
    for name, value in fixed:
        a[name], d[name] = value, f"{value} <- fixed in xLLM ({cite(c.release, 'dispatch_fixed')})"
    d["quant_mode"] += f"; {cite(c.release, 'quant_mode_check')} CHECKs it is 0"
    a["expert_scales"], d["expert_scales"] = True, \
        f"true <- topk weights passed as expert_scales ({cite(c.release, 'expert_scales')})"
    _env(c, call)
    return call


def _global_bs(c: Ctx, call: OpCall, tokens: int, ep: int) -> None:
    dp, where = c.int("dp_size"), cite(c.release, "global_bs_dp")
    if dp is None:  # 0 under DP, rows x EP without: not derived from a default dp 1 (read_notes said MC023)
        call.derivation["global_bs"] = "not derived: --dp_size is not known statically (0 when > 1, rows x EP " \
            f"when 1, {where})"
        call.unknown += ("global_bs",)
        return
    if dp > 1:
        call.arguments["global_bs"] = 0
        call.derivation["global_bs"] = f"0 <- {c.said('dp_size')} > 1: xLLM passes 0 (auto) for uneven DP batches " \
            f"({where})"
        call.sources["global_bs"] = c.span("dp_size")
        return
    call.arguments["global_bs"] = tokens * ep
    call.derivation["global_bs"] = f"{tokens * ep} <- rows {tokens} x EP {ep} ({cite(c.release, 'global_bs')})"
    call.sources["global_bs"] = c.span("max_seqs_per_batch") + c.span("ep_size")


def _env(c: Ctx, call: OpCall) -> None:
    """The domain is built with buffer size 0 when moe_ep is the world (always, for EP level 2), so xLLM sets no
    buffer of its own for it: HCCL's, from the process HCCL_BUFFSIZE (200 MB when unset)."""
    e = c.launch.env.get("HCCL_BUFFSIZE")
    where = cite(c.release, "domain_buffer")
    if e is None:
        call.derivation["env.HCCL_BUFFSIZE"] = f"unset: the dispatch/combine domain gets buffer size 0 from xLLM " \
            f"(moe_ep is the whole world, {where}), so HCCL's default applies"
        return
    unknown = unknown_buffsize(e)
    if unknown is not None:  # `$BUF`, or no int: no rule judges it, and HCCL's default does not stand in
        call.not_known(unknown)
        return
    value = integer(e.value)
    call.arguments["env"] = {"HCCL_BUFFSIZE": value}
    call.sources["env.HCCL_BUFFSIZE"] = (e.span,)
    call.derivation["env.HCCL_BUFFSIZE"] = f"{e.value} <- the launch's HCCL_BUFFSIZE: xLLM passes buffer size 0 for " \
        f"the dispatch/combine domain (moe_ep is the whole world, {where}), so HCCL sizes it from the process variable"
