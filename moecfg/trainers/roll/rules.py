"""ROLL launch rules (MC730-MC734): what ROLL's own config checks refuse.

alibaba/ROLL@8eb27cc roll/configs/worker_config.py:311-316, roll/utils/config_utils.py:57-97 (called from
roll/configs/base_config.py:368-379), roll/distributed/strategy/vllm_strategy.py:89.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_R = "alibaba/ROLL@8eb27cc"
ERROR_LABELS = {c: "ROLL's error" for c in ("MC730", "MC731", "MC732")}
_OK = PASS_EXAMPLE
DEVICES_INDIVISIBLE = rule(
    "MC730", "roll-device-mapping-indivisible", ERROR, "a worker's device_mapping must hold a multiple of its GPUs "
    "per worker", family=_F, source=f"{_R} roll/configs/worker_config.py:311-316 (assert len(device_mapping) % "
    "num_gpus_per_worker == 0; a vllm worker has tensor_parallel_size x pipeline_parallel_size GPUs, :283-287)",
    why="ROLL splits a worker's device_mapping into workers of num_gpus_per_worker GPUs each (for vLLM, its TP x PP); "
    "it asserts the division when it builds the config.",
    cann_error="AssertionError: len(device_mapping)=.. must be divisible by num_gpus_per_worker=..",
    fail_text="`actor_infer: {strategy_args: {strategy_name: vllm, strategy_config: {tensor_parallel_size: 4}}, "
    "device_mapping: list(range(0,6))}`.", pass_example=_OK,
    fix="List a multiple of tensor_parallel_size x pipeline_parallel_size GPUs in device_mapping.")
BATCH_DP = rule(
    "MC731", "roll-rollout-batch-megatron-dp", ERROR, "rollout_batch_size must be a multiple of the Megatron "
    "actor's data-parallel size", family=_F, source=f"{_R} roll/utils/config_utils.py:74-97 (raise ValueError "
    "'Rollout Batch Size (..) must be divisible by data parallel size (..)'), called at roll/configs/base_config.py:"
    "368-379",
    why="ROLL spreads each rollout batch evenly over the Megatron actor's data-parallel ranks: len(device_mapping) / "
    "(TP x PP x CP).", cann_error="ValueError: Rollout Batch Size (..) must be divisible by data parallel size (..)",
    fail_text="`rollout_batch_size: 64` with a megatron_train actor over 32 GPUs at TP 1, PP 1, CP 1 (DP 32) is fine; "
    "`rollout_batch_size: 100` is not.", pass_example=_OK,
    fix="Set rollout_batch_size to a multiple of the data-parallel size, or change the actor's parallel sizes.")
VLLM_DP_WORLD = rule(
    "MC732", "roll-vllm-dp-world", ERROR, "a vllm strategy's data_parallel_size must equal its number of workers",
    family=_F, source=f"{_R} roll/distributed/strategy/vllm_strategy.py:85-89 (assert data_parallel_size == "
    "self.worker.world_size)",
    why="With data_parallel_size > 1 each ROLL vLLM worker is one data-parallel rank of one vLLM engine: their "
    "number (len(device_mapping) / (TP x PP)) must be the engine's data-parallel size.",
    cann_error="AssertionError: data_parallel_size=.. != self.worker.world_size=..",
    fail_text="`strategy_config: {tensor_parallel_size: 2, data_parallel_size: 8}` with `device_mapping: "
    "list(range(0,8))` (4 workers).", pass_example=_OK,
    fix="Set data_parallel_size to len(device_mapping) / (tensor_parallel_size x pipeline_parallel_size).")
