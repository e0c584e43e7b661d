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


# Commands that name an entry script without running it: file tools, and a directory tree drawn in a doc
# (`├── pretrain_gpt.py   # 预训练流程`, MindSpeed-LLM@c77308a README.md:94) that a code block holds.
_NOT_A_RUNNER = frozenset({"cp", "mv", "rm", "ls", "ll", "cat", "less", "more", "head", "tail", "vi", "vim", "nano",
                           "git", "diff", "ln", "touch", "chmod", "chown", "find", "grep", "sed", "awk", "wget",
                           "curl", "scp", "rsync", "echo", "printf", "tar", "zip", "unzip", "du", "wc", "stat", "file",
                           "tree", "patch", "cd", "pushd", "test", "["})
_TREE_DRAWING = re.compile(r"^[\u2500-\u257f|`+-]")  # ├ └ │ ─, or an ASCII tree `|--`, `` `-- ``, `+--`


# Megatron-LM's own entry scripts (NVIDIA/Megatron-LM@d98e8a6 top level) and MindSpeed-LLM's posttrain_gpt.py. Another
# `pretrain_*.py` is a Megatron launch only when it passes Megatron's arguments: NeMo-Run's recipe scripts
# (NVIDIA/NeMo scripts/performance/llm/pretrain_deepseek_v3.py ...) take their own (`--account`, `-ng`, `-tp`) and
# build the job in Python.
_MEGATRON_SCRIPTS = frozenset({"pretrain_gpt.py", "pretrain_bert.py", "pretrain_t5.py", "pretrain_mamba.py",
                               "pretrain_vlm.py", "pretrain_retro.py", "pretrain_ict.py", "pretrain_vision_classify.py",
                               "pretrain_vision_dino.py", "pretrain_vision_inpaint.py", "posttrain_gpt.py"})
_MEGATRON_FLAG = re.compile(r"^--(?:tensor-model-parallel-size|pipeline-model-parallel-size|expert-model-parallel-size|"
                            r"context-parallel-size|num-layers|hidden-size|num-attention-heads|micro-batch-size|"
                            r"global-batch-size|seq-length|num-experts|moe-[a-z-]+|train-iters|data-path|"
                            r"tokenizer-type|use-mcore-models|transformer-impl|yaml-cfg)(?:=|$)")


def command_start(launch: Launch) -> int | None:
    """Index of the first argument after the Megatron entry script, or None (no entry script, a command that only
    names it: `cp pretrain_gpt.py ...`, a drawn directory tree, or a script of another name that passes none of
    Megatron's arguments while every word is known)."""
    first = launch.argv[0].value if launch.argv else None
    if first is not None and (os.path.basename(first) in _NOT_A_RUNNER or _TREE_DRAWING.match(first)):
        return None
    for i, word in enumerate(launch.argv):
        text = word.value if word.value is not None else word.pattern  # `${MEGATRON_PATH}/pretrain_gpt.py`
        if text is not None and _ENTRY.match(os.path.basename(text)):
            if os.path.basename(text) in _MEGATRON_SCRIPTS or _megatron_arguments(launch.argv[i + 1:]):
                return i + 1
            return None
    return None


def _megatron_arguments(words) -> bool:
    """Some word is one of Megatron's arguments, or is not known statically (`$GPT_ARGS` may hold them)."""
    return any(w.value is None or _MEGATRON_FLAG.match(w.value) for w in words)


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.frameworks.megatron.calls import derive_calls

    out = Derivation(NAME, VERSIONS[-1])
    derive_calls(launch, ctx, out, command_start(launch))
    return out
