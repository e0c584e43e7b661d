"""TensorRT-LLM's server: `trtllm-serve [serve] MODEL --tp_size 16 --ep_size 8 --pp_size 1` (NVIDIA/TensorRT-LLM,
tensorrt_llm/commands/serve.py click options).

Recognised and read (TP / EP / PP sizes); not derived: TensorRT-LLM runs its own wide-EP all-to-all (no DeepEP
Buffer), which moecfg has no op for. The launch is listed as not derived.
"""
from __future__ import annotations

import os

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "trtllm"
VERSIONS = ("unversioned",)
_SIZES = {"tp": ("--tp_size",), "ep": ("--ep_size",), "pp": ("--pp_size",)}


def command_start(launch: Launch) -> int | None:
    words = launch.words()
    for i, w in enumerate(words):
        if os.path.basename(w or "") == "trtllm-serve":
            return i + 2 if words[i + 1:i + 2] == ["serve"] else i + 1
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.frameworks.engine_read import not_derived, read_sizes

    out = Derivation(NAME, VERSIONS[-1])
    sizes, _ = read_sizes(launch.argv[command_start(launch):], _SIZES, underscores=False)
    not_derived(out, launch, "TensorRT-LLM", "engine not derived: TensorRT-LLM (its own wide-EP all-to-all, no DeepEP)",
                sizes)
    return out
