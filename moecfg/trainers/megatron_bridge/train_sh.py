"""`scripts/training/train.sh [--nodes N] --gpus-per-node G [Slurm options] --recipe R [run_recipe.py arguments]` -> the
run_recipe.py train it submits (calls.py), over N x G ranks.

Read at NVIDIA-NeMo/Megatron-Bridge@067f987:
- train.sh execs scripts/training/setup_experiment.py with its arguments (scripts/training/train.sh:26);
- setup_experiment.py's parser owns the Slurm options (scripts/training/setup_experiment.py:65-139: --nodes 1,
  --gpus-per-node required, ...) and forwards every other word unchanged to run_recipe.py (parse_known_args,
  :302-304, :309, :322-330);
- its _validate_args refuses a launch without --gpus-per-node, or with fewer than one node (:189-194);
- the job is --nodes nodes of --gpus-per-node Slurm tasks (:270-275), each running run_recipe.py: one rank per GPU.
"""
from __future__ import annotations

import re

from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch, Word
from moecfg.trainers.megatron_bridge import releases, rules

B = releases.BRIDGE
_S = "scripts/training/setup_experiment.py"
# setup_experiment.py's own options (:65-139): those taking a value, then its switches; `--x=v` forms too
_VALUED = {"--nodes", "--gpus-per-node", "--gpus_per_node", "--account", "--partition", "--time", "--gres",
           "--additional-slurm-params", "--additional_slurm_params", "--container-image", "--mount", "--env",
           "--srun-arg", "-lmc", "--peak-mem-clk", "--peak_mem_clk", "--experiment-name"}
_SWITCHES = {"--no-gpu-resource-request", "--submission-dry-run", "--dry-run", "--wait"}
_SYNOPSIS = re.compile(r"^\[|\]$|^<[^<>]*>$")  # scripts/training/README.md:6 `train.sh [launch options] ...`


def derive(launch: Launch, ctx: LaunchContext, out: Derivation, at: int) -> None:
    from moecfg.trainers.megatron_bridge.calls import derive_train

    own, forwarded, hidden = _split(launch.argv[at + 1:])
    nodes_at, per_at = own.get("--nodes"), own.get("--gpus-per-node") or own.get("--gpus_per_node")
    nodes = integer(nodes_at.value) if nodes_at is not None and nodes_at.value is not None else \
        (1 if nodes_at is None else None)
    per = integer(per_at.value) if per_at is not None and per_at.value is not None else None
    entry_word = launch.argv[at]
    if not hidden and (per_at is None or per is not None and per < 1 or nodes is not None and nodes < 1):
        bad = "--gpus-per-node not given" if per_at is None else f"--gpus-per-node {per}" if per is not None and \
            per < 1 else f"--nodes {nodes}"
        out.version = releases.VERSION
        out.notes.append(Note(rules.CONVERSION_REFUSED.code, f"{bad}: setup_experiment.py raises ValueError before it "
                              f"submits the job ({B} {_S}:191-194, --gpus-per-node is required and must be at least "
                              "1; --nodes at least 1); add --gpus-per-node N", (per_at or nodes_at or entry_word).span))
        return
    if per is not None and nodes is not None and not hidden:
        span = per_at.span
        ranks = [Word("torchrun", span, exact=False), Word(f"--nproc_per_node={per}", span, exact=False),
                 Word(f"--nnodes={nodes}", (nodes_at or per_at).span, exact=False)]
    else:  # a word not known statically may set --nodes / --gpus-per-node again: the world is not known
        ranks = [Word("torchrun", entry_word.span, exact=False), Word(None, entry_word.span, exact=False)]
    runner = Word("scripts/training/run_recipe.py", entry_word.span, exact=False)
    train = Launch(tuple(ranks + [runner] + forwarded + hidden), launch.env, launch.context, launch.image,
                   launch.container, launch.hints, launch.sourced)
    derive_train(train, ctx, out, len(ranks))


def _split(words) -> tuple[dict[str, Word], list[Word], list[Word]]:
    """setup_experiment.py's own options (name -> the value's word), the words it forwards to run_recipe.py, and
    the words not known statically (they may be either)."""
    own: dict[str, Word] = {}
    forwarded: list[Word] = []
    hidden: list[Word] = []
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w.value is None or _SYNOPSIS.match(w.value):  # `[launch options]` of a usage line: stands for any words
            hidden.append(Word(None, w.span, exact=False))
            continue
        name, eq, value = w.value.partition("=")
        if name in _SWITCHES:
            continue
        if name in _VALUED:
            if eq:
                own[name] = Word(value, w.span, w.exact)
            elif i < len(words):
                own[name] = words[i]
                i += 1
            continue
        forwarded.append(w)
    return own, forwarded, hidden
