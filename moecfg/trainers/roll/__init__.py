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

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "roll"
VERSIONS = ("0.3.0",)
COMMAND = "roll"  # sources/recipes/roll.py
_ENTRY = re.compile(r"(?:^|/)start_\w+_pipeline\.py$")


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return _config(launch) or _script(launch) is not None


def _config(launch: Launch) -> bool:
    return bool(launch.argv) and launch.argv[0].value == COMMAND and launch.context == "yaml"


def _script(launch: Launch) -> int | None:
    words = launch.words()
    return next((i for i, w in enumerate(words[:3]) if w and _ENTRY.search(w) and i > 0 and
                 os.path.basename(words[i - 1] or "").startswith("python")), None)


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers import phases
    from moecfg.trainers.roll.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    if not _config(launch):
        words = launch.words()
        i = words.index("--config_name") + 1 if "--config_name" in words else None
        named = words[i] if i is not None and i < len(words) else None
        phases.not_derived(out, launch, f"the settings are in the config {named or '(not known statically)'}.yaml "
                           "under --config_path: checked as its own file")
        return out
    derive_phases(launch, ctx, out)
    return out
