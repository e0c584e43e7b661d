"""A MindSpeed-MM FSDP2 config -> its expert parallelism, the checks MindSpeed-MM runs on it, its dispatch listed.

Ascend/MindSpeed-MM@57069cd mindspeed_mm/fsdp/params/parallel_args.py: defaults expert_parallel_size 1 (:82-85),
tensor_parallel_size 1 (:72-75), ep_plan.dispatcher alltoall (:49), ep_plan.use_npu_fused_ops true (:48); EP applies
only with ep_plan.apply_modules (torch_parallelize.py:32).
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch
from moecfg.trainers import phases
from moecfg.trainers.mindspeed_mm import releases, rules
from moecfg.trainers.phases import Key

MM = releases.MM
_P = "mindspeed_mm/fsdp/params/parallel_args.py"
_DEFAULTS = {"parallel.expert_parallel_size": ("1", f"{_P}:82-85"),
             "parallel.tensor_parallel_size": ("1", f"{_P}:72-75"),
             "parallel.ep_plan.dispatcher": ("alltoall", f"{_P}:49"),
             "parallel.ep_plan.use_npu_fused_ops": ("true", f"{_P}:48")}
_OPS = {"alltoall": "torch all_to_all_single over the EP group (NCCL-style HCCL collectives)",
        "allgather": "all-gather over the EP group",
        "mc2": "torch_npu npu_alltoallv_gmm / npu_gmm_alltoallv (fused all-to-allv + grouped matmul, "
               "mindspeed_mm/fsdp/ops/moe_ops/gemm_mc2.py)"}


def _keys(launch: Launch) -> dict[str, Key]:
    out = {}
    for w in launch.argv[1:]:
        if w.value and "=" in w.value:
            name, _, value = w.value.partition("=")
            out[name] = Key(name, known_value(value), w.span)
    return out


def _get(keys: dict[str, Key], name: str, launch: Launch) -> Key:
    if name in keys:
        return keys[name]
    value, where = _DEFAULTS[name]
    return Key(f"{name} {value} (MindSpeed-MM's default, {MM} {where})", value, launch.span)


def derive_train(launch: Launch, ctx: LaunchContext, out: Derivation) -> None:
    keys = _keys(launch)
    tp = _get(keys, "parallel.tensor_parallel_size", launch)
    if integer(tp.value) not in (None, 1):  # a null / text value fails pydantic's int first: not this check
        out.notes.append(Note(rules.TP_UNSUPPORTED.code, f"{tp.name} {tp.value}: MindSpeed-MM's FSDP2 trainer raises "
                              f"ValueError ({MM} {_P}:149-150); set it to 1", tp.span))
        return
    ep = _get(keys, "parallel.expert_parallel_size", launch)
    dispatcher = _get(keys, "parallel.ep_plan.dispatcher", launch)
    fused = _get(keys, "parallel.ep_plan.use_npu_fused_ops", launch)
    applied = any(k.startswith("parallel.ep_plan.apply_modules") and v.value not in (None, "", "null")
                  for k, v in keys.items())
    e = integer(ep.value)
    active = applied and (e is None or e > 1)
    if active and dispatcher.value == "mc2" and (fused.value or "").lower() == "false":
        out.notes.append(Note(rules.MC2_NEEDS_FUSED.code, f"{dispatcher.name} mc2 with {fused.name} false: "
                              f"MindSpeed-MM raises ValueError in the first MoE layer ({MM} mindspeed_mm/fsdp/"
                              "distributed/expert_parallel/ep_dispatcher.py:319-350); set use_npu_fused_ops: true",
                              fused.span))
        return
    if active:
        op = _OPS.get(dispatcher.value or "", "a dispatcher not known statically")
        phases.not_derived(out, launch, "expert dispatch not derived: MindSpeed-MM's own EP at "
                           f"{ep.name.split(' ')[0]} "
                           f"{ep.value or '(not known statically)'}, dispatcher {dispatcher.value or '?'}: {op}")
        why = "MindSpeed-MM's expert dispatch is not derived by moecfg"
    else:
        why = "no expert parallelism (expert_parallel_size 1 or no ep_plan.apply_modules): no expert all-to-all"
    out.calls.append(OpCall("train", "none", None, {"engine": "MindSpeed-MM FSDP2", "op_call": f"not derived ({why})"},
                            {"engine": f"MindSpeed-MM FSDP2 <- {MM}",
                             "expert_parallel_size": f"{ep.value} <- {ep.name}",
                             "dispatcher": f"{dispatcher.value} <- {dispatcher.name}"}, why_none=why, quiet=True))
