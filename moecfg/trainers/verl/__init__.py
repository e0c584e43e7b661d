"""verl (volcengine/verl): `python3 -m verl.trainer.main_ppo` (or a recipe's `main_dapo`) with Hydra overrides,
alone or inside `ray job submit ... -- python3 -m verl...`: one launch of a train phase (Megatron-LM when
actor_rollout_ref.actor.strategy is megatron) and a rollout phase (actor_rollout_ref.rollout.name: vLLM or SGLang).

Read at volcengine/verl@b178a3c (v0.7.0-125): verl/trainer/main_ppo.py:35 (@hydra.main, config_name ppo_trainer),
the defaults of verl/trainer/config/_generated_ppo_{,megatron_}trainer.yaml (defaults.json, tools/gen_verl_defaults.py),
verl/workers/config/rollout.py:257-266 (the rollout checks), verl/workers/rollout/vllm_rollout/vllm_async_server.py:279-325
and verl/workers/rollout/sglang_rollout/async_sglang_server.py:256-271 (the engine arguments verl builds). calls.py
writes each engine's command line.
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "verl"
VERSIONS = ("0.5.0", "0.6.0", "0.6.1", "0.7.0")  # releases/defaults.json: those whose defaults moecfg reads
# `-m verl.trainer.main_ppo`, a recipe's `-m recipe.dapo.main_dapo`, or the file itself
# PPO-style entries reading `actor_rollout_ref.*` (verl@b178a3c: verl/trainer/main_ppo.py, main_generation_server.py,
# verl/experimental/{one_step_off_policy,transfer_queue,vla}/main_ppo.py, one_step_off_policy/async_main_ppo.py,
# fully_async_policy/fully_async_main.py, the recipes' main_<name>.py); not the SFT trainers nor main_generation
_MODULE = re.compile(r"^(?:verl\.trainer\.main_ppo|verl\.trainer\.main_generation_server|"
                     r"verl\.experimental\.\w+\.(?:main_ppo|async_main_ppo|fully_async_main)|"
                     r"(?:verl\.)?recipe\.(?:\w+\.){1,4}(?:main_\w+|\w+_main))$")
_FILE = re.compile(r"(?:^|/)(?:verl/trainer/main_ppo|recipe/(?:\w+/){1,4}main_\w+)\.py$")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
# An entry of the recipe's own folder, run from it: verl-project/verl-recipe@48ea0a7 gkd/megatron/test_qwen.sh:44
# (`ray job submit --working-dir "${WORKING_DIR}" -- python3 -m main_gkd`, gkd/megatron/main_gkd.py), rep_exp's
# `-m rep_exp.main_rep_exp`, alibaba/Pai-Megatron-Patch@a098ca5 examples/qwen3/run_mcore_qwen3_verl.sh:34
# (`python verl_entrypoint.py`, a copy of verl's main_ppo): verl only when verl's own keys follow it
_LOCAL_MODULE = re.compile(r"^(?:\w+\.){0,4}(?:main_\w+|\w+_main)$")
_LOCAL_FILE = re.compile(r"^[\w./-]+\.py$")
_VERL_KEY = re.compile(r"^\+{0,2}actor_rollout_ref\.\w")


def command_start(launch: Launch) -> int | None:
    """Index of the first override after the verl entry point, or None."""
    words = launch.words()
    for i, w in enumerate(words):
        if not w or not _PYTHON.match(os.path.basename(w)):
            continue
        j = i + 1
        while j < len(words) and words[j] and words[j].startswith("-") and words[j] != "-m":
            j += 1  # python3 -u -m ...
        if j + 1 < len(words) and words[j] == "-m" and _MODULE.match(words[j + 1] or ""):
            return j + 2
        if j < len(words) and _FILE.search(words[j] or ""):
            return j + 1
        local = j + 2 if j + 1 < len(words) and words[j] == "-m" and _LOCAL_MODULE.match(words[j + 1] or "") else \
            j + 1 if j < len(words) and _LOCAL_FILE.match(words[j] or "") else None
        if local is not None and any(_VERL_KEY.match(x or "") for x in words[local:]):
            return local
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.verl.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    start = command_start(launch)
    entry = launch.argv[start - 1].value or ""
    # main_ppo's own config is ppo_trainer (verl/trainer/main_ppo.py:35); a recipe's main reads its recipe's config
    # (recipe/<name>/config/, not read by moecfg) unless --config-name names one of verl's
    own = "ppo_trainer" if entry.startswith(("verl.trainer.", "verl.experimental.transfer_queue.")) or \
        entry.endswith("verl/trainer/main_ppo.py") else None  # experimental/transfer_queue/main_ppo.py:36
    derive_phases(launch, ctx, out, start, own)
    return out
