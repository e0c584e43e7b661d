"""A MindSpeed-MM FSDP2 config -> its expert parallelism, the checks MindSpeed-MM and its mc2 ops run on it.

Ascend/MindSpeed-MM@57069cd mindspeed_mm/fsdp/params/parallel_args.py: defaults expert_parallel_size 1 (:82-85),
tensor_parallel_size 1 (:72-75), ep_plan.dispatcher alltoall (:49), ep_plan.use_npu_fused_ops true (:48); EP applies
only with ep_plan.apply_modules (torch_parallelize.py:32).
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
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
# the dispatchers that run plain HCCL collectives through torch.distributed (ep_dispatcher.py ep_forward /
# ep_allgather_forward, expert_parallel/comm.py): nothing with a buffer formula
_OPS = {"alltoall": "torch.distributed all-to-all (HCCL collective)",
        "allgather": "torch.distributed all-gather / reduce-scatter (HCCL collectives)"}
_MC2 = "mindspeed_mm/fsdp/ops/moe_ops/gemm_mc2.py"


def _mc2(out: Derivation, ctx: LaunchContext, ep: Key, e: int | None, dispatcher: Key, launch: Launch) -> str | None:
    """ep_plan.dispatcher mc2: each MoE layer runs torch_npu.npu_alltoallv_gmm (dispatch + fc1) and npu_gmm_alltoallv
    (fc2 + combine) with epWorldSize = the EP group size (ep_dispatcher.py:352-384, gemm_mc2.py:11-21,56-66). Their
    host checks on the EP size are derived here (MC723 / MC724); the others need the model's expert count and hidden
    size (its HF config, not read), and they check no HCCL buffer size: the rest is listed as not derived."""
    ops = f"torch_npu npu_alltoallv_gmm / npu_gmm_alltoallv ({MM} {_MC2})"
    product = ctx.product if ctx.product in ("A2", "A3") else None
    said = f"{ep.name.split(' ')[0]} {ep.value}"
    if product == "A2":
        source = ctx.product_source or "--product"
        out.notes.append(Note(rules.MC2_NO_A2.code, f"{dispatcher.name} mc2 on Atlas A2 ({source}): {ops} have no "
                              "Atlas A2 kernel (AlltoAllvGroupedMatMul / "
                              "GroupedMatMulAlltoAllv are built for ascend910_93 and ascend950 only, "
                              "cannmirror/ops-transformer v8.5.0-v9.1.0); use the alltoall dispatcher", dispatcher.span))
        return None
    allowed = rules.ATLAS_EP_WORLD_SIZES if product == "A3" else rules.ANY_EP_WORLD_SIZES
    if e is not None and e not in allowed:
        where = "on Atlas A3" if product else "on any product (Atlas A3: 8-128, Ascend 950: 2-64)"
        out.notes.append(Note(rules.MC2_EP_WORLD_SIZE.code, f"{dispatcher.name} mc2 with {said}: {ops} are called "
                              f"with epWorldSize {e}, which their tiling refuses {where}: epWorldSize must be one of "
                              f"{', '.join(map(str, allowed))} (cannmirror/ops-transformer v8.5.0-v9.1.0); set "
                              f"expert_parallel_size to one of them or use the alltoall dispatcher", ep.span))
        return None
    phases.not_derived(out, launch, f"expert dispatch not derived: {dispatcher.name.split(' ')[0]} mc2 at {said}: "
                       f"{ops}; their limits on the experts per rank (48) and the hidden size (< 65536) need the "
                       "model's config (not read), and they check no HCCL buffer size")
    return "MindSpeed-MM's mc2 ops are not modelled by moecfg (only their EP size is checked)"


def _get(keys: dict[str, Key], name: str, launch: Launch) -> Key:
    if name in keys:
        return keys[name]
    value, where = _DEFAULTS[name]
    return Key(f"{name} {value} (MindSpeed-MM's default, {MM} {where})", value, launch.span)


def derive_train(launch: Launch, ctx: LaunchContext, out: Derivation) -> None:
    keys = phases.config_keys(launch)
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
    listed = active and dispatcher.value not in _OPS
    if active and dispatcher.value == "mc2":
        why = _mc2(out, ctx, ep, e, dispatcher, launch)
        if why is None:
            return
    elif active and dispatcher.value in _OPS:
        why = (f"{dispatcher.name.split(' ')[0]} {dispatcher.value}: {_OPS[dispatcher.value]} over the "
               f"{ep.value or '(not known statically)'} EP ranks, no MC2 op and no buffer moecfg sizes")
    elif active:
        phases.not_derived(out, launch, "expert dispatch not derived: MindSpeed-MM's own EP at "
                           f"{ep.name.split(' ')[0]} {ep.value or '(not known statically)'}, dispatcher "
                           f"{dispatcher.value or '(not known statically)'}")
        why = "MindSpeed-MM's expert dispatch is not derived by moecfg"
    else:
        why = "no expert parallelism (expert_parallel_size 1 or no ep_plan.apply_modules): no expert all-to-all"
    out.calls.append(OpCall("train", "none", None, {"engine": "MindSpeed-MM FSDP2",
                                                       "op_call": f"{'not derived' if listed else 'none'} ({why})"},
                            {"engine": f"MindSpeed-MM FSDP2 <- {MM}",
                             "expert_parallel_size": f"{ep.value} <- {ep.name}",
                             "dispatcher": f"{dispatcher.value} <- {dispatcher.name}"}, why_none=why, quiet=True))


def derive_legacy(launch: Launch, out: Derivation) -> None:
    """The FSDP2 config of MindSpeed-MM's Megatron-based trainer (Fsdp2Config, mindspeed_mm/models/transformers/
    base_model.py:247-249: expert_parallel_size default 1): expert_parallel_size > 1 builds an EP mesh
    (create_ep_device_mesh, :376-395) whose dispatch is the model code's own: listed as not derived."""
    keys = phases.config_keys(launch)
    ep = keys.get("expert_parallel_size") or Key("expert_parallel_size 1 (Fsdp2Config's default, "
                                                 f"{MM} mindspeed_mm/models/transformers/base_model.py:247)", "1",
                                                 launch.span)
    e = integer(ep.value)
    if e is not None and e <= 1:
        why = f"no expert parallelism ({ep.name.split(' ')[0]} {ep.value}): no expert all-to-all"
    else:
        phases.not_derived(out, launch, f"expert dispatch not derived: {ep.name} "
                           f"{ep.value or '(not known statically)'} in the FSDP2 config of MindSpeed-MM's "
                           "Megatron-based trainer: the model code's own dispatch over its EP mesh")
        why = "MindSpeed-MM's expert dispatch is not derived by moecfg"
    out.calls.append(OpCall("train", "none", None, {"engine": "MindSpeed-MM FSDP2 (pretrain_transformers.py)",
                                                    "op_call": f"none ({why})"},
                            {"engine": f"MindSpeed-MM FSDP2 config <- {MM}",
                             "expert_parallel_size": f"{ep.value} <- {ep.name}"}, why_none=why, quiet=True))
