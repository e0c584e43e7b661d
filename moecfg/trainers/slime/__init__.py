"""slime (THUDM/slime): `ray job submit ... -- python3 train.py <args>` (or train_async.py), one launch of two phases.

- train: the Megatron-LM arguments go to Megatron's own parser (slime/backends/megatron_utils/arguments.py:193-206:
  parse_args(ignore_unknown_args=True), world_size = --actor-num-nodes x --actor-num-gpus-per-node);
- rollout: every SGLang ServerArgs flag is re-registered as `--sglang-<flag>` (slime/backends/sglang_utils/
  arguments.py:41-123) and one SGLang server runs per engine of --rollout-num-gpus-per-engine GPUs
  (sglang_engine.py:506-546: tp_size = GPUs / --sglang-pp-size, nnodes = GPUs / --num-gpus-per-node, model_path =
  --hf-checkpoint).
Read at THUDM/slime@624b824; calls.py writes both command lines, frameworks/megatron and frameworks/sglang derive them.
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "slime"
VERSIONS = ("0.3.1",)
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_ENTRIES = ("train.py", "train_async.py")
# flags only slime defines (slime/utils/arguments.py:39-75, 307): a `train.py` with none of them is someone else's
_OWN = ("--rollout-num-gpus-per-engine", "--actor-num-gpus-per-node", "--actor-num-nodes", "--hf-checkpoint",
        "--rollout-num-gpus", "--colocate", "--rollout-batch-size", "--n-samples-per-prompt")


def command_start(launch: Launch) -> int | None:
    """Index of the first argument after `python3 [-u] train.py` (or train_async.py, `${SLIME_DIR}/train.py`) when
    slime's own flags follow."""
    words = launch.words()
    for i, w in enumerate(words[:-1]):
        if not (w and _PYTHON.match(os.path.basename(w))):
            continue
        j = i + 1
        while j < len(words) and words[j] and words[j].startswith("-") and words[j] not in ("-m", "-c"):
            j += 1  # python's own options (-u, -O, -X dev takes one word: rare in launch scripts)
        entry = launch.argv[j] if j < len(words) else None
        text = entry.value if entry is not None and entry.value is not None else getattr(entry, "pattern", None)
        if text and os.path.basename(text) in _ENTRIES:
            rest = words[j + 1:]
            if any(r and (r.split("=", 1)[0] in _OWN or r.startswith("--sglang-")) for r in rest):
                return j + 1
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return command_start(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.slime.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    derive_phases(launch, ctx, out, command_start(launch))
    return out
