"""ChatLearn (alibaba/ChatLearn): `python chatlearn/entrypoint.py grpo --config-file <yaml> key=value ...` (or a copy
of that entry, Pai-Megatron-Patch's `python chatlearn_entrypoint.py grpo ...`), and its config file read alone
(sources/recipes/chatlearn.py, the words `chatlearn grpo key=value ...`): one launch of a Megatron-LM train phase
(models.policy_trainer with runtime_args.train_backend megatron) and a vLLM or SGLang rollout phase (models.policy,
runtime_args.rollout_backend).

Read at alibaba/ChatLearn@248875a (the commit Pai-Megatron-Patch@a098ca5 pins in backends/rl/ChatLearn):
chatlearn/entrypoint.py:33-102 (the launch), chatlearn/configs/{megatron_config,policy_config,runtime_config}.py (the
settings and their checks), chatlearn/utils/megatron_utils.py:20-98 (the Megatron model from the HF config),
chatlearn/models/vllm_module.py:110-134 and sglang_module.py:287-307 (what each rollout engine receives).
"""
from __future__ import annotations

import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch
from moecfg.trainers import config_launch as C

NAME = "chatlearn"
VERSIONS = ("248875a",)
COMMAND = "chatlearn"  # sources/recipes/chatlearn.py
# chatlearn/entrypoint.py:33-34 ALGO_REGISTRY: the one algorithm its launcher registers
ALGORITHMS = ("grpo",)
_ENTRY = re.compile(r"(?:^|/)(?:chatlearn/entrypoint|chatlearn_entrypoint)\.py$")


def command_start(launch: Launch) -> int | None:
    """Index of the word after the algorithm (`grpo`), or None."""
    if C.is_config(launch, COMMAND):
        return 2
    i = C.entry_script(launch, _ENTRY, first_words=None)
    words = launch.words()
    if i is None or i + 1 >= len(words) or words[i + 1] not in ALGORITHMS:
        return None
    return i + 2


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.chatlearn.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    derive_phases(launch, ctx, out, command_start(launch), C.is_config(launch, COMMAND))
    return out
