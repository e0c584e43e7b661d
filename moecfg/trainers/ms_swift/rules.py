"""ms-swift launch rules (MC720-MC724): what ms-swift's own checks refuse.

modelscope/ms-swift@3602360 swift/megatron/trainers/rollout_mixin.py:404-406.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule

_F = "launch"
ERROR_LABELS = {"MC720": "ms-swift's error"}
_OK = ("# what ms-swift's Megatron run builds for --expert_model_parallel_size 8 --moe_token_dispatcher_type flex "
       "--moe_enable_deepep true, DeepSeek-V3 shapes\nkind: deepep\nmode: normal\nnum_ranks: 8\nhidden: 7168\n"
       "num_experts: 256\nnum_topk: 8\n")
VLLM_TP_WORLD = rule(
    "MC720", "ms-swift-vllm-tp-world", ERROR, "--vllm_tensor_parallel_size must divide the world size (colocated "
    "rollout)", family=_F,
    source="modelscope/ms-swift@3602360 swift/megatron/trainers/rollout_mixin.py:404-406 (raise ValueError "
    "'vllm_tensor_parallel_size (..) must divide world size (..) evenly')",
    why="The colocated vLLM engines split the training processes into groups of --vllm_tensor_parallel_size ranks; "
    "ms-swift refuses a size that does not divide the world.",
    cann_error="ValueError: vllm_tensor_parallel_size (3) must divide world size (8) evenly",
    fail_text="`NPROC_PER_NODE=8 megatron rlhf --use_vllm true --vllm_mode colocate --vllm_tensor_parallel_size 3 ...`.",
    pass_example=_OK, fix="Use a --vllm_tensor_parallel_size that divides NPROC_PER_NODE x NNODES.")
