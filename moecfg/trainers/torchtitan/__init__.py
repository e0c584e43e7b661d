"""torchtitan (pytorch/torchtitan): `torchrun ... -m torchtitan.train <options>`, or the repository's `./run_train.sh
<options>` (NGPU ranks, run_train.sh:29): one training launch whose expert dispatch is torchtitan's own.

Two launch forms (releases.py). torchtitan 0.2 (the releases, pytorch/torchtitan@73a0e69 = v0.2.2): a TOML job
config (`--job.config_file`, read when it is inside the checked tree: config_file.py) under `--section.field` flags;
`--parallelism.expert_parallel_comm_backend deepep` on deepseek_v3 / llama4 makes DeepEP v1 `Buffer` calls, derived
onto moecfg's `kind: deepep` op (deepep.py). main (pytorch/torchtitan@b5bcd76): `--module M --config F`, F a Python
config function that sets the model, the degrees and the token dispatcher (standard all-to-all, DeepEP v2
ElasticBuffer, HybridEP, minimal_async_ep; torchtitan/models/common/config_utils.py:360-425): what the command line does
not say is not known, and a dispatch with expert parallelism is listed as not derived (Derivation.unread). Both forms
are checked as ParallelDims checks them (rules.py).
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

    from moecfg.trainers.torchtitan import releases

    form = releases.form(launch.words(), launch.env)
    out = Derivation(NAME, VERSIONS[-1] if form == "0.2" else "main (b5bcd76)" if form == "main" else VERSIONS[-1])
    derive_train(launch, ctx, out, command_start(launch))
    return out
