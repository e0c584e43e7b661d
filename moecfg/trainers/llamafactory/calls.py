"""A LLaMA-Factory config -> the Megatron-LM command line of its train.

- the Megatron keys of the config are the fields of Megatron's TransformerConfig of the same name, through
  mcore_adapter's TrainingArguments with USE_MCA=1 (alibaba/ROLL@8eb27cc mcore_adapter/src/mcore_adapter/
  training_args.py:27-160, "Arguments are passed to TransformerConfig"; a size not written is None, the checkpoint's,
  :27-57; the dispatcher not written is allgather, :154-155), or MegatronBridgeArguments with USE_MEGATRON_BRIDGE=1
  (hiyouga/LLaMA-Factory@ff6d4d12e src/llamafactory/hparams/megatron_bridge_args.py:32-99; the dispatcher not written
  is the provider's, :96); which one is the launch's environment, not the file: the dispatcher not written is not
  known; the parallel sizes not written are Megatron's defaults (1; expert-TP = TP);
- the model: model_name_or_path (its Hugging Face config);
- the world: torchrun's NPROC_PER_NODE x NNODES (hiyouga/LLaMA-Factory@ff6d4d12e src/llamafactory/launcher.py:63-65),
  not in the config: not known.
A v1 config's `dist_config` (fsdpturbo with ep_size) is LLaMA-Factory's own expert parallelism
(hiyouga/LLaMA-Factory@ff6d4d12e src/llamafactory/v1/plugins/trainer_plugins/distributed/fsdpturbo.py:57-79, 374):
listed, not derived.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.models import resolve_model, unresolved_reason
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch
from moecfg.trainers import phases
from moecfg.trainers.llamafactory import releases
from moecfg.trainers.phases import EngineArgs, Key
from moecfg.trainers.megatron_keys import FIELD_FLAGS as _FIELD_FLAGS, TAKES_VALUE as _MEGATRON

L = releases.LLAMAFACTORY
_EP = "--expert-model-parallel-size"


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation) -> None:
    k = phases.config_keys(launch)
    out.version = releases.VERSION
    out.notes.append(Note("MC040", f"LLaMA-Factory version not given: read as LLaMA-Factory {releases.VERSION} ({L}, "
                          "the newest read)", launch.span))
    if "dist_config.name" in k:
        name, ep = k["dist_config.name"], k.get("dist_config.ep_size")
        own = f", dist_config.ep_size {ep.value}: LLaMA-Factory's own expert parallelism ({L} src/llamafactory/v1/" \
            "plugins/trainer_plugins/distributed/fsdpturbo.py:57-79)" if ep is not None else ""
        phases.not_derived(out, launch, f"train engine not derived: LLaMA-Factory v1 dist_config.name = "
                           f"{name.value or 'not known statically'}{own}")
        return
    mg = EngineArgs(("pretrain_gpt.py",), launch.span)
    for field, key in sorted(k.items()):
        flag = _FIELD_FLAGS.get(field, "--" + field.replace("_", "-"))
        if "." in field or flag not in _MEGATRON:
            continue
        if _MEGATRON[flag]:
            if (key.value or "").lower() not in ("null", "none"):
                mg.flag(flag, key)
        elif (key.value or "").lower() == "true":
            mg.switch(flag, key)
    if "--moe-token-dispatcher-type" not in mg.named:
        mg.flag("--moe-token-dispatcher-type", Key("moe_token_dispatcher_type (not written: mcore_adapter's allgather "
                                                   "with USE_MCA=1, the provider's with USE_MEGATRON_BRIDGE=1)", None,
                                                   launch.span))
    model = k.get("model_name_or_path") or Key("model_name_or_path", None, launch.span)
    dims = resolve_model(model.value, ctx)
    ep = integer(k["expert_model_parallel_size"].value) if "expert_model_parallel_size" in k else 1
    if dims is None:
        if ep is None or ep > 1:
            out.notes.append(Note("MC042", f"{model.name}: {unresolved_reason(model.value, ctx)}", model.span))
        else:
            phases.not_derived(out, launch, "train engine not derived: the model at model_name_or_path is not known "
                               "to moecfg and no expert parallelism is set")
        return
    if not dims.num_experts:
        phases.not_derived(out, launch, f"train engine not derived: {model.value} has no routed experts")
        return
    for flag, value in (("--num-experts", dims.num_experts), ("--hidden-size", dims.hidden),
                        ("--moe-router-topk", dims.topk)):
        if flag not in mg.named:
            mg.flag(flag, Key(f"{model.name} ({dims.how})", None, model.span), str(value))
    phases.run_phase(out, "megatron", mg, mg.launch(launch), ctx, "train",
                     f"Megatron-LM (LLaMA-Factory with USE_MCA=1 or USE_MEGATRON_BRIDGE=1, {L} src/llamafactory/"
                     "hparams/parser.py:397-445)")
