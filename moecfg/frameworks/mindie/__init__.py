"""MindIE-LLM (Huawei's Ascend serving stack): a `config.json` read as `mindie_llm_server --key value ...`
(sources/vendor/mindie.py synthesises the command; every word carries its JSON key's span).

Read at Ascend/MindIE-LLM@8b4871a (the v3.0.0 line): the torch backend's ParallelInfoManager
(mindie_llm/runtime/utils/distributed/parallel_info_manager.py), MoE strategy table and MC2 token dispatcher
(mindie_llm/runtime/layers/fused_moe/) -> op calls per phase (torch_backend.py, choose.py); the atb backend's HCCL buffers
and validator (atb.py); the memory the communicators take (memory.py). layout.py reads the entry once.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "mindie"
VERSIONS = ("3.0.0",)


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    from moecfg.sources.vendor.mindie import COMMAND

    return launch.context == "mindie" and bool(launch.argv) and launch.argv[0].value == COMMAND


def derive(launch: Launch, ctx: LaunchContext, version: str = VERSIONS[-1]) -> Derivation:
    from moecfg.frameworks.mindie import calls

    out = Derivation(NAME, version)
    calls.derive(launch, ctx, out)
    return out
