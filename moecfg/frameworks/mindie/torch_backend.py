"""The op calls of MindIE's torch backend, per phase, with the arguments MindIE passes.

Two phases, as the warm-up runs them at start-up (text_generator/generator.py:512-516, :805-810: a MindIE-Motor
prefill node warms up prefill, a decode node decode; model_runner_exp.py:435-446):
`prefill` steps of up to maxPrefillTokens per DP group and `decode` steps of up to maxBatchSize x (1 + MTP). Per
step the path comes from choose.py; MC2 calls `npu_moe_distribute_dispatch_v2` / `combine_v2` (when torch_npu has
them, token_dispatcher.py:180) with (Ascend/MindIE-LLM@8b4871a mindie_llm/runtime/layers/fused_moe/):
- global_bs = ceil(max_tokens_across_dp / attention TP) x moe_ep (token_dispatcher.py:188-190);
- quant_mode 2: FusedMoE builds every MC2 call with with_quant=True (fused_moe.py:215-224; token_dispatcher.py:184-187);
- on 910_93 (A3): group_tp = the EP group, tp_world_size 1, x_active_mask (token_dispatcher.py:206-219);
- moe_expert_num = the model's routed experts (fused_moe.py:205 num_experts -> token_dispatcher.py:196),
  ep_world_size = moe_ep (token_dispatcher.py:179).
FusedMC2 calls MindIE's own `npu_dispatch_ffn_combine` (src/kernels/mie_ops/csrc/mc2/dispatch_ffn_combine: int8
weights only, def.cpp:26-34; the same HCCL_BUFFSIZE window check as vllm-ascend's, tiling.cpp:262-269) with a fixed
max_output_size 131072 (fused_moe.py:41-43, :141-151). Both run on the MOE_EP_MC2 group, whose HCCL buffer is
HCCL_BUFFSIZE (parallel_info_manager.py:217-220).
"""
from __future__ import annotations

from moecfg.frameworks import Note, OpCall
from moecfg.frameworks.mindie import choose as C
from moecfg.frameworks.mindie import rules
from moecfg.frameworks.mindie.layout import Layout, Value, env_file_label

FUSED_MAX_OUTPUT = 131072  # fused_moe.py:43 MAX_OUTPUT_SIZE = 65536 * 2


def calls(lay: Layout, dims, ctx, env_buff: tuple[str, str] | None) -> tuple[list[OpCall], list[Note]]:
    """(op calls, launch notes) for a torch-backend entry whose sizes are known (see `unknowns`)."""
    ep, tp = lay.moe_ep.value, lay.tp.value
    setup = C.Setup(lay.product, lay.world.value, lay.dp.value, lay.moe_tp.value, ep, C.ceil_div(dims.num_experts, ep))
    cap, cap_text = C.capacity(lay.max_batch.value, lay.spec.value, lay.cp.value, lay.dp.value, tp)
    out, notes, seen = [], [], set()
    for phase, step in _steps(lay):
        tokens = C.per_device(step.value, tp)
        path, why = C.choose(setup, tokens, cap, phase == "prefill")
        if path in (C.FAILS, C.FUSED_TOO_MANY):
            if not (path == C.FAILS and lay.moe_tp.value > 1 and notes):  # moe_tp fails every step: said once
                notes.append(_failure(lay, phase, step, tokens, path, why, dims))
            continue
        if path in (C.ALLTOALL, C.ALLGATHER):
            out.append(OpCall(phase, "none", None, {}, why_none=f"{phase} steps of {tokens} tokens per device: {why}"))
            smaller = C.choose(setup, cap, cap, phase == "prefill")
            if tokens > cap and smaller[0] == C.MC2:  # the steps within the capacity still run MC2
                tokens, path, why = cap, C.MC2, f"{phase} steps of up to the capacity: {smaller[1]}"
            else:
                continue
        key = (path, tokens)
        if key not in seen:
            seen.add(key)
            out.append(_call(lay, dims, ctx, env_buff, phase, step, tokens, path, f"{why}; capacity {cap_text}"))
    return out, notes


def _steps(lay: Layout) -> list[tuple[str, Value]]:
    b, s, p = lay.max_batch, lay.spec, lay.max_prefill
    n = b.value * (1 + s.value)
    decode = Value(n, b.spans + s.spans, f"maxBatchSize {b.value} x (1 + {s.value} MTP tokens) = {n} tokens per DP "
                   "group: the scheduler's batch limit (model_runner_exp.py:128); the start-up warm-up's decode step carries "
                   "its warm-up requests, at most maxBatchSize (generator.py:1370-1373, 1417)")
    prefill = Value(p.value, p.spans, f"maxPrefillTokens {p.value} per DP group (the warm-up's prefill, "
                    "generator.py:1375-1388)")
    steps = [("decode", decode), ("prefill", prefill)]  # decode first: its MC2 call keeps the role
    return [x for x in steps if lay.role in (None, x[0])]  # a Motor PD node warms up its own phase only


def _failure(lay: Layout, phase: str, step: Value, tokens: int, path: str, why: str, dims) -> Note:
    rule = rules.FUSED_TOKENS if path == C.FUSED_TOO_MANY else rules.NO_STRATEGY
    if path == C.FUSED_TOO_MANY:
        fix, at = _fewer_tokens(lay, phase, step, C.FUSED_MAX_TOKENS)
    else:
        fix, at = _no_strategy_fix(lay, phase, step, why)
    if path == C.FAILS and lay.moe_tp.value > 1:  # the cause is moe_tp, whatever the step's size
        return Note(rule.code, f"{why}; every step fails, the warm-up's first, so mindie_llm_server does not start; "
                    f"{fix}", at)
    when = "MindIE's warm-up runs this step at start-up, so mindie_llm_server fails" if phase == "prefill" else \
        ("the step fails once a decode batch reaches that size (the start-up warm-up decodes its own requests, at "
         "most maxBatchSize, generator.py:1417: it fails there when it has that many)")
    return Note(rule.code, f"{phase} steps of {tokens} tokens per device ({step.text}, / tp {lay.tp.value}): {why}; "
                f"{when}; {fix}", at)


def _fewer_tokens(lay: Layout, phase: str, step: Value, per_device: int):
    """'lower maxPrefillTokens to N' so that a step is at most `per_device` tokens per device, and where."""
    tp, spec = max(lay.tp.value, 1), lay.spec.value
    knob = "maxPrefillTokens" if phase == "prefill" else "maxBatchSize"
    most = per_device * tp // (1 if phase == "prefill" else 1 + spec)
    how = f"{knob} / tp {tp}" if phase == "prefill" else f"{knob} x (1 + {spec}) MTP tokens / tp {tp}"
    at = step.spans[0] if step.spans else lay.flags["backendType"].span
    return f"lower {knob} to {most} ({how} <= {per_device})", at


def _no_strategy_fix(lay: Layout, phase: str, step: Value, why: str):
    if lay.moe_tp.value > 1:
        word = lay.word("moe_tp") or lay.word("moe_ep") or lay.flags["backendType"]
        return f"set \"moe_tp\": 1 and \"moe_ep\": {lay.world.value or 'the world size'}", word.span
    fixes, at = [], lay.flags["backendType"].span
    if "> capacity" in why:
        fix, at = _fewer_tokens(lay, phase, step, C.MC2_MAX_CAPACITY)
        fixes.append(fix)
    if "experts per rank >" in why:
        fixes.append(f"raise moe_ep until experts per rank <= {C.MAX_EXPERTS_PER_RANK}")
    if "not 16/32/64" in why:
        fixes.append("deploy on 16, 32 or 64 A2 devices (MC2's world sizes)")
        at = (lay.word("worldSize") or lay.word("moe_ep") or lay.flags["backendType"]).span if not fixes[:-1] else at
    if lay.product == "A2" and lay.dp.value > 1:
        fixes.append("or set \"dp\": 1 (AllGather then takes the step)")
    return "; ".join(fixes) or "see the strategy table (`moecfg docs mindie`)", at


def _call(lay: Layout, dims, ctx, env_buff, phase: str, step: Value, tokens: int, path: str, why: str) -> OpCall:
    from moecfg.frameworks.vllm_ascend.calls import Builder

    op = "dispatch_ffn_combine" if path == C.FUSED else "dispatch_combine_v2"
    b = Builder(phase, op)
    b.call.derivation["op"] = f"{op} <- {why}"
    b.put("product", Value(lay.product, (), lay.product_how))
    if ctx.cann:
        b.put("cann_version", Value(ctx.cann, (), "settings"))
    tp, ep = lay.tp.value, lay.moe_ep.value
    bs_text = f"{step.text}, / attention tp {tp}" if tp > 1 else step.text
    bs = Value(tokens, step.spans + lay.tp.spans, f"{bs_text} = {tokens} tokens per device")
    b.put("bs", bs)
    b.put("ep_world_size", Value(ep, lay.moe_ep.spans, f"{lay.moe_ep.text}: the MOE_EP_MC2 group "
                                 "(parallel_info_manager.py:218-220)"))
    _model(b, dims, lay)
    if path == C.FUSED:
        b.put("weight_dtype", Value("int8", (), "MindIE's dispatch_ffn_combine takes int8 weights only (mie_ops "
                                    "dispatch_ffn_combine_def.cpp:26-34)"))
        b.put("max_output_size", Value(FUSED_MAX_OUTPUT, (), "fixed MAX_OUTPUT_SIZE = 65536 x 2 (fused_moe.py:43)"))
        b.call.notes.extend(_output_note(lay, dims, phase, step, tokens))
    else:
        b.put("global_bs", Value(tokens * ep, bs.spans + lay.moe_ep.spans, f"ceil(max_tokens_across_dp / tp) {tokens}"
                                 f" x moe_ep {ep} (token_dispatcher.py:188-190)"))
        b.put("quant_mode", Value(2, (), "FusedMoE passes with_quant=True to every MC2 call (fused_moe.py:215-224; "
                                  "token_dispatcher.py:184-187)"))
        if lay.product == "A3":
            b.put("tp_world_size", Value(1, (), "910_93: group_tp = the EP group, tp_world_size 1 "
                                         "(token_dispatcher.py:206-213)"))
            b.put("x_active_mask", Value("1d", (), "910_93 with dispatch_v2: the forward context's mc2_mask "
                                         "(token_dispatcher.py:214-219)"))
    _env(b, env_buff)
    b.call.knobs = _knobs(phase, env_file_label(lay))
    return b.call


def _output_note(lay: Layout, dims, phase: str, step: Value, tokens: int) -> list[Note]:
    """MC882 in MindIE's knobs: max_output_size is fixed, so the fix is fewer tokens per step."""
    ep, tp = lay.moe_ep.value, lay.tp.value
    fan = ep * min(dims.topk, C.ceil_div(dims.num_experts, ep))
    if tokens * fan <= FUSED_MAX_OUTPUT:
        return []
    per = FUSED_MAX_OUTPUT // fan
    knob = "maxPrefillTokens" if phase == "prefill" else "maxBatchSize"
    most = per * max(tp, 1) // (1 if phase == "prefill" else 1 + lay.spec.value)
    at = step.spans[0] if step.spans else lay.flags["backendType"].span
    return [Note("MC882", f"{phase} steps of {tokens} tokens per device ({step.text}): up to {tokens} x moe_ep {ep} x "
                 f"min(top-k {dims.topk}, experts per rank) = {tokens * fan} tokens can reach one rank, above the "
                 f"max_output_size {FUSED_MAX_OUTPUT} MindIE fixes for npu_dispatch_ffn_combine (fused_moe.py:43): "
                 f"tokens beyond it are dropped from the computation under skewed routing; lower {knob} to {most} "
                 f"({per} tokens per device)", at, "warning", covers=("MC882",))]


def _model(b, dims, lay: Layout) -> None:
    from moecfg.frameworks.mindie.layout import model_text

    word = model_text(lay)
    spans = (word.span,) if word else ()
    b.call.derivation["model"] = dims.how
    b.put("h", Value(dims.hidden, spans, f"hidden of {dims.name}"))
    b.put("k", Value(dims.topk, spans, f"top-k of {dims.name}"))
    b.put("moe_expert_num", Value(dims.num_experts, spans, f"{dims.num_experts} routed experts of {dims.name} "
                                  "(fused_moe.py:205, token_dispatcher.py:196)"))


def _env(b, env_buff: tuple[str, str] | None) -> None:
    """env_buff: (MB as text, how it is known)."""
    if env_buff is None:
        return
    b.call.arguments["env"] = {"HCCL_BUFFSIZE": env_buff[0]}
    b.call.derivation["env.HCCL_BUFFSIZE"] = (f"{env_buff[0]} <- {env_buff[1]}: the MOE_EP_MC2 group's "
                                              "hccl_buffer_size (parallel_info_manager.py:217-220)")


def _knobs(phase: str, env_file: str) -> dict[str, str]:
    tokens = "maxPrefillTokens / tp" if phase == "prefill" else "maxBatchSize x (1 + MTP) / tp"
    return {"bs": tokens, "global_bs": f"{tokens} x moe_ep", "ep_world_size": "moe_ep",
            "HCCL_BUFFSIZE": f"HCCL_BUFFSIZE in {env_file}", "max_output_size": "fixed by MindIE, fused_moe.py:43"}
