"""The world size a Megatron launch starts and the parallel sizes it must divide, shared by frameworks/megatron
(GPU, MC983) and frameworks/mindspeed (Ascend, MC927).

Megatron refuses a world size that is not a multiple of TP x PP x CP or of expert-TP x EP x PP:
- NVIDIA/Megatron-LM@d98e8a6 megatron/training/arguments.py:424-434 (assert world_size % total_model_size, TP x PP x
  CP x GTP; GTP = --tensor-parallel-num-weight-shards / TP, 1 without it), :587-588 (expert-TP defaults to TP);
  megatron/core/parallel_state.py:816-823 (RuntimeError 'world_size (..) is not divisible by ..'), :874-884
  (expert-TP x EP x PP x expert-GTP, RuntimeError '.. not divisible by expert_tensor_model_pipeline_parallel size').
- NVIDIA/Megatron-LM@a845aa7 (core_v0.12.1, MindSpeed-LLM's) megatron/core/parallel_state.py:629-630, :698-703.
Sizes that do not come from the command line are unknown: --use-checkpoint-args (arguments.py:91-101 loads TP / PP /
EP from the checkpoint, checkpointing.py:2357-2363; at a845aa7 initialize.py:71-80) and --yaml-cfg
(arguments.py:103-107, 137-140).

World size: msrun `--worker_num` (default 8: mindspore-ai/mindspore@47c6672
mindspore/python/mindspore/parallel/cluster/run.py:26-31; every msrun option takes a value); torchrun /
`python -m torch.distributed.run|launch`: `--nproc_per_node` (or --nproc-per-node) x `--nnodes`; an elastic range
`1:4`, `gpu` / `auto` are unknown. Absent, torch takes PET_NPROC_PER_NODE / PET_NNODES from the environment, else
"1" / "1:1" (pytorch/pytorch@f34fa15 torch/distributed/run.py get_args_parser, action=env; argparse_util.py
class env) — Kubeflow's PyTorchJob sets those variables, so the GPU Megatron check treats an absent option as
unknown (MindSpeed keeps torch's default 1). `python pretrain_gpt.py` alone: unknown (WORLD_SIZE comes from elsewhere).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from moecfg.frameworks.values import integer
from moecfg.sources.textmap import Span

MSRUN_DEFAULT_WORKERS = 8
_MSRUN = "mindspore-ai/mindspore@47c6672 mindspore/python/mindspore/parallel/cluster/run.py:26-31"
MEGATRON = "NVIDIA/Megatron-LM@d98e8a6"
SIZES_ELSEWHERE = ("--use-checkpoint-args", "--yaml-cfg")  # the sizes come from a checkpoint or a YAML file


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


def world(launch, start: int, absent_known: bool = True) -> World:
    """The world size the launcher starts (`start`: the index after the entry script). `absent_known`: a torchrun
    size option not written (nor in PET_*) is torch's default 1; False: unknown."""
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
    nproc, nspan = _torchrun_option(launch, opts, "__nproc_per_node", "PET_NPROC_PER_NODE", "1", absent_known)
    nodes, dspan = _torchrun_option(launch, opts, "__nnodes", "PET_NNODES", "1", absent_known)
    per, count = integer(nproc) if nproc else None, integer(nodes) if nodes else None
    spans = tuple(s for s in (nspan, dspan) if s)
    if not per or not count or per < 1 or count < 1:
        return World(None, f"{prog} --nproc_per_node {nproc or '(absent)'} x --nnodes {nodes or '(absent)'}: not "
                     "known statically", spans, bool(spans))
    return World(per * count, f"{prog} --nproc_per_node {per} x --nnodes {count}", spans)


def _torchrun_option(launch, opts, name: str, pet: str, default: str, absent_known: bool):
    """(text, span) of a torchrun size option: written, else PET_<NAME> in the launch's environment (torch reads it
    as the option's default), else torch's default when the caller accepts it, else (None, None): unknown."""
    if name in opts:
        return opts[name]
    entry = launch.env.get(pet)
    if entry is not None:
        return entry.value, entry.span
    return (default, None) if absent_known else (None, None)


@dataclass(frozen=True, slots=True)
class Indivisible:
    """A product of parallel sizes the world size is not a multiple of, and the fix in the user's flags."""

    product: int
    text: str  # "TP 8 x PP 4 x CP 1"
    expert: bool  # the expert grid (expert-TP x EP x PP), else the dense one (TP x PP x CP)
    flag: str  # the flag the fix names
    fit: int | None  # the largest value of `flag` (<= its value) that divides the world size, None: none does

    def fix(self, world_size: int) -> str:
        return f"set {self.flag} {self.fit}" if self.fit else "change the parallel sizes"


def indivisible(world_size: int, tp: int, pp: int, cp: int, ep: int, etp: int, moe: bool) -> Indivisible | None:
    """The first of Megatron's two divisibility checks the world size fails, or None. The fix lowers the size Megatron
    checks last in the product (PP for the dense grid when TP alone fits, else TP; EP for the expert grid)."""
    checks = [(tp * pp * cp, f"TP {tp} x PP {pp} x CP {cp}", False,
               [("--pipeline-model-parallel-size", pp, tp * cp), ("--tensor-model-parallel-size", tp, pp * cp)])]
    if moe:
        checks.append((etp * ep * pp, f"expert-TP {etp} x EP {ep} x PP {pp}", True,
                       [("--expert-model-parallel-size", ep, etp * pp)]))
    for product, text, expert, options in checks:
        if world_size % product == 0:
            continue
        for flag, value, rest in options:
            fit = _fit(world_size, value, rest)
            if fit:
                return Indivisible(product, text, expert, flag, fit)
        return Indivisible(product, text, expert, options[0][0], None)
    return None


def _fit(world_size: int, value: int, rest: int) -> int | None:
    """The largest v <= value with world_size % (v x rest) == 0 (rest: the product of the other sizes), or None."""
    if world_size % rest:
        return None
    return next((v for v in range(min(value, world_size), 0, -1) if world_size % (v * rest) == 0), None)
