"""MindSpeed-LLM training launches on Ascend: `msrun ... pretrain_gpt.py ...`, `torchrun` / `python -m
torch.distributed.launch ... pretrain_gpt.py | posttrain_gpt.py ...` with MindSpeed's flags or an Ascend environment
(launcher.py decides; a GPU Megatron-LM launch stays frameworks/megatron's).

Derived: the world size from the launcher, TP / PP / CP / EP / expert-TP, the dispatcher, the HCCL buffer of every
process group (MindSpeed's --hccl-group-buffer / --hccl-group-buffer-adaptive, else HCCL_BUFFSIZE) and the per-rank
memory table. Read at Ascend/MindSpeed@028de58 (mindspeed/core/hccl_buffer/, features_manager/), Ascend/MindSpeed-LLM
@c77308a (examples/, its install guide pinning Megatron-LM core_v0.12.1) and NVIDIA/Megatron-LM@a845aa7 (core_v0.12.1).
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "mindspeed"
VERSIONS = ("master@028de58",)


def _start(launch: Launch) -> int | None:
    from moecfg.frameworks.megatron import command_start

    return command_start(launch)


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    from moecfg.frameworks.mindspeed.launcher import sign

    start = _start(launch)
    return start is not None and sign(launch, start) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.frameworks.mindspeed.calls import derive_call
    from moecfg.frameworks.mindspeed.launcher import sign

    start = _start(launch)
    out = Derivation(NAME, VERSIONS[-1])
    call, notes = derive_call(launch, ctx, start, sign(launch, start) or "")
    out.notes.extend(notes)
    if call is not None:
        out.calls.append(call)
    return out
