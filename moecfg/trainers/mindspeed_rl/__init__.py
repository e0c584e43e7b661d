"""MindSpeed-RL (Ascend/MindSpeed-RL): a training config (configs/*.yaml, read by sources/recipes/mindspeed_rl.py as
`mindspeed-rl <section>.<key>=<value> ...`) is one launch of a MindSpeed train phase (the actor) and a vllm-ascend
rollout phase; the shell launch `python cli/train_grpo.py --config-name X` names the config, read as its own file.

Read at Ascend/MindSpeed-RL@05a90d7 (after v2.3.0): cli/train_grpo.py:251-254 (the actor's config), :703-712 (the Ray
runtime environment: VLLM_DP_SIZE, HCCL_BUFFSIZE), mindspeed_rl/models/rollout/vllm_engine.py:222-250 (the vLLM
engine), mindspeed_rl/models/rollout/vllm_adapter/vllm_parallel_state.py:259-285 (the EP / MC2 group).
"""
from __future__ import annotations

import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch
from moecfg.trainers import config_launch as C

NAME = "mindspeed-rl"
VERSIONS = ("2.3.0",)
COMMAND = "mindspeed-rl"  # sources/recipes/mindspeed_rl.py
_ENTRY = re.compile(r"(?:^|/)cli/train_(?:grpo|dapo|ppo|dpo)\w*\.py$")


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return C.is_config(launch, COMMAND) or C.entry_script(launch, _ENTRY) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.mindspeed_rl.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    if not C.is_config(launch, COMMAND):
        C.only_named(out, launch, C.named_config(launch, "--config-name"), " under configs/ (configs/*.yaml)")
        return out
    derive_phases(launch, ctx, out)
    return out
