"""ChatLearn launch rules (MC726-MC728): rollout settings ChatLearn's own config check refuses.

alibaba/ChatLearn@248875a chatlearn/configs/policy_config.py:84-92 (PolicyConfig._validate_impl, run by
chatlearn/configs/base/base_config.py:40-54 from GrpoAlgorithm.validate, chatlearn/entrypoint.py:102).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_R = "alibaba/ChatLearn@248875a chatlearn/configs/policy_config.py"
ERROR_LABELS = {c: "ChatLearn's error" for c in ("MC726", "MC727", "MC728")}
POLICY_EP = rule(
    "MC726", "chatlearn-policy-ep-unsupported", ERROR, "models.policy.expert_model_parallel_size must be 1 (ChatLearn's "
    "rollout has no expert parallelism)", family=_F,
    source=f"{_R}:89 (assert self.expert_model_parallel_size == 1, 'Expert Parallel of Policy model is not supported')",
    why="ChatLearn's vLLM and SGLang rollouts get only a tensor-parallel size (chatlearn/models/vllm_module.py:118, "
    "sglang_module.py:296); its config check refuses any other expert-parallel size before the job starts.",
    cann_error="AssertionError: Expert Parallel of Policy model is not supported",
    fail_text="`python chatlearn/entrypoint.py grpo --config-file grpo.yaml models.policy.expert_model_parallel_size=8`.",
    pass_example=PASS_EXAMPLE, fix="Set models.policy.expert_model_parallel_size=1 (expert parallelism belongs to "
    "models.policy_trainer).")
POLICY_PP = rule(
    "MC727", "chatlearn-policy-pp-unsupported", ERROR, "models.policy.pipeline_model_parallel_size must be 1",
    family=_F, source=f"{_R}:90 (assert self.pipeline_model_parallel_size == 1, 'Pipeline Parallel of Policy model is "
    "not supported')",
    why="ChatLearn's rollout does not run pipeline stages; its config check refuses the setting.",
    cann_error="AssertionError: Pipeline Parallel of Policy model is not supported",
    fail_text="`... models.policy.pipeline_model_parallel_size=2`.", pass_example=PASS_EXAMPLE,
    fix="Set models.policy.pipeline_model_parallel_size=1.")
POLICY_GPUS = rule(
    "MC728", "chatlearn-policy-gpus-tp", ERROR, "models.policy.num_gpu must be a multiple of "
    "models.policy.tensor_model_parallel_size", family=_F,
    source=f"{_R}:85-86 (assert self.num_gpu % self.tensor_model_parallel_size == 0)",
    why="ChatLearn runs num_gpu / TP rollout engines of TP GPUs each; a TP that does not divide the GPUs fails its "
    "config check.",
    cann_error="AssertionError: models.policy.num_gpu must be divisible by tensor_model_parallel_size",
    fail_text="`... models.policy.num_gpu=8 models.policy.tensor_model_parallel_size=3`.", pass_example=PASS_EXAMPLE,
    fix="Use a models.policy.tensor_model_parallel_size that divides models.policy.num_gpu.")
