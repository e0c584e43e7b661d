"""FastDeploy (PaddlePaddle/FastDeploy) LLM serving: `python -m fastdeploy.entrypoints.openai.api_server --model ...
--tensor-parallel-size 8 --data-parallel-size 2 --enable-expert-parallel` (also `...openai.multi_api_server`).

Recognised and read (tensor / data parallel sizes, expert parallelism on or off, --splitwise-role); not derived:
FastDeploy builds its DeepEP buffers with PaddlePaddle's port of DeepEP (paddle.distributed.communication.deep_ep,
fastdeploy/model_executor/layers/moe/ep.py DeepEPBuffer), and no released FastDeploy code is available to moecfg
to generate a flag table or pin the buffer sizing from (`fastdeploy-gpu` is published on PaddlePaddle's own
index, not on the package registry moecfg's tables are built from; the repository snapshot read predates the LLM
engine). The launch is listed as not derived.
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "fastdeploy"
VERSIONS = ("unversioned",)
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_MODULES = ("fastdeploy.entrypoints.openai.api_server", "fastdeploy.entrypoints.openai.multi_api_server",
            "fastdeploy.entrypoints.api_server")
_SIZES = {"tp": ("--tensor-parallel-size", "-tp"), "dp": ("--data-parallel-size", "-dp")}


def command_start(launch: Launch) -> int | None:
    words = launch.words()
    for i, w in enumerate(words):
        if _PYTHON.match(os.path.basename(w or "")) and words[i + 1:i + 2] == ["-m"] and \
                i + 2 < len(words) and words[i + 2] in _MODULES:
            return i + 3
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.frameworks.engine_read import not_derived, read_sizes

    out = Derivation(NAME, VERSIONS[-1])
    sizes, flags = read_sizes(launch.argv[command_start(launch):], _SIZES | {"role": ("--splitwise-role",)},
                              booleans=("--enable-expert-parallel",))
    role = sizes.pop("role")[1]
    ep = flags.boolean("--enable-expert-parallel")
    extra = {"expert_parallel": ep} | ({"splitwise_role": role.value} if role is not None else {})
    reason = ("engine not derived: FastDeploy" + (" (expert parallel: DeepEP buffers of PaddlePaddle's deep_ep port)"
                                                  if ep else ""))
    not_derived(out, launch, "FastDeploy", reason, sizes, extra)
    return out
