"""The MC2 op calls of vllm-mindspore's pure EP mode (VMS@423bd12 fused_moe.py:400-443), as `ascend` documents:
op dispatch_combine_v2 through aclnnMoeDistributeDispatchV3 / CombineV3 (ms_custom_ops), global_bs fixed at
256 x EP (A2) / 512 x EP (A3), tp_world_size 0 (A2) / 1 (A3), quant_mode 0 (not passed), no x_active_mask.

Tokens per call: FusedMoE does not chunk (layer.py:771-776), so x holds every token of the step on this rank's DP
group: a prefill step up to max_num_batched_tokens, a decode step up to max_num_seqs x (1 + speculative tokens).
"""
from __future__ import annotations

from moecfg.frameworks import Note, OpCall
from moecfg.frameworks.values import integer
from moecfg.frameworks.vllm_ascend.cli import Arg
from moecfg.frameworks.vllm_ascend.tokens import spans
from moecfg.frameworks.vllm_mindspore import parallel as P
from moecfg.frameworks.vllm_mindspore import rules as R
from moecfg.frameworks.vllm_mindspore.releases import CUSTOM_OP, OP_DEFAULTS, Release

KNOBS = {
    "global_bs": "fixed by vllm-mindspore: 256 x EP on A2, 512 x EP on A3",
    "ep_world_size": "--tensor-parallel-size x --data-parallel-size, or additional_config expert_parallel",
}


def phase_tokens(mnbt: Arg, mns: Arg, spec: Arg) -> list[tuple[str, Arg]]:
    """(role, tokens per rank) per phase: one `serve` call when prefill and decode send the same count."""
    if mnbt.value is None:
        return []
    prefill = Arg(mnbt.value, mnbt.spans, f"{mnbt.said('max_num_batched_tokens')}: a prefill step sends all its "
                  "tokens at once (FusedMoE does not chunk)")
    if mns.value is None or spec.value is None:
        return [("prefill", prefill)]
    per_step = mns.value * (1 + spec.value)
    decode_n = min(per_step, mnbt.value)
    if decode_n == mnbt.value:
        return [("serve", prefill)]
    spec_text = f" x (1 + {spec.value} speculative)" if spec.value else ""
    decode = Arg(decode_n, spans(mns, spec), f"{mns.said('max_num_seqs')}{spec_text}: a decode step")
    return [("prefill", prefill), ("decode", decode)]


def mc2_call(role: str, bs: Arg, ep: Arg, product: str, dims, model: Arg, env: dict, rel: Release) -> OpCall:
    call = OpCall(role, "ascend", "dispatch_combine_v2", {"op": "dispatch_combine_v2"}, knobs=dict(KNOBS))
    call.knobs["bs"] = "--max-num-batched-tokens" if role != "decode" else "--max-num-seqs"

    def put(name: str, value, text: str, src=()) -> None:
        call.arguments[name] = value
        call.derivation[name] = f"{value} <- {text}"
        if src:
            call.sources[name] = tuple(src)

    call.derivation["op"] = (f"dispatch_combine_v2 <- pure EP ({rel.at('pure_ep')}): ms_custom_ops."
                             f"moe_distribute_dispatch_v3 / combine_v3 (without ms_custom_ops installed MindSpore's "
                             f"MoeDistributeDispatch runs instead, {rel.cite['custom_ops']})")
    put("api", "aclnn_v3", f"aclnnMoeDistributeDispatchV3 / CombineV3, the dispatch_v2 kernel ({CUSTOM_OP})")
    put("product", product, "settings")
    put("bs", bs.value, bs.text, bs.spans)
    put("ep_world_size", ep.value, f"{ep.text} ({rel.at('ep_size')})", ep.spans)
    if dims is not None:
        call.derivation["model"] = dims.how
        put("h", dims.hidden, f"hidden of {dims.name}", model.spans)
        put("k", dims.topk, f"top-k of {dims.name}", model.spans)
        put("moe_expert_num", dims.num_experts, f"{dims.num_experts} experts of {dims.name} (no redundant experts: "
            "global_num_experts = num_experts, layer.py:280)", model.spans)
    gbs = P.global_bs(product, ep.value)
    put("global_bs", gbs, f"{P.MAX_BS[product]} x EP {ep.value} on {product}, whatever the batch "
        f"({rel.cite['pure_ep']}): the window is sized for {P.MAX_BS[product]} tokens per rank", ep.spans)
    put("tp_world_size", 0 if product == "A2" else 1, f"0 if is_910b() else 1 ({rel.cite['pure_ep']})")
    put("quant_mode", 0, f"not passed: the op's default 0 ({OP_DEFAULTS})")
    if env:
        call.arguments["env"] = {}
        for name, entry in env.items():
            call.arguments["env"][name] = integer(entry.value)  # build._env keeps only ints
            call.derivation[f"env.{name}"] = f"{entry.value} <- {name}={entry.value} (the EP group's HCCL buffer)"
            call.sources[f"env.{name}"] = (entry.span,)
    return call


def fixed_bs_note(call: OpCall, tokens: Arg, product: str, at) -> Note | None:
    """MC922 when this call's tokens per rank exceed the fixed max_bs (the op's MC103 / MC401 are the same cause)."""
    bs, cap = call.arguments.get("bs"), P.MAX_BS[product]
    if bs is None or bs <= cap:
        return None
    knob = call.knobs["bs"]
    return Note(R.FIXED_GLOBAL_BS.code, f"vllm-mindspore pure EP on {product}: a {call.role} step sends up to {bs} "
                f"tokens per rank ({tokens.text.partition(': a ')[0]}) to a dispatch whose global_bs is fixed "
                f"at {cap} x EP {call.arguments['ep_world_size']} = {call.arguments['global_bs']}: the op refuses bs > "
                f"{cap} at the first such step (the profile run at start-up sends one); lower {knob} to {cap}",
                at, covers=("MC103", "MC401"))


def split_note(experts: int, ep: Arg, dims_name: str, at) -> Note | None:
    """MC921 when pure EP's experts do not divide over the EP ranks (the op's MC201, in the launch's knobs)."""
    if experts % ep.value == 0:
        return None
    each, last = P.experts_per_rank(experts, ep.value)
    near = " or ".join(str(d) for d in P.divisors_near(experts, ep.value))
    return Note(R.EXPERT_SPLIT.code, f"vllm-mindspore pure EP splits the {experts} experts of {dims_name} over EP "
                f"{ep.value} ({ep.text}) as {each} per rank and {last} on the last rank, but the MC2 dispatch needs "
                f"moe_expert_num divisible by ep_world_size ({experts} % {ep.value} = {experts % ep.value}): it fails "
                f"at the first forward; make tp x dp (or additional_config expert_parallel) {near}", at,
                covers=("MC201",))
