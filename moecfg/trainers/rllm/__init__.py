"""rLLM (rllm-org/rllm): `python train_x.py rllm/backend=verl model_engine=megatron actor_rollout_ref.... rllm....`
(or `python -m examples.<x>.train_<y> ...`): a user script whose `@hydra.main` composes rLLM's config
(pkg://rllm.trainer.config: unified.yaml -> rllm/backend/verl.yaml -> verl's /ppo_trainer, or agent_ppo_trainer
[_megatron].yaml) and hands it to verl's workers: the `actor_rollout_ref.*`, `trainer.*` overrides are verl's own and
are derived by trainers/verl; the `rllm.*` ones are rLLM's (agent loop, remote runtime: no engine of their own).

Read at rllm-org/rllm@9beb6e0: cookbooks/migrationbench/train_agentcore_migrationbench_verl.py:22 (@hydra.main,
config_path pkg://rllm.trainer.config, config_name unified), rllm/trainer/config/unified.yaml:6-9,
rllm/trainer/config/rllm/backend/verl.yaml:9-11, pyproject.toml:80 (verl==0.8.0). calls.py translates the launch.
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "rllm"
VERSIONS = ("0.3.0.pre",)  # pyproject.toml:7
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_SCRIPT = re.compile(r"^(?:[\w./${}-]*/)?\w+\.py$")
_MODULE = re.compile(r"^(?:examples|cookbooks|rllm)\.[\w.]+$")


def command_start(launch: Launch) -> int | None:
    """Index of the first override after the script (or module) a `python` word runs, when the overrides hold
    verl's `actor_rollout_ref.` keys and an rLLM sign (`rllm/backend=`, an `rllm.` key); None otherwise."""
    words = [w.value if w.value is not None else w.pattern for w in launch.argv]
    for i, w in enumerate(words):
        if not w or not _PYTHON.match(os.path.basename(w)):
            continue
        j = i + 1
        while j < len(words) and words[j] and words[j].startswith("-") and words[j] != "-m":
            j += 1  # python -u
        if j + 1 < len(words) and words[j] == "-m" and _MODULE.match(words[j + 1] or ""):
            start = j + 2
        elif j < len(words) and _SCRIPT.match(words[j] or ""):
            start = j + 1
        else:
            return None
        rest = [(x or "").lstrip("+") for x in words[start:]]
        if any(x.startswith("actor_rollout_ref.") for x in rest) and \
                any(x.startswith(("rllm/backend=", "rllm.")) for x in rest):
            return start
        return None
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.rllm.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    derive_phases(launch, ctx, out, command_start(launch))
    return out
