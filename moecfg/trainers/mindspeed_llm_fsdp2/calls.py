"""A MindSpeed-LLM FSDP2 config -> its expert parallelism and dispatcher.

Ascend/MindSpeed-LLM@c77308a mindspeed_llm/fsdp2/utils/arguments.py: defaults ep_size 1 (:382), ep_dispatcher eager
(:431-439); the dispatchers: expert_parallel.py:127-142.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, OpCall
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch
from moecfg.trainers import phases
from moecfg.trainers.phases import Key

LLM = "Ascend/MindSpeed-LLM@c77308a"
_A = "mindspeed_llm/fsdp2/utils/arguments.py"
_D = "mindspeed_llm/fsdp2/distributed/expert_parallel"
_DEFAULTS = {"parallel.ep_size": ("1", f"{_A}:382"), "parallel.ep_dispatcher": ("eager", f"{_A}:431-439")}
_TORCH = {"eager": "torch all_to_all_single over the EP group (HCCL collective)",
          "fused": "torch all_to_all_single over the EP group (HCCL collective) around fused permute / grouped matmul"}


def _get(keys: dict[str, Key], name: str, launch: Launch) -> Key:
    if name in keys:
        return keys[name]
    value, where = _DEFAULTS[name]
    return Key(f"{name} {value} (MindSpeed-LLM's default, {LLM} {where})", value, launch.span, default=True)


def derive_train(launch: Launch, ctx: LaunchContext, out: Derivation) -> None:
    keys = phases.config_keys(launch)
    ep = _get(keys, "parallel.ep_size", launch)
    dispatcher = _get(keys, "parallel.ep_dispatcher", launch)
    e = integer(ep.value)
    said = f"{ep.name.split(' ')[0]} {ep.value or '(not known statically)'}"
    listed = False
    if e is not None and e <= 1:
        why = f"no expert parallelism ({said}): no expert all-to-all across ranks"
    elif dispatcher.value in _TORCH:
        why = (f"{dispatcher.name.split(' ')[0]} {dispatcher.value}: {_TORCH[dispatcher.value]} "
               f"({LLM} {_D}/dispatcher.py:138-181), no MC2 op and no buffer moecfg sizes")
    else:
        listed = True
        what = ("fsdp_turbo's all2all_grouped_matmul / grouped_matmul_all2all (fused all-to-allv + grouped matmul, "
                f"{LLM} {_D}/dispatcher_mc2.py; fsdp_turbo's code is not read by moecfg)"
                if dispatcher.value == "mc2" else "a dispatcher not known statically")
        phases.not_derived(out, launch, f"expert dispatch not derived: MindSpeed-LLM FSDP2 EP at {said}, "
                           f"{dispatcher.name.split(' ')[0]} {dispatcher.value or '?'}: {what}")
        why = "MindSpeed-LLM's expert dispatch is not derived by moecfg"
    out.calls.append(OpCall("train", "none", None, {"engine": "MindSpeed-LLM FSDP2",
                                                    "op_call": f"{'not derived' if listed else 'none'} ({why})"},
                            {"engine": f"MindSpeed-LLM FSDP2 <- {LLM}", "ep_size": f"{ep.value} <- {ep.name}",
                             "ep_dispatcher": f"{dispatcher.value} <- {dispatcher.name}"}, why_none=why, quiet=True))
