"""torchtitan (pytorch/torchtitan): `torchrun ... -m torchtitan.train --module <model> --config <config function>
[--parallelism.<degree> N ...]`, or the repository's `./run_train.sh --parallelism...` (NGPU ranks, run_train.sh:29):
one training launch whose expert dispatch is torchtitan's own token dispatcher.

Read at pytorch/torchtitan@b5bcd76: torchtitan/config/configs.py:121-282 (ParallelismConfig defaults),
torchtitan/distributed/parallel_dims.py:166-191 (its checks), torchtitan/models/common/config_utils.py:360-425 (the
comm backend: standard all-to-all, DeepEP v2 ElasticBuffer, HybridEP, minimal_async_ep, set by the Python config
function). moecfg sizes none of torchtitan's buffers (DeepEP v2's ElasticBuffer is not DeepEP v1's Buffer): a launch
with expert parallelism is read and its dispatch listed as not derived (Derivation.unread).
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "torchtitan"
VERSIONS = ("0.2.2",)  # assets/version.txt
_FILE = re.compile(r"(?:^|/)torchtitan/train\.py$")


def command_start(launch: Launch) -> int | None:
    """Index after the torchtitan entry (`-m torchtitan.train`, torchtitan/train.py, ./run_train.sh), or None."""
    words = launch.words()
    for i, w in enumerate(words):
        if w == "-m" and i + 1 < len(words) and words[i + 1] == "torchtitan.train":
            return i + 2
        if w and _FILE.search(w):
            return i + 1
        if i == 0 and w and os.path.basename(w) == "run_train.sh" and any(
                (x or "").startswith(("--parallelism.", "--job.", "--training.", "--module", "--config"))
                for x in words[1:]):
            return 1
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.torchtitan.calls import derive_train

    out = Derivation(NAME, VERSIONS[-1])
    derive_train(launch, ctx, out, command_start(launch))
    return out
