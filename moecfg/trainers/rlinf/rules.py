"""RLinf launch rules (MC729, MC734): what RLinf's own config validation and placement refuse.

RLinf/RLinf@a3816b596 rlinf/config.py:784-793 (validate_megatron_cfg), rlinf/utils/placement.py:249-251, 281-284
(ModelParallelComponentPlacement, built by examples/reasoning/main_grpo.py:47).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_R = "RLinf/RLinf@a3816b596"
ERROR_LABELS = {c: "RLinf's error" for c in ("MC729", "MC734")}
_OK = PASS_EXAMPLE
EXPERT_TP_ABOVE_TP = rule(
    "MC729", "rlinf-expert-tp-above-tp", ERROR, "actor.model.expert_tensor_parallel_size must not exceed "
    "tensor_model_parallel_size (without Megatron-Bridge)", family=_F,
    source=f"{_R} rlinf/config.py:784-793 (validate_megatron_cfg: assert expert_tensor_parallel_size <= "
    "tensor_model_parallel_size unless actor.megatron.mbridge)",
    why="RLinf builds its Megatron model from actor.model and refuses an expert-TP larger than the attention TP when "
    "it builds the model itself (actor.megatron.mbridge false); it asserts it before any worker starts.",
    cann_error="AssertionError: expert_tensor_parallel_size (..) must be less than or equal to "
    "tensor_model_parallel_size (..)",
    fail_text="`actor: {training_backend: megatron, model: {tensor_model_parallel_size: 2, "
    "expert_tensor_parallel_size: 4}}`.", pass_example=_OK,
    fix="Set actor.model.expert_tensor_parallel_size to at most tensor_model_parallel_size (or 1 with expert "
    "parallelism).")
COLLOCATED_TP = rule(
    "MC734", "rlinf-collocated-actor-tp-rollout-tp", ERROR, "collocated actor and rollout: an actor TP above the "
    "rollout TP must be a multiple of it", family=_F,
    source=f"{_R} rlinf/utils/placement.py:281-284 (assert actor_tp_size % rollout_tp_size == 0 in the collocated "
    "mode, :249-251: actor and rollout on the same GPUs)",
    why="When the actor and the rollout share their GPUs, RLinf places each rollout engine on GPUs strided by actor "
    "TP / rollout TP so that weights move by CUDA IPC; it asserts the division when it builds the placement.",
    cann_error="AssertionError: Actor TP size (..) must be divisible by Rollout TP size (..)",
    fail_text="`cluster: {component_placement: {actor,rollout: all}}` with `actor.model.tensor_model_parallel_size: "
    "4` and `rollout.tensor_parallel_size: 3`.", pass_example=_OK,
    fix="Set rollout.tensor_parallel_size to a divisor of actor.model.tensor_model_parallel_size (or at least it).")
