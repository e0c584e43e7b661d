"""torchtitan launch rules: what torchtitan's ParallelDims refuses at start-up (MC740-MC741,
pytorch/torchtitan@b5bcd76 torchtitan/distributed/parallel_dims.py:166-191) and what torchtitan 0.2's DeepEP backend
refuses (MC721-MC722, pytorch/torchtitan@73a0e69 torchtitan/models/deepseek_v3/infra/parallelize.py:99-111).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_S = "pytorch/torchtitan@b5bcd76 torchtitan/distributed/parallel_dims.py"
ERROR_LABELS = {c: "torchtitan's error" for c in ("MC740", "MC741", "MC721", "MC722")}
_OK = PASS_EXAMPLE
WORLD_PRODUCT = rule(
    "MC741", "torchtitan-parallel-dims-world", ERROR, "dp_replicate x dp_shard x cp x tp x pp must equal the world "
    "size", family=_F, source=f"{_S}:177-184 (dp_shard -1 = WORLD_SIZE // (dp_replicate x cp x tp x pp); assert the "
    "product == WORLD_SIZE)",
    why="torchtitan lays the ranks out as one mesh of every parallel degree; data_parallel_shard_degree -1 (the "
    "default) takes the rest of the world, and the product must be the world exactly.",
    cann_error="AssertionError: Invalid parallel dims: dp_replicate(..) * dp_shard(..) * cp(..) * tp(..) * pp(..) != "
    "WORLD_SIZE(..)",
    fail_text="`torchrun --nproc_per_node 8 -m torchtitan.train --parallelism.tensor_parallel_degree 3`.",
    pass_example=_OK, fix="Use degrees whose product divides the world size (dp_shard -1 takes the rest).")
EP_SPARSE = rule(
    "MC740", "torchtitan-ep-divides-dense-region", ERROR, "expert_parallel_degree must divide dp_shard x cp x tp",
    family=_F, source=f"{_S}:186-191 (raise ValueError 'expert_parallel_degree (..) must divide dp_shard * cp * tp "
    "(..)')",
    why="torchtitan's experts borrow their ranks from the FSDP, CP and TP ranks (efsdp = dp_shard x cp x tp / ep); "
    "an EP degree that does not divide them has no mesh.",
    cann_error="ValueError: expert_parallel_degree (..) must divide dp_shard * cp * tp (..)",
    fail_text="`torchrun --nproc_per_node 8 -m torchtitan.train --parallelism.expert_parallel_degree 3`.",
    pass_example=_OK, fix="Use an expert_parallel_degree that divides dp_shard x cp x tp.")
_S22 = "pytorch/torchtitan@73a0e69"
DEEPEP_NEEDS_EP = rule(
    "MC721", "torchtitan-deepep-needs-expert-parallelism", ERROR, "the DeepEP backend needs expert_parallel_degree > 1",
    family=_F, source=f"{_S22} torchtitan/models/deepseek_v3/infra/parallelize.py:99-106, "
    "torchtitan/models/llama4/infra/parallelize.py:113-120 (raise ValueError 'DeepEP requires expert parallelism')",
    why="torchtitan 0.2's DeepEP MoE code runs only over an expert-parallel group; deepseek_v3 and llama4 refuse the "
    "deepep backend without one before training starts.",
    cann_error="ValueError: DeepEP requires expert parallelism (ep_degree > 1).",
    fail_text="`--model.name deepseek_v3 --parallelism.expert_parallel_comm_backend deepep` with "
    "expert_parallel_degree 1.",
    pass_example=_OK, fix="Set --parallelism.expert_parallel_degree > 1, or the standard backend.")
DEEPEP_ETP = rule(
    "MC722", "torchtitan-deepep-no-expert-tensor-parallelism", ERROR, "the DeepEP backend takes no expert tensor "
    "parallelism", family=_F, source=f"{_S22} torchtitan/models/deepseek_v3/infra/parallelize.py:107-111, "
    "torchtitan/models/llama4/infra/parallelize.py:121-125 (raise NotImplementedError 'DeepEP with Expert Tensor "
    "Parallelism (ETP) is not supported yet')",
    why="torchtitan 0.2 dispatches with DeepEP only when the experts are not tensor-parallel.",
    cann_error="NotImplementedError: DeepEP with Expert Tensor Parallelism (ETP) is not supported yet.",
    fail_text="`--parallelism.expert_parallel_comm_backend deepep --parallelism.expert_tensor_parallel_degree 2`.",
    pass_example=_OK, fix="Set --parallelism.expert_tensor_parallel_degree 1, or the standard backend.")
