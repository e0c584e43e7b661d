"""SkyRL (NovaSky-AI/SkyRL): `python -m skyrl.train.entrypoints.main_base` (or an example's `-m examples.train.<x>.
main_<y>` built on it) with Hydra-style overrides: one launch of a Megatron-LM train phase (trainer.strategy=megatron,
trainer.policy.megatron_config.*) and a vLLM rollout phase (generator.inference_engine.*).

Read at NovaSky-AI/SkyRL@a956457 (skyrl 0.3.0): skyrl/train/config/config.py (the defaults: dataclasses),
skyrl/backends/skyrl_train/workers/megatron/megatron_worker.py:466-493 (the Megatron provider),
skyrl/backends/skyrl_train/inference_servers/utils.py:85-115 (the vLLM server arguments),
skyrl/train/utils/utils.py:80-95, :545-560 (its checks).
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "skyrl"
VERSIONS = ("0.3.0",)
_MODULE = re.compile(r"^(?:skyrl[._]train\.entrypoints\.main_\w+|examples\.train\.[\w.]+\.main_\w+)$")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")


def command_start(launch: Launch) -> int | None:
    """Index of the first override after the SkyRL entry module, or None. An example's module only with a SkyRL
    key (trainer.* / generator.*) after it."""
    words = launch.words()
    for i, w in enumerate(words):
        if w != "-m" or i + 1 >= len(words) or not _MODULE.match(words[i + 1] or ""):
            continue
        if not any(_PYTHON.match(os.path.basename(p or "")) or p in ("uv", "run") for p in words[:i]):
            continue  # `python -m`, `uv run [--isolated --extra x --env-file f ...] -m`
        if (words[i + 1] or "").startswith("examples.") and not any(
                (x or "").lstrip("+").startswith(("trainer.", "generator.")) for x in words[i + 2:]):
            continue
        return i + 2
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.skyrl.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    derive_phases(launch, ctx, out, command_start(launch))
    return out
