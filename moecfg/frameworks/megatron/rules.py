"""Megatron-LM launch rules (MC980-MC982): flex-dispatcher settings Megatron refuses or ignores.

The buffer Megatron builds is judged by the `deepep` kind (api v1 for backend deepep, api hybridep for hybridep).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, WARNING
from moecfg.core.registry import rule

_F = "launch"
_M = "NVIDIA/Megatron-LM@d98e8a6 megatron/core/transformer"
_OK = ("# what Megatron derives for --moe-token-dispatcher-type flex (deepep), EP 8, DeepSeek-V3 shapes\n"
       "kind: deepep\nmode: normal\nnum_ranks: 8\nhidden: 7168\nnum_experts: 256\nnum_topk: 8\n")
BACKEND_UNUSED = rule(
    "MC980", "megatron-flex-backend-unused", WARNING, "--moe-flex-dispatcher-backend (or --moe-enable-deepep) without "
    "--moe-token-dispatcher-type flex", family=_F,
    source=f"{_M}/transformer_config.py:1743-1752 (moe_enable_deepep: 'DeepEP backend is only supported with flex "
    "token dispatcher'); moe/moe_layer.py (the backend is read by MoEFlexTokenDispatcher only)",
    why="Only the flex dispatcher reads the backend: with allgather or alltoall the DeepEP/HybridEP kernels never run "
    "(and --moe-enable-deepep stops the run with a ValueError).",
    cann_error="ValueError: DeepEP backend is only supported with flex token dispatcher.",
    fail_text="`torchrun pretrain_gpt.py --num-experts 64 --expert-model-parallel-size 8 --moe-flex-dispatcher-backend "
    "hybridep` (dispatcher type left at allgather).", pass_example=_OK,
    fix="Add --moe-token-dispatcher-type flex, or drop the backend flag.")
EXPERTS_DIVISIBLE = rule(
    "MC981", "megatron-experts-divisible", ERROR, "--num-experts must be a multiple of --expert-model-parallel-size",
    family=_F, source="NVIDIA/Megatron-LM@d98e8a6 megatron/training/arguments.py:1655-1658 ('Number of experts should be a "
    f"multiple of expert model parallel_size') and {_M}/moe/moe_layer.py (num_moe_experts % ep_size == 0)",
    why="Each EP rank holds num_experts / EP experts; Megatron asserts the division at argument parsing.",
    cann_error="AssertionError: Number of experts should be a multiple of expert model parallel_size.",
    fail_text="`python pretrain_gpt.py --num-experts 60 --expert-model-parallel-size 8 ...`.", pass_example=_OK,
    fix="Use an EP size that divides --num-experts (for 60 experts: 2, 4, 6, 10, 12, ...).")
SINGLE_RANK = rule(
    "MC982", "megatron-deepep-single-rank", ERROR, "The flex dispatcher with DeepEP needs expert-TP x EP > 1",
    family=_F, source=f"{_M}/moe/token_dispatcher.py:1836 (assert self.tp_size * self.ep_size > 1, 'DeepEP "
    "dispatcher requires TPxEP > 1')",
    why="DeepEP's Buffer needs a group of at least two ranks; Megatron asserts it when it builds the dispatcher.",
    cann_error="AssertionError: DeepEP dispatcher requires TPxEP > 1",
    fail_text="`torchrun pretrain_gpt.py --num-experts 8 --moe-token-dispatcher-type flex` with TP 1 and EP 1.",
    pass_example=_OK, fix="Set --expert-model-parallel-size > 1, or use --moe-token-dispatcher-type alltoall.")
