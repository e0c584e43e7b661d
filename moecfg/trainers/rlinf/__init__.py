"""RLinf (RLinf/RLinf): a config (examples/*/config/**/*.yaml, tests/e2e_tests/*/*.yaml; read by
sources/recipes/rlinf.py as `rlinf <section>.<key>=<value> ...`) is one launch of a Megatron-LM train phase (the actor,
actor.training_backend megatron) and an SGLang or vLLM rollout phase (rollout.rollout_backend); the shell launch
`python ${REPO_PATH}/examples/reasoning/main_grpo.py --config-path <dir> --config-name <it>` names the config, read as
its own file.

Read at RLinf/RLinf@a3816b596: rlinf/config.py (validate_cfg, validate_megatron_cfg, validate_rollout_cfg),
rlinf/utils/initialize.py (Megatron's arguments), rlinf/utils/placement.py (the GPUs of each component),
rlinf/workers/rollout/{sglang/sglang_worker.py,vllm/vllm_worker.py} (what each engine receives).
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch
from moecfg.trainers import config_launch as C

NAME = "rlinf"
VERSIONS = ("0.4.0",)
COMMAND = "rlinf"  # sources/recipes/rlinf.py
# RLinf's Hydra entry scripts that run its Megatron / SGLang / vLLM workers (examples/reasoning/run_main_grpo_math.sh,
# examples/sft/run_vlm_sft.sh, examples/agent/*/run_*.sh)
_ENTRY = re.compile(r"(?:^|/)examples/(?:reasoning/main_grpo|sft/train_vlm_sft|agent/[\w/]+/(?:main_\w+|train))\.py$")


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    if C.is_config(launch, COMMAND):
        return True
    words = launch.words()
    if "--config-name" not in words:
        return False
    for i, w in enumerate(launch.argv[1:3], 1):  # `python ${REPO_PATH}/examples/reasoning/main_grpo.py`: the
        text = w.value if w.value is not None else w.pattern  # script's folder is often not known statically
        if text and _ENTRY.search(text) and os.path.basename(words[i - 1] or "").startswith("python"):
            return True
    return False


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.rlinf.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    if not C.is_config(launch, COMMAND):
        named = C.named_config(launch, "--config-name")
        C.only_named(out, launch, f"{named}.yaml" if named else None, " under --config-path")
        return out
    derive_phases(launch, ctx, out)
    return out
