"""NeMo-RL launch rules (MC712, MC713, MC733): what NeMo-RL's own vLLM generation refuses before it starts
(nemo_rl/models/generation/vllm/vllm_generation.py:116-145) and its policy's choice of one train backend
(nemo_rl/models/policy/lm_policy.py:118-160), at NVIDIA-NeMo/RL@7ea279abf."""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_S = "NVIDIA-NeMo/RL@7ea279abf nemo_rl/models/generation/vllm/vllm_generation.py"
ERROR_LABELS = {c: "NeMo-RL's error" for c in ("MC712", "MC713", "MC733")}
_OK = PASS_EXAMPLE
_V = "policy.generation.vllm_cfg."
ROLLOUT_EP = rule(
    "MC712", "nemo-rl-vllm-expert-parallel", ERROR, f"{_V}expert_parallel_size > 1 must be a multiple of "
    "tensor_parallel_size, and other than it (vLLM data parallelism) only with async_engine=false", family=_F,
    source=f"{_S}:134-145 (assert self.ep_size % self.tp_size == 0; assert not self.cfg['vllm_cfg']['async_engine'])",
    why="NeMo-RL runs vLLM's expert parallelism as EP = DP x TP: with EP > 1 it starts EP / TP data-parallel vLLM "
    "ranks per engine and asserts EP is a multiple of TP; with EP other than TP it asserts the async engine is off, "
    "which does not support data parallelism inside vLLM (NVIDIA-NeMo/RL issue 1101).",
    cann_error="AssertionError: When EP > 1, EP must be a multiple of TP since vLLM's EP = DP * TP.",
    fail_text=f"`{_V}tensor_parallel_size=4 {_V}expert_parallel_size=6`, or `{_V}expert_parallel_size=8` with TP 4 "
    f"and `{_V}async_engine=true`.", pass_example=_OK,
    fix=f"Set {_V}expert_parallel_size to a multiple of tensor_parallel_size (equal to it with async_engine=true).")
ROLLOUT_SHAPE = rule(
    "MC713", "nemo-rl-vllm-engine-shape", ERROR, "the generation GPUs must be a multiple of vLLM TP x PP, and PP > 1 "
    "needs async_engine=true", family=_F,
    source=f"{_S}:121-132 (assert cluster.world_size() % self.model_parallel_size == 0; assert "
    "self.cfg['vllm_cfg']['async_engine'])",
    why="Each vLLM engine spans tensor_parallel_size x pipeline_parallel_size GPUs of the generation cluster (the "
    "policy's GPUs when colocated, policy.generation.colocated.resources otherwise; nemo_rl/algorithms/grpo.py:"
    "811-1052); NeMo-RL asserts the cluster splits into whole engines, and runs pipeline parallelism only with its "
    "async engine.",
    cann_error="AssertionError: World size must be a multiple of model parallel size.",
    fail_text=f"`cluster.gpus_per_node=8 {_V}tensor_parallel_size=3` (colocated, one node), or "
    f"`{_V}pipeline_parallel_size=2 {_V}async_engine=false`.", pass_example=_OK,
    fix="Use a vLLM TP x PP that divides the generation GPUs; with PP > 1 set async_engine=true.")
ONE_BACKEND = rule(
    "MC733", "nemo-rl-one-train-backend", ERROR, "exactly one of policy.megatron_cfg.enabled and "
    "policy.dtensor_cfg.enabled must be true", family=_F,
    source="NVIDIA-NeMo/RL@7ea279abf nemo_rl/models/policy/lm_policy.py:118-125, :155-160 (raise ValueError)",
    why="The policy trains with Megatron or with DTensor / Automodel: NeMo-RL raises when both are enabled and when "
    "neither is.", cann_error="ValueError: Configure either Megatron (policy.megatron_cfg.enabled=true) or DTensor "
    "(policy.dtensor_cfg.enabled=true), not both.",
    fail_text="`policy.megatron_cfg.enabled=true` over a config whose `policy.dtensor_cfg.enabled` is true.",
    pass_example=_OK, fix="Set policy.dtensor_cfg.enabled=false with policy.megatron_cfg.enabled=true (or the reverse).")
