"""Which launches are MindSpeed's, and the world size their launcher starts.

A MindSpeed launch is a Megatron entry-script launch (`pretrain_gpt.py`, `posttrain_gpt.py`: frameworks/megatron's
command_start) with a sign of MindSpeed or Ascend; without one the launch stays Megatron-LM's (GPU). Signs:
- the launcher is `msrun` (MindSpore's, used by MindSpeed-LLM's examples/mindspore/ scripts);
- a flag only MindSpeed / MindSpeed-LLM registers (MINDSPEED_FLAGS; none of them is in Megatron-LM's
  megatron/training/arguments.py at core_v0.12.1 nor at main);
- an Ascend variable in the launch's environment (HCCL_*, ASCEND_*, PYTORCH_NPU_*, TASK_QUEUE_ENABLE, CPU_AFFINITY_CONF);
- CANN's environment script sourced before it (`source /usr/local/Ascend/ascend-toolkit/set_env.sh`, the step every
  MindSpeed-LLM install guide and data/checkpoint script starts with: Ascend/MindSpeed-LLM@c77308a
  docs/zh/pytorch/training/install_guide.md:147-153), read or not: a path with an `Ascend/` or `ascend-toolkit` folder.

World size: msrun `--worker_num` (default 8: mindspore-ai/mindspore@47c6672
mindspore/python/mindspore/parallel/cluster/run.py:26-31; every msrun option takes a value); torchrun /
`python -m torch.distributed.run|launch`: `--nproc_per_node` (or --nproc-per-node, default 1) x `--nnodes` (default
1; an elastic range `1:4` is unknown); `python pretrain_gpt.py` alone: unknown (WORLD_SIZE comes from elsewhere).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from moecfg.frameworks.values import integer
from moecfg.sources.yaml_source import Span

MINDSPEED_FLAGS = frozenset((
    "--hccl-group-buffer", "--hccl-group-buffer-adaptive", "--hccl-ep-group-buffer-adaptive-factor", "--hccl-op-mode",
    "--moe-permutation-async-comm", "--moe-tp-extend-ep", "--moe-alltoall-overlap-comm", "--moe-allgather-overlap-comm",
    "--moe-fb-overlap", "--moe-zero-memory", "--use-ascend-mc2", "--moe-alltoall-mc2", "--n-shared-experts",
    "--first-k-dense-replace", "--noop-layers", "--context-parallel-algo", "--use-fused-rmsnorm", "--use-fused-swiglu",
    "--use-fused-rotary-pos-emb", "--ai-framework"))
ASCEND_ENV_PREFIXES = ("HCCL_", "ASCEND_", "PYTORCH_NPU_")
ASCEND_ENV = frozenset(("TASK_QUEUE_ENABLE", "CPU_AFFINITY_CONF"))
_CANN_SCRIPT = re.compile(r"(?:^|/)(?:Ascend|ascend-toolkit)/")
MSRUN_DEFAULT_WORKERS = 8
_MSRUN = "mindspore-ai/mindspore@47c6672 mindspore/python/mindspore/parallel/cluster/run.py:26-31"


def program(launch) -> str:
    """`msrun`, `torchrun`, `torch.distributed.run` / `.launch` (python -m), else `python`."""
    words = [w.value or "" for w in launch.argv[:4]]
    first = os.path.basename(words[0]) if words else ""
    if first in ("msrun", "torchrun"):
        return first
    if "-m" in words:
        module = words[words.index("-m") + 1] if words.index("-m") + 1 < len(words) else ""
        if module in ("torch.distributed.run", "torch.distributed.launch"):
            return module
    return "python"


def sign(launch, start: int) -> str | None:
    """Why this Megatron launch is MindSpeed's (words for the derivation), or None."""
    if program(launch) == "msrun":
        return "launched by msrun (MindSpore's launcher)"
    for word in launch.argv[start:]:
        head = (word.value or "").split("=", 1)[0]
        if head in MINDSPEED_FLAGS:
            return f"{head} (a MindSpeed flag)"
    for name in launch.env:
        if name.startswith(ASCEND_ENV_PREFIXES) or name in ASCEND_ENV:
            return f"{name} in the environment (Ascend)"
    for path, span in launch.sourced:
        if _CANN_SCRIPT.search(path):
            return f"sources {path} (line {span.line}: CANN's Ascend environment)"
    return None


@dataclass(frozen=True, slots=True)
class World:
    size: int | None  # None: not known statically
    how: str
    spans: tuple[Span, ...] = ()
    written: bool = False  # size None although the launcher's size option is written (`--worker_num 0`)


def _options(words) -> dict[str, tuple[str | None, Span]]:
    """--name value / --name=value of the launcher's own words (last wins, as argparse)."""
    out: dict[str, tuple[str | None, Span]] = {}
    for i, w in enumerate(words):
        text = w.value
        if text is None or not text.startswith("--"):
            continue
        name, eq, inline = text.partition("=")
        if eq:
            out[name.replace("-", "_")] = (inline, w.span)
        elif i + 1 < len(words):  # the span runs from the option through its value
            v = words[i + 1].span
            out[name.replace("-", "_")] = (words[i + 1].value, Span(w.span.line, w.span.column, v.end_line,
                                                                    v.end_column) if v.line >= w.span.line else v)
    return out


_SIZES = ("--worker_num", "--nproc_per_node", "--nproc-per-node", "--nnodes")


def _hidden(words):
    """The first unknown word that may hide a size option: not the value of the option before it, and not an
    `--option=$X` of another option."""
    for i, w in enumerate(words):
        if w.value is not None:
            continue
        before = words[i - 1].value if i else None
        if before and before.startswith("--") and "=" not in before and before not in _SIZES:
            continue  # `--master_addr $IP`: a value
        text = w.pattern or ""
        if text.startswith("--") and "=" in text and text.split("=", 1)[0] not in _SIZES:
            continue  # `--log_dir=$DIR`
        return w
    return None


def world(launch, start: int) -> World:
    """The world size the launcher starts (`start`: the index after the entry script)."""
    prog = program(launch)
    own = launch.argv[1:max(start - 1, 1)]
    hidden = _hidden(own)
    if hidden is not None:  # `$DISTRIBUTED_ARGS` from an unset variable: --worker_num / --nnodes may be in it
        i = own.index(hidden)
        size_value = (i > 0 and own[i - 1].value in _SIZES) or (hidden.pattern or "").split("=", 1)[0] in _SIZES
        how = f"{own[i - 1].value} (not known statically)" if size_value and i > 0 and own[i - 1].value in _SIZES \
            else f"{prog}: an argument word of the launcher is not known statically"
        return World(None, how, (hidden.span,), size_value)
    opts = _options(own)
    if prog == "msrun":
        text, span = opts.get("__worker_num", (str(MSRUN_DEFAULT_WORKERS), None))
        n = integer(text) if text is not None else None
        said = f"msrun --worker_num {text}" if span else f"msrun's default --worker_num {MSRUN_DEFAULT_WORKERS} ({_MSRUN})"
        return World(n if n and n > 0 else None, said, (span,) if span else (), bool(span) and not (n and n > 0))
    if prog == "python":
        return World(None, "no launcher: the world size comes from the environment of the process")
    nproc, nspan = opts.get("__nproc_per_node", ("1", None))
    nodes, dspan = opts.get("__nnodes", ("1", None))
    per, count = integer(nproc) if nproc else None, integer(nodes) if nodes else None
    spans = tuple(s for s in (nspan, dspan) if s)
    if not per or not count or per < 1 or count < 1:
        return World(None, f"{prog} --nproc_per_node {nproc} x --nnodes {nodes}: not known statically", spans,
                     bool(spans))
    return World(per * count, f"{prog} --nproc_per_node {per} x --nnodes {count}", spans)
