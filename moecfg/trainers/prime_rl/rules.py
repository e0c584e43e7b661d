"""prime-rl launch rules (MC717, MC718, MC748, MC749): what prime-rl's config loading and validators refuse, at
PrimeIntellect-ai/prime-rl@559b44772 (packages/prime-rl-configs/src/prime_rl/configs/) and prime-pydantic-config 0.4.3
(the `@ file.toml` loader)."""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_C = "PrimeIntellect-ai/prime-rl@559b44772 packages/prime-rl-configs/src/prime_rl/configs"
ERROR_LABELS = {c: "prime-rl's error" for c in ("MC717", "MC718", "MC748", "MC749")}
_OK = PASS_EXAMPLE
NOT_TOML = rule(
    "MC717", "prime-rl-config-not-toml", ERROR, "a prime-rl config that TOML cannot read", family=_F,
    source="prime-pydantic-config==0.4.3 pydantic_config/cli.py:411-419 (tomli.load; TOMLDecodeError -> "
    "ConfigFileError), the loader of `uv run rl @ config.toml` (prime_rl/utils/config.py:6)",
    why="`uv run rl @ file.toml` (and inference / trainer / sft) loads the file with tomli before anything starts; "
    "a file that is not valid TOML stops the launch with `Invalid TOML in <file>`.",
    cann_error="pydantic_config.cli.ConfigFileError: Invalid TOML in rl.toml: ...",
    fail_text="`[inference.vllm]` followed by `tensor_parallel_size = ` with no value.", pass_example=_OK,
    fix="Fix the TOML syntax at the position given.")
MULTI_NODE_EP = rule(
    "MC718", "prime-rl-multi-node-ep-sizes", ERROR, "multi-node RL with inference expert parallelism: the node's "
    "GPUs must split into TP groups, and DP x TP must be the inference replica's GPUs", family=_F,
    source=f"{_C}/rl.py:696-723 (RLConfig.auto_setup_deployment, multi_node with enable_expert_parallel)",
    why="With `deployment.type = \"multi_node\"` and `inference.vllm.enable_expert_parallel`, prime-rl starts "
    "gpus_per_node / TP vLLM ranks per inference node, all in one expert-parallel group per replica; it refuses sizes "
    "that do not fill the replica's nodes exactly.",
    cann_error="ValueError: For multi-node expert parallel inference, inference.vllm.data_parallel_size * "
    "inference.vllm.tensor_parallel_size must match total inference GPUs (16), got 8.",
    fail_text="`[deployment] type = \"multi_node\"`, `num_infer_nodes = 2` and `[inference.vllm] "
    "enable_expert_parallel = true`, `tensor_parallel_size = 8` (DP 1: 8 of 16 GPUs).", pass_example=_OK,
    fix="Set inference.vllm.data_parallel_size to num_infer_nodes x gpus_per_node / tensor_parallel_size.")
SINGLE_NODE_GPUS = rule(
    "MC748", "prime-rl-single-node-infer-gpus-tp", ERROR, "single-node RL: deployment.num_infer_gpus must be a "
    "multiple of the inference TP", family=_F,
    source=f"{_C}/rl.py:666-673 (RLConfig.auto_setup_deployment, single_node: assert num_infer_gpus % tp == 0)",
    why="On one node prime-rl fills the inference GPUs with data-parallel vLLM ranks: data_parallel_size = "
    "num_infer_gpus / tensor_parallel_size, asserting that the division is exact.",
    cann_error="AssertionError: Number of inference GPUs must be divisible by the tensor parallel size",
    fail_text="`[deployment] num_infer_gpus = 6` with `[inference.vllm] tensor_parallel_size = 4`.",
    pass_example=_OK, fix="Use a multiple of tensor_parallel_size inference GPUs, or change the TP.")
DEEPEP_NEEDS_EP = rule(
    "MC749", "prime-rl-ep-comm-backend-needs-ep", ERROR, "the trainer's ep_comm_backend = \"deepep\" needs ep > 1",
    family=_F, source=f"{_C}/trainer.py:333-341 (ModelConfig.validate_ep_comm_backend)",
    why="prime-rl's trainer runs DeepEP only over an expert-parallel group; an explicit ep of 1 (or less) with the "
    "deepep backend is refused when the config is built.",
    cann_error="ValueError: model.ep_comm_backend='deepep' requires model.ep > 1.",
    fail_text="`[trainer.model] ep = 1` with `ep_comm_backend = \"deepep\"`.", pass_example=_OK,
    fix="Set the model's ep above 1, or ep_comm_backend = \"torch\".")
