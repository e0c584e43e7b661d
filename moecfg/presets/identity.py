"""One model identity for every framework: the Hugging Face `model_type` and `architectures` a checkpoint's
config.json writes, whichever way the model was named (a preset, a repository id, a `models:` config.json).

Frameworks key their model registries on these, not on moecfg's preset names: xLLM on `model_type`
(`deepseek_v4`, jd-opensource/xllm@87e8d6e xllm/models/model_registry.cpp:68-80, 104-121), vllm-mindspore on
`architectures` (`Qwen3MoeForCausalLM`, mindspore-ai/vllm-mindspore@423bd12
vllm_mindspore/model_executor/models/registry.py:64-83). A config.json gives both itself; a preset takes them
from the table below (its family's published config.json). A family not in the table has no identity ("", ()):
callers then say the model type is not known rather than assume one. Stdlib only.
"""
from __future__ import annotations

import re

# preset name prefix -> (model_type, architectures) as the family's published config.json writes them
# (the model types xLLM's registry names: deepseek_v4, qwen3_5_moe, qwen3_next, minimax_m2, qwen3_moe,
# model_registry.cpp:68-80, 104-106; the architectures vllm-mindspore registers: Qwen3MoeForCausalLM,
# Qwen3VLMoeForConditionalGeneration, DeepseekV3ForCausalLM, Glm4MoeForCausalLM, registry.py:64-83 @423bd12;
# the others as these families' published config.json write them)
FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("deepseek-v3.2", "deepseek_v32", ("DeepseekV32ForCausalLM",)),
    ("deepseek-v3", "deepseek_v3", ("DeepseekV3ForCausalLM",)),
    ("deepseek-v4", "deepseek_v4", ()),
    ("deepseek-v2", "deepseek_v2", ("DeepseekV2ForCausalLM",)),
    ("kimi-k2.5", "kimi_k25", ()),
    ("kimi-k2", "kimi_k2", ("DeepseekV3ForCausalLM",)),
    ("glm-4.5", "glm4_moe", ("Glm4MoeForCausalLM",)),
    ("minimax-m2", "minimax_m2", ("MiniMaxM2ForCausalLM",)),
    ("qwen3-vl-", "qwen3_vl_moe", ("Qwen3VLMoeForConditionalGeneration",)),
    ("qwen3-next", "qwen3_next", ("Qwen3NextForCausalLM",)),
    ("qwen3.5-", "qwen3_5_moe", ("Qwen3_5MoeForConditionalGeneration",)),
    ("qwen3-", "qwen3_moe", ("Qwen3MoeForCausalLM",)),
    ("mimo-v2-flash", "mimo_v2_flash", ()),
    ("gemma-4", "gemma4", ()),
    ("gpt-oss", "gpt_oss", ("GptOssForCausalLM",)),
    ("mixtral", "mixtral", ("MixtralForCausalLM",)),
    ("llama-4", "llama4", ("Llama4ForConditionalGeneration",)),
)


def of_preset(name: str) -> tuple[str, tuple[str, ...]]:
    """(model_type, architectures) of a built-in preset's family, or ("", ()) when moecfg does not record them."""
    low = name.lower()
    for prefix, model_type, arches in FAMILIES:
        if low.startswith(prefix):
            return model_type, arches
    return "", ()


def normal(text: str) -> str:
    """A model type as registries compare it: lower case, `-` and `.` read as `_` (`deepseek-v4` -> deepseek_v4;
    xLLM's registry holds `deepseek_v4`, moecfg's preset names write `deepseek-v4`)."""
    return re.sub(r"[-.\s]+", "_", text.strip().lower())
