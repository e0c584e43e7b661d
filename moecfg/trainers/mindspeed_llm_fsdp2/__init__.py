"""MindSpeed-LLM FSDP2 training (Ascend/MindSpeed-LLM, `torchrun ... train_fsdp2.py <config>.yaml`): a config
(sources/recipes/mindspeed_llm_fsdp2.py, `mindspeed-llm-fsdp2 parallel.<key>=<value> ...`) is one training launch
whose expert parallelism is MindSpeed-LLM's own; the shell launch names the config, read as its own file.

Read at Ascend/MindSpeed-LLM@c77308a: mindspeed_llm/fsdp2/utils/arguments.py:371-503 (ParallelArguments),
mindspeed_llm/fsdp2/distributed/expert_parallel/expert_parallel.py:127-142 (the dispatchers: eager and fused run
torch all_to_all_single over the EP group, dispatcher.py:138-181; mc2 runs fsdp_turbo's all2all_grouped_matmul /
grouped_matmul_all2all, dispatcher_mc2.py, whose code moecfg has not read: listed as not derived).
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch
from moecfg.trainers import config_launch as C

NAME = "mindspeed-llm-fsdp2"
VERSIONS = ("c77308a",)
COMMAND = "mindspeed-llm-fsdp2"
_ENTRY = re.compile(r"(?:^|/)(?:train|inference)_fsdp2\.py$")


_RUNNERS = ("torchrun", "python", "msrun", "deepspeed")


def _entry(launch: Launch) -> int | None:
    """The entry script's word, run by a launcher before it (a drawn tree `└── train_fsdp2.py` or `cp` names it)."""
    at = C.entry_script(launch, _ENTRY, None, after_python=False)
    words = launch.words()
    if at is None or not any(os.path.basename(w or "").startswith(_RUNNERS) for w in words[:at]):
        return None
    return at


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return C.is_config(launch, COMMAND) or _entry(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.mindspeed_llm_fsdp2.calls import derive_train

    out = Derivation(NAME, VERSIONS[-1])
    if not C.is_config(launch, COMMAND):
        at = _entry(launch)
        C.only_named(out, launch, C.named_config(launch, None, at), "")
        return out
    derive_train(launch, ctx, out)
    return out
