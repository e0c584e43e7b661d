"""verl launch rules (MC709-MC713): rollout settings verl's own checks refuse.

volcengine/verl@b178a3c verl/workers/config/rollout.py:257-266 (RolloutConfig.__post_init__),
verl/workers/rollout/vllm_rollout/vllm_async_server.py:308-311 (the vLLM server's expert-parallel layout).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule

_F = "launch"
_R = "volcengine/verl@b178a3c verl/workers/config/rollout.py"
ERROR_LABELS = {c: "verl's error" for c in ("MC709", "MC710", "MC711")}
_OK = ("# what verl's SGLang rollout builds for tensor_model_parallel_size=8 expert_parallel_size=8 with DeepEP, "
       "DeepSeek-V3 shapes\nkind: deepep\nmode: normal\nnum_ranks: 8\nhidden: 7168\nnum_experts: 256\nnum_topk: 8\n")
ROLLOUT_EP = rule(
    "MC709", "verl-rollout-ep-size", ERROR, "actor_rollout_ref.rollout.expert_parallel_size must equal "
    "tensor_model_parallel_size x data_parallel_size", family=_F,
    source=f"{_R}:257-260 (assert self.expert_parallel_size == self.tensor_model_parallel_size * "
    "self.data_parallel_size)",
    why="verl's rollout runs the experts over the engine's TP x DP ranks; any other EP size fails its config check "
    "before a rollout engine starts.",
    cann_error="AssertionError: expert_parallel_size must be equal to tensor_model_parallel_size * data_parallel_size",
    fail_text="`python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.tensor_model_parallel_size=8 "
    "actor_rollout_ref.rollout.expert_parallel_size=16 ...` (data_parallel_size 1).", pass_example=_OK,
    fix="Set actor_rollout_ref.rollout.expert_parallel_size to tensor_model_parallel_size x data_parallel_size.")
ROLLOUT_PP = rule(
    "MC710", "verl-rollout-pp-unsupported", ERROR, "actor_rollout_ref.rollout.pipeline_model_parallel_size > 1 with "
    "the vllm, sglang or trtllm rollout", family=_F,
    source=f"{_R}:262-266 (raise NotImplementedError 'Current rollout ... not implemented pipeline_model_parallel_size "
    "> 1 yet')",
    why="verl's vLLM, SGLang and TensorRT-LLM rollouts do not run pipeline stages; the config check raises.",
    cann_error="NotImplementedError: Current rollout self.name='vllm' not implemented pipeline_model_parallel_size > 1 yet.",
    fail_text="`... actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.pipeline_model_parallel_size=2`.",
    pass_example=_OK, fix="Set actor_rollout_ref.rollout.pipeline_model_parallel_size=1.")
VLLM_EP_NODE = rule(
    "MC711", "verl-vllm-ep-gpus-per-node", ERROR, "With the vLLM rollout and expert_parallel_size > 1, "
    "trainer.n_gpus_per_node must be a multiple of the rollout tensor_model_parallel_size", family=_F,
    source="volcengine/verl@b178a3c verl/workers/rollout/vllm_rollout/vllm_async_server.py:308-311 (assert "
    "self.gpus_per_node % self.config.tensor_model_parallel_size == 0)",
    why="verl's vLLM server runs data_parallel_size_local = GPUs per node / TP engines on each node when the rollout "
    "uses expert parallelism; a TP that does not divide the GPUs per node fails its assertion.",
    cann_error="AssertionError: gpus_per_node should be divisible by tensor_model_parallel_size",
    fail_text="`... actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.tensor_model_parallel_size=3 "
    "actor_rollout_ref.rollout.data_parallel_size=2 actor_rollout_ref.rollout.expert_parallel_size=6 "
    "trainer.n_gpus_per_node=8`.", pass_example=_OK,
    fix="Use a rollout tensor_model_parallel_size that divides trainer.n_gpus_per_node.")
