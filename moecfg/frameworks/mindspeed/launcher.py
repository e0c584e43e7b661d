"""Which launches are MindSpeed's, and the world size their launcher starts.

A MindSpeed launch is a Megatron entry-script launch (`pretrain_gpt.py`, `posttrain_gpt.py`: frameworks/megatron's
command_start) with a sign of MindSpeed or Ascend; without one the launch stays Megatron-LM's (GPU). Signs:
- the launcher is `msrun` (MindSpore's, used by MindSpeed-LLM's examples/mindspore/ scripts);
- a flag only MindSpeed / MindSpeed-LLM registers (MINDSPEED_FLAGS; none of them is in Megatron-LM's
  megatron/training/arguments.py at core_v0.12.1 nor at main);
- an Ascend variable in the launch's environment (HCCL_*, ASCEND_*, PYTORCH_NPU_*, TASK_QUEUE_ENABLE, CPU_AFFINITY_CONF);
- CANN's environment script sourced before it (`source /usr/local/Ascend/ascend-toolkit/set_env.sh`, the step every
  MindSpeed-LLM install guide and data/checkpoint script starts with: Ascend/MindSpeed-LLM@c77308a
  docs/zh/pytorch/training/install_guide.md:147-153), read or not: a path with an `Ascend/` or `ascend-toolkit` folder.

World size: frameworks/megatron/parallel_sizes.py (shared with the GPU Megatron-LM launches).
"""
from __future__ import annotations

import re

from moecfg.frameworks.megatron.parallel_sizes import program

MINDSPEED_FLAGS = frozenset((
    "--hccl-group-buffer", "--hccl-group-buffer-adaptive", "--hccl-ep-group-buffer-adaptive-factor", "--hccl-op-mode",
    "--moe-permutation-async-comm", "--moe-tp-extend-ep", "--moe-alltoall-overlap-comm", "--moe-allgather-overlap-comm",
    "--moe-fb-overlap", "--moe-zero-memory", "--use-ascend-mc2", "--moe-alltoall-mc2", "--n-shared-experts",
    "--first-k-dense-replace", "--noop-layers", "--context-parallel-algo", "--use-fused-rmsnorm", "--use-fused-swiglu",
    "--use-fused-rotary-pos-emb", "--ai-framework"))
ASCEND_ENV_PREFIXES = ("HCCL_", "ASCEND_", "PYTORCH_NPU_")
ASCEND_ENV = frozenset(("TASK_QUEUE_ENABLE", "CPU_AFFINITY_CONF"))
_CANN_SCRIPT = re.compile(r"(?:^|/)(?:Ascend|ascend-toolkit)/")


def sign(launch, start: int) -> str | None:
    """Why this Megatron launch is MindSpeed's (words for the derivation), or None."""
    if program(launch) == "msrun":
        return "launched by msrun (MindSpore's launcher)"
    for word in launch.argv[start:]:
        head = (word.value or "").split("=", 1)[0]
        if head in MINDSPEED_FLAGS:
            return f"{head} (a MindSpeed flag)"
    for name in launch.env:
        if name.startswith(ASCEND_ENV_PREFIXES) or name in ASCEND_ENV:
            return f"{name} in the environment (Ascend)"
    for path, span in launch.sourced:
        if _CANN_SCRIPT.search(path):
            return f"sources {path} (line {span.line}: CANN's Ascend environment)"
    return None
