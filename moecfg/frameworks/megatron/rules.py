"""Megatron-LM launch rules (MC980-MC983): flex-dispatcher settings Megatron refuses or ignores, and a world size
its parallel sizes do not divide.

The buffer Megatron builds is judged by the `deepep` kind (api v1 for backend deepep, api hybridep for hybridep).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, WARNING
from moecfg.core.registry import rule

_F = "launch"
ERROR_LABELS = {c: "Megatron's error" for c in ("MC980", "MC981", "MC982", "MC983")}  # explain: whose error
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
WORLD_INDIVISIBLE = rule(
    "MC983", "megatron-world-size-indivisible", ERROR, "The launcher's world size is not a multiple of TP x PP x CP "
    "or of expert-TP x EP x PP", family=_F,
    source="NVIDIA/Megatron-LM@d98e8a6 megatron/training/arguments.py:424-434 (assert world_size % total_model_size "
    "== 0) and megatron/core/parallel_state.py:816-823, :874-884 ('world_size (..) is not divisible by "
    "expert_tensor_model_pipeline_parallel size (..)'); torchrun --nproc_per_node x --nnodes (the same check as "
    "MindSpeed's MC927)",
    why="Megatron splits the world into TP x PP x CP model replicas and, for the experts, expert-TP x EP x PP (expert-TP "
    "defaults to TP); a world size that is not a multiple of the first fails an assertion at argument parsing, of the "
    "second a RuntimeError when the process groups are built. The world size is torchrun's --nproc_per_node x "
    "--nnodes; a launch that leaves either unwritten (torch then reads PET_NPROC_PER_NODE / PET_NNODES) is not checked.",
    cann_error="AssertionError: world size (16) is not divisible by total_model_size (total_model_size=32)",
    fail_text="`torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py --tensor-model-parallel-size 8 "
    "--pipeline-model-parallel-size 4` (16 processes, TP x PP = 32).", pass_example=_OK,
    fix="Set the parallel size the message names (`set --pipeline-model-parallel-size 2`), or launch a multiple of "
    "the product (--nnodes 4).")
