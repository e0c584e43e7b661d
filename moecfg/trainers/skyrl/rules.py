"""SkyRL launch rules (MC737-MC739): what SkyRL's own config validation refuses (skyrl/train/utils/utils.py
validate_cfg, validate_megatron_cfg), at NovaSky-AI/SkyRL@a956457."""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_S = "NovaSky-AI/SkyRL@a956457 skyrl/train/utils/utils.py"
ERROR_LABELS = {c: "SkyRL's error" for c in ("MC737", "MC738", "MC739")}
_OK = PASS_EXAMPLE
ROLLOUT_EP = rule(
    "MC737", "skyrl-rollout-ep-is-dp-times-tp", ERROR, "generator.inference_engine.expert_parallel_size > 1 must "
    "equal data_parallel_size x tensor_parallel_size", family=_F,
    source=f"{_S}:552-560 (assert dp_size * tp_size == ep_size)",
    why="SkyRL turns vLLM's expert parallelism on with expert_parallel_size > 1; the experts then span the engine's "
    "DP x TP ranks, and SkyRL asserts the sizes agree before it starts.",
    cann_error="AssertionError: If inference expert parallel is enabled, data parallel size * tensor parallel size "
    "must equal expert parallel size.", fail_text="`generator.inference_engine.tensor_parallel_size=4 "
    "generator.inference_engine.expert_parallel_size=8` (DP 1).", pass_example=_OK,
    fix="Set generator.inference_engine.expert_parallel_size to data_parallel_size x tensor_parallel_size.")
POLICY_WORLD = rule(
    "MC738", "skyrl-policy-world-model-parallel", ERROR, "the Megatron policy's GPUs must be a multiple of PP x CP x "
    "TP", family=_F, source=f"{_S}:82-91 (assert policy_world_size % (pp * cp * tp) == 0)",
    why="The policy runs on trainer.placement.policy_num_nodes x policy_num_gpus_per_node GPUs; SkyRL asserts that "
    "they split into whole data-parallel replicas of PP x CP x TP GPUs.",
    cann_error="AssertionError: policy_world_size .. should be divisible by (pp * cp * tp) ..",
    fail_text="`trainer.placement.policy_num_gpus_per_node=6 trainer.policy.megatron_config."
    "tensor_model_parallel_size=4`.", pass_example=_OK,
    fix="Use a GPU count that is a multiple of PP x CP x TP, or change the parallel sizes.")
MEGATRON_NEEDS_VLLM = rule(
    "MC739", "skyrl-megatron-needs-vllm", ERROR, "trainer.strategy=megatron runs only with the vllm inference "
    "backend", family=_F, source=f"{_S}:194-201 (validate_megatron_cfg: assert ie_cfg.backend == 'vllm')",
    why="SkyRL's Megatron workers sync weights only into vLLM engines; validate_megatron_cfg refuses another backend.",
    cann_error="AssertionError: only vllm is supported for with megatron",
    fail_text="`trainer.strategy=megatron generator.inference_engine.backend=sglang`.", pass_example=_OK,
    fix="Set generator.inference_engine.backend=vllm.")
