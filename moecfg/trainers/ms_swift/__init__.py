"""ms-swift (modelscope/ms-swift): the `megatron sft|pt|rlhf|export` console script with underscore Megatron flags
(`--expert_model_parallel_size 8`), sized by NPROC_PER_NODE / NNODES; `megatron rlhf --use_vllm true --vllm_mode
colocate` adds a vLLM rollout in the same processes.

Read at modelscope/ms-swift@3602360 (after v4.5.2): swift/cli/_megatron/main.py:6-15 (the routes), swift/cli/main.py:30-98
(torchrun from the environment), swift/megatron/arguments/megatron_args.py (defaults),
swift/megatron/trainers/rollout_mixin.py:482-506 (the colocated vLLM engine). calls.py writes the engines' command lines.
"""
from __future__ import annotations

import os

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "ms-swift"
VERSIONS = ("4.5.2",)
ROUTES = ("sft", "pt", "rlhf", "export")  # swift/cli/_megatron/main.py:6-11


def command_start(launch: Launch) -> int | None:
    words = launch.words()
    for i, w in enumerate(words[:-1]):
        if w and os.path.basename(w) == "megatron" and (words[i + 1] or "").replace("_", "-") in ROUTES:
            return i + 2
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.ms_swift.calls import derive_phases

    start = command_start(launch)
    out = Derivation(NAME, VERSIONS[-1])
    derive_phases(launch, ctx, out, start, launch.words()[start - 1] or "")
    return out
