"""ROLL (alibaba/ROLL): a pipeline config (examples/*/*.yaml, read by sources/recipes/roll.py as
`roll <worker>.<key>=<value> ...`) is one launch of a Megatron-LM train phase (actor_train, strategy megatron_train),
its reference twin (megatron_infer) and a vLLM or SGLang rollout phase (actor_infer); the shell launch
`python examples/start_<pipeline>_pipeline.py --config_path <dir> --config_name <it>` names the config, read as its
own file.

Read at alibaba/ROLL@8eb27cc: examples/start_rlvr_pipeline.py:22-28, roll/configs/worker_config.py:274-316 (GPUs per
worker, device_mapping), roll/configs/base_config.py:368-390 (the checks on the pipeline), roll/distributed/strategy/
{megatron,vllm,sglang}_strategy.py (what each engine receives).
"""
from __future__ import annotations

import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch
from moecfg.trainers import config_launch as C

NAME = "roll"
VERSIONS = ("0.3.0",)
COMMAND = "roll"  # sources/recipes/roll.py
_ENTRY = re.compile(r"(?:^|/)start_\w+_pipeline\.py$")


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return C.is_config(launch, COMMAND) or C.entry_script(launch, _ENTRY) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.roll.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    if not C.is_config(launch, COMMAND):
        named = C.named_config(launch, "--config_name")
        C.only_named(out, launch, f"{named}.yaml" if named else None, " under --config_path")
        return out
    derive_phases(launch, ctx, out)
    return out
