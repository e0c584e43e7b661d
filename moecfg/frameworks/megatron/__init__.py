"""Megatron-LM training launches: `torchrun ... pretrain_gpt.py ...` / `python pretrain_gpt.py ...`.

With `--moe-token-dispatcher-type flex` the MoE layers dispatch through one communication group over the expert-TP x
EP ranks (MoEFlexTokenDispatcher): backend `deepep` builds DeepEP's legacy Buffer sized by DeepEP's normal-mode hints,
`hybridep` NVIDIA's HybridEPBuffer sized by the first batch's token count. Read at NVIDIA/Megatron-LM@d98e8a6
(2026-08-22): megatron/core/transformer/moe/token_dispatcher.py, fused_a2a.py, transformer_config.py.
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "megatron"
VERSIONS = ("core-0.15",)
_ENTRY = re.compile(r"^(?:pre|post)train_\w+\.py$")  # pretrain_gpt.py, pretrain_mamba.py, MindSpeed-LLM posttrain_gpt.py


def command_start(launch: Launch) -> int | None:
    """Index of the first argument after the Megatron entry script, or None."""
    for i, word in enumerate(launch.argv):
        text = word.value if word.value is not None else word.pattern  # `${MEGATRON_PATH}/pretrain_gpt.py`
        if text is not None and _ENTRY.match(os.path.basename(text)):
            return i + 1
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.frameworks.megatron.calls import derive_calls

    out = Derivation(NAME, VERSIONS[-1])
    derive_calls(launch, ctx, out, command_start(launch))
    return out
