"""NeMo-RL launch rules (MC726-MC728, MC733): what NeMo-RL's own vLLM generation refuses before it starts
(nemo_rl/models/generation/vllm/vllm_generation.py:116-145 at NVIDIA-NeMo/RL@7ea279abf)."""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_S = "NVIDIA-NeMo/RL@7ea279abf nemo_rl/models/generation/vllm/vllm_generation.py"
ERROR_LABELS = {c: "NeMo-RL's error" for c in ("MC726", "MC727", "MC728", "MC733")}
_OK = PASS_EXAMPLE
_V = "policy.generation.vllm_cfg."
ROLLOUT_EP_TP = rule(
    "MC726", "nemo-rl-vllm-ep-multiple-of-tp", ERROR, f"{_V}expert_parallel_size > 1 must be a multiple of "
    "tensor_parallel_size", family=_F, source=f"{_S}:134-138 (assert self.ep_size % self.tp_size == 0)",
    why="NeMo-RL runs vLLM's expert parallelism as EP = DP x TP: with EP > 1 it starts EP / TP data-parallel vLLM "
    "ranks per engine, and asserts EP is a multiple of TP before it does.",
    cann_error="AssertionError: When EP > 1, EP must be a multiple of TP since vLLM's EP = DP * TP.",
    fail_text=f"`{_V}tensor_parallel_size=4 {_V}expert_parallel_size=6`.", pass_example=_OK,
    fix=f"Set {_V}expert_parallel_size to a multiple of tensor_parallel_size.")
ROLLOUT_WORLD = rule(
    "MC727", "nemo-rl-vllm-world-model-parallel", ERROR, "the generation GPUs must be a multiple of vLLM TP x PP",
    family=_F, source=f"{_S}:121-124 (assert cluster.world_size() % self.model_parallel_size == 0)",
    why="Each vLLM engine spans tensor_parallel_size x pipeline_parallel_size GPUs of the generation cluster (the "
    "policy's GPUs when colocated, policy.generation.colocated.resources otherwise; nemo_rl/algorithms/grpo.py:"
    "811-1052); NeMo-RL asserts the cluster splits into whole engines.",
    cann_error="AssertionError: World size must be a multiple of model parallel size.",
    fail_text=f"`cluster.gpus_per_node=8 {_V}tensor_parallel_size=3` (colocated, one node).", pass_example=_OK,
    fix="Use a vLLM TP x PP that divides the generation GPUs, or change the GPU count.")
ROLLOUT_PP_ASYNC = rule(
    "MC728", "nemo-rl-vllm-pp-needs-async-engine", ERROR, f"{_V}pipeline_parallel_size > 1 needs async_engine=true",
    family=_F, source=f"{_S}:128-132 (assert self.cfg['vllm_cfg']['async_engine'])",
    why="NeMo-RL runs vLLM pipeline parallelism only with its async engine and asserts it at start-up.",
    cann_error="AssertionError: When pipeline_parallel_size > 1, async_engine must be set to True in the vLLM "
    "configuration.", fail_text=f"`{_V}pipeline_parallel_size=2 {_V}async_engine=false`.", pass_example=_OK,
    fix=f"Set {_V}async_engine=true, or pipeline_parallel_size=1.")
ROLLOUT_DP_ASYNC = rule(
    "MC733", "nemo-rl-vllm-dp-without-async-engine", ERROR, f"{_V}expert_parallel_size other than tensor_parallel_"
    "size (vLLM data parallelism) needs async_engine=false", family=_F,
    source=f"{_S}:139-145 (assert not self.cfg['vllm_cfg']['async_engine'])",
    why="With EP > TP NeMo-RL runs EP / TP data-parallel ranks inside vLLM, which its async engine does not "
    "support (NVIDIA-NeMo/RL issue 1101); it asserts async_engine is off.",
    cann_error="AssertionError: vLLM async_engine has some issues when using DP inside vLLM.",
    fail_text=f"`{_V}tensor_parallel_size=4 {_V}expert_parallel_size=8 {_V}async_engine=true`.", pass_example=_OK,
    fix=f"Set {_V}async_engine=false, or expert_parallel_size equal to tensor_parallel_size.")
