"""LLaMA-Factory (hiyouga/LLaMA-Factory): a training config read by sources/recipes/llamafactory.py as
`llamafactory <key>=<value> ...`: a Megatron one (USE_MCA=1 through mcore_adapter, or USE_MEGATRON_BRIDGE=1) is one
launch of a Megatron-LM train phase; a v1 one (USE_V1=1, `dist_config: {name: fsdpturbo, ep_size: N}`) runs
LLaMA-Factory's own FSDP expert parallelism, listed as not derived. The shell launch `[USE_MCA=1] llamafactory-cli
train <config>.yaml` names its config, checked as its own file.

Read at hiyouga/LLaMA-Factory@ff6d4d12e: src/llamafactory/hparams/parser.py:73-90, 336-349, 397-445 (which arguments
parse the config), src/llamafactory/launcher.py:56-66 (torchrun and its world), src/llamafactory/hparams/
megatron_bridge_args.py; mcore_adapter at alibaba/ROLL@8eb27cc mcore_adapter/src/mcore_adapter/training_args.py
(DistributingParallelArguments, MegatronArguments: fields of Megatron's TransformerConfig).
"""
from __future__ import annotations

import os

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch
from moecfg.trainers import config_launch as C

NAME = "llamafactory"
VERSIONS = ("0.9.6.dev0",)
COMMAND = "llamafactory"  # sources/recipes/llamafactory.py


_ENGINES = ("USE_MCA", "USE_MEGATRON_BRIDGE", "USE_V1")  # without one: Hugging Face's Trainer, no engine moecfg reads


def train_config(launch: Launch) -> int | None:
    """Index of the config word of `USE_MCA=1 llamafactory-cli train <config>` (USE_MEGATRON_BRIDGE, USE_V1), or
    None."""
    words = launch.words()
    if not any(getattr(launch.env.get(v), "value", None) in ("1", "true", "True") for v in _ENGINES):
        return None
    for i, w in enumerate(words[:-2]):
        if w and os.path.basename(w) in ("llamafactory-cli", "lmf") and words[i + 1] == "train":
            return i + 2
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return C.is_config(launch, COMMAND) or train_config(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.llamafactory.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    if not C.is_config(launch, COMMAND):
        i = train_config(launch)
        named = launch.words()[i]
        if named and named.endswith((".yaml", ".yml", ".json")):
            C.only_named(out, launch, named, "")
        else:  # `llamafactory-cli train --model_name_or_path ... --expert_model_parallel_size ...`: flags, not read
            from moecfg.trainers import phases

            phases.not_derived(out, launch, "train engine not derived: LLaMA-Factory arguments on the command line "
                               "are not read (a config file is)")
        return out
    derive_phases(launch, ctx, out)
    return out
