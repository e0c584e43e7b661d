"""Megatron-LM launches: `torchrun ... pretrain_gpt.py ...` / `python pretrain_gpt.py ...`, and the other entry scripts
that parse Megatron's arguments (train_rl.py, the text-generation servers, ModelOpt's scripts, MindSpeed-LLM's
inference.py / evaluation.py: _MEGATRON_TOOLS, _SHARED_NAMES below).

With `--moe-token-dispatcher-type flex` the MoE layers dispatch through one communication group over the expert-TP x
EP ranks (MoEFlexTokenDispatcher): backend `deepep` builds DeepEP's legacy Buffer sized by DeepEP's normal-mode hints,
`hybridep` NVIDIA's HybridEPBuffer sized by the first batch's token count. Read at NVIDIA/Megatron-LM@d98e8a6
(2026-08-22): megatron/core/transformer/moe/token_dispatcher.py, fused_a2a.py, transformer_config.py.
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import NOT_A_RUNNER, Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "megatron"
VERSIONS = ("core-0.15",)
_ENTRY = re.compile(r"^(?:pre|post)train_\w+\.py$")  # pretrain_gpt.py, pretrain_mamba.py, MindSpeed-LLM posttrain_gpt.py


# A directory tree drawn in a doc (`├── pretrain_gpt.py   # 预训练流程`, MindSpeed-LLM@c77308a README.md:94) that a code
# block holds names an entry script without running it (file tools: NOT_A_RUNNER, moecfg/frameworks/__init__.py)
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


# Other entry scripts that parse Megatron's arguments (parse_and_validate_args / initialize_megatron, then Megatron's
# parallel_state): Megatron-LM@d98e8a6 train_rl.py:412-425, tools/run_text_generation_server.py:122-130,
# tools/run_dynamic_text_generation_server.py:265-269 (also run as `-m tools.run_dynamic_text_generation_server`).
# examples/inference/launch_inference_server.py:75-79 (`-m examples.inference.launch_inference_server`).
_MEGATRON_TOOLS = frozenset({"train_rl.py", "run_text_generation_server.py", "run_dynamic_text_generation_server.py",
                             "launch_inference_server.py"})
# Entry scripts with names other programs use too: a Megatron launch only when a Megatron parallel or MoE flag is
# written literally after them. Megatron-LM@d98e8a6 examples/post_training/modelopt/quantize.py:488-493,
# finetune.py:580-584, generate.py:77-82, mmlu.py:75-83, validate.py:94-99, export.py:53-61, prune.py:172-180,
# offline_feature_extract.py:46-51, convert_model.py:104-109; Ascend/MindSpeed-LLM@c77308a inference.py:18,101,
# evaluation.py:26,376, inference_deepseek4.py:28,92 (importing mindspeed_llm installs its megatron_adaptor,
# mindspeed_llm/__init__.py:16-19; then initialize_megatron).
_SHARED_NAMES = frozenset({"quantize.py", "finetune.py", "generate.py", "mmlu.py", "validate.py", "export.py",
                           "prune.py", "offline_feature_extract.py", "convert_model.py", "inference.py",
                           "evaluation.py", "inference_deepseek4.py"})
_PARALLEL_FLAG = re.compile(r"^--(?:tensor-model-parallel-size|pipeline-model-parallel-size|expert-model-parallel-size|"
                            r"expert-tensor-parallel-size|num-experts|moe-token-dispatcher-type|use-mcore-models)(?:=|$)")


def _entry_name(words, i: int) -> str | None:
    """The entry script's file name for word i: `x/pretrain_gpt.py`, or `-m tools.run_..._server` as a file name."""
    word = words[i]
    text = word.value if word.value is not None else word.pattern  # `${MEGATRON_PATH}/pretrain_gpt.py`
    if text is None:
        return None
    if i > 0 and words[i - 1].value == "-m" and "." in text and "/" not in text:
        return text.rsplit(".", 1)[-1] + ".py"
    return os.path.basename(text)


def entry_script(launch: Launch) -> str | None:
    """The file name of the Megatron entry script the launch runs (for the derivation's words), or None."""
    start = command_start(launch)
    return _entry_name(launch.argv, start - 1) if start else None


def command_start(launch: Launch) -> int | None:
    """Index of the first argument after the Megatron entry script, or None (no entry script, a command that only
    names it: `cp pretrain_gpt.py ...`, a drawn directory tree, or a script of another name that passes none of
    Megatron's arguments while every word is known)."""
    first = launch.argv[0].value if launch.argv else None
    if first is not None and (os.path.basename(first) in NOT_A_RUNNER or _TREE_DRAWING.match(first)):
        return None
    for i in range(len(launch.argv)):
        name = _entry_name(launch.argv, i)
        if name is None:
            continue
        rest = launch.argv[i + 1:]
        if _ENTRY.match(name):
            if name in _MEGATRON_SCRIPTS or _megatron_arguments(rest):
                return i + 1
            return None
        if name in _MEGATRON_TOOLS and _megatron_arguments(rest):
            return i + 1
        if name in _SHARED_NAMES and any(w.value is not None and _PARALLEL_FLAG.match(w.value) for w in rest):
            return i + 1
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
