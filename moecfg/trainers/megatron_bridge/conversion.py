"""Megatron-Bridge's checkpoint conversion and inference launches: `scripts/conversion/convert.sh import|export|
roundtrip`, `scripts/inference/infer.sh`, and the scripts they (or torchrun) run on every rank: examples/conversion/
{hf_megatron_roundtrip_multi_gpu, hf_to_megatron_generate_*}.py, compare_hf_and_megatron/compare.py,
scripts/inference/{text,vlm}_generation.py. Each is a Megatron model over TP x PP x EP x ETP ranks.

Read at NVIDIA-NeMo/Megatron-Bridge@067f987:
- convert.sh execs setup_conversion.py (scripts/conversion/convert.sh:57), whose parser is arguments.py:23-299
  (--executor local, --device cpu for import/export and gpu for roundtrip, --nodes 1, -tp/-pp/-ep/-etp 1) and whose
  _validate_args refuses a launch before it starts (setup_conversion.py:66-141: TP/PP/EP/ETP >= 1, one node when local,
  roundtrip on GPU only, TP=PP=EP=ETP=1 on CPU, --gpus-per-node on GPU, nodes x gpus-per-node a multiple of TP x PP
  and of ETP x EP x PP); a GPU job runs gpus-per-node ranks per node (:152, :173);
- a conversion loads, converts and saves weights (scripts/conversion/gpu_backend.py:272-476 import_checkpoint,
  export_checkpoint, roundtrip_checkpoint; examples/conversion/hf_megatron_roundtrip_multi_gpu.py:153-340): no forward
  pass, no token dispatch, so no dispatcher buffer;
- a generation / comparison script runs forward passes with the model provider's token dispatcher, which each model's
  bridge sets in Python (src/megatron/bridge/models/*/..._bridge.py provider_bridge, e.g. glm/glm45_bridge.py:70
  alltoall, glm_moe_dsa/glm5_bridge.py:96-97 flex + hybridep): not read here, so listed as not derived;
- infer.sh execs setup_inference.py (scripts/inference/infer.sh:27), which runs the --task's script
  (setup_inference.py:33-39) as gpus-per-node tasks on each of --nodes (:194-204) with the words it does not know
  (parse_known_args, :247-249);
- the provider's initialize_model_parallel (src/megatron/bridge/models/model_provider.py:306-323) runs Megatron's
  (Bridge's pin NVIDIA/Megatron-LM@2a75ac1), which refuses a world size that is not a multiple of TP x PP x CP or of
  ETP x EP x PP (megatron/core/parallel_state.py:822-823, :881-884).
"""
from __future__ import annotations

import re

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch, Word
from moecfg.sources.textmap import Span
from moecfg.trainers import phases
from moecfg.trainers.megatron_bridge import releases, rules
from moecfg.trainers.megatron_bridge.entries import SCRIPTS, Script, _path

B = releases.BRIDGE
MEGATRON = "NVIDIA/Megatron-LM@2a75ac1"  # 3rdparty/Megatron-LM at Megatron-Bridge@067f987
_SIZE_NAMES = {"-tp": "tp", "--tp": "tp", "--tensor-parallel-size": "tp", "-pp": "pp", "--pp": "pp",
               "--pipeline-parallel-size": "pp", "-ep": "ep", "--ep": "ep", "--expert-parallel-size": "ep",
               "-etp": "etp", "--etp": "etp", "--expert-tensor-parallel-size": "etp"}  # arguments.py:108-143
_SCRIPT_SIZES = {"--tp": "tp", "--pp": "pp", "--ep": "ep", "--etp": "etp"}  # the examples' own parsers


# infer.sh --task -> the script it runs (scripts/inference/setup_inference.py:33-39; default text-generation, :66-69)
_TASKS = {"text-generation": "scripts/inference/text_generation.py",
          "legacy-full-prefix-generation": "examples/conversion/hf_to_megatron_generate_text.py",
          "vlm-generation": "scripts/inference/vlm_generation.py",
          "model-comparison": "examples/conversion/compare_hf_and_megatron/compare.py"}


class _Options:
    """`--name value` / `--name=value` words after the entry, last wins (argparse); `hidden`: words not known
    statically that are not an option's value (they may set any option again)."""

    def __init__(self, words: list[Word], switches: set[str]):
        self.values: dict[str, tuple[str | None, Span]] = {}
        self.switches: set[str] = set()
        self.hidden: list[Word] = []
        i = 0
        while i < len(words):
            w = words[i]
            i += 1
            if w.value is None:
                self.hidden.append(w)
                continue
            if not w.value.startswith("-"):
                continue
            name, eq, value = w.value.partition("=")
            if name in switches:
                self.switches.add(name)
            elif eq:
                self.values[name] = (value, w.span)
            elif i < len(words) and (words[i].value is None or not words[i].value.startswith("--")):
                self.values[name] = (words[i].value, words[i].span)
                i += 1

    def get(self, *names: str) -> tuple[str | None, Span] | None:
        """The last of these spellings written (argparse: the last occurrence of any alias wins)."""
        found = [(n, v) for n, v in self.values.items() if n in names]
        return found[-1][1] if found else None


_CONVERT_SWITCHES = {"--trust-remote-code", "--overwrite", "--exclusive", "--no-gpu-resource-request",
                     "--submission-dry-run", "--dry-run", "--detach", "--low-memory-save", "--no-progress",
                     "--not-strict", "--distributed-save", "--no-distributed-save", "-h", "--help"}
_SCRIPT_SWITCHES = {"--trust-remote-code", "--use-legacy-generation", "--use-coordinator", "--legacy-full-prefix",
                    "--apply-chat-template", "--sequence-parallel", "--return-log-probs", "--use-cpu-initialization",
                    "-h", "--help"}


def _sizes(opts: _Options, names: dict[str, str], defaults=(1, 1, 1, 1)) -> dict[str, tuple]:
    """tp / pp / ep / etp -> (value, where set); the parser's default where not written, None when not known."""
    out: dict[str, tuple[int | None, Span | None]] = dict(zip(("tp", "pp", "ep", "etp"),
                                                              ((d, None) for d in defaults)))
    for size in out:
        got = opts.get(*[n for n, s in names.items() if s == size])
        if got is not None:
            out[size] = (integer(got[0]) if got[0] is not None else None, got[1])
    if opts.hidden:  # a word not known statically may set a size again
        out = {k: (None if span is None else v, span) for k, (v, span) in out.items()}
    return out


def derive(launch: Launch, ctx: LaunchContext, out: Derivation, kind: str, at: int) -> None:
    out.version = releases.VERSION
    out.notes.append(Note("MC040", f"Megatron-Bridge version not given: read as Megatron-Bridge {releases.VERSION} "
                          f"({B}, the newest read)", launch.span))
    if kind == "convert":
        _convert(launch, out, at)
    elif kind == "infer":
        _infer(launch, out, at)
    else:
        _script(launch, out, at)


def _refused(out: Derivation, why: str, at: str, span: Span, fix: str) -> None:
    out.notes.append(Note(rules.CONVERSION_REFUSED.code, f"{why}: Megatron-Bridge raises ValueError before anything "
                          f"starts ({B} {at}); {fix}", span))


def _convert(launch: Launch, out: Derivation, at: int) -> None:
    sub = launch.argv[at + 1].value
    opts = _Options(list(launch.argv[at + 2:]), _CONVERT_SWITCHES)
    sizes = _sizes(opts, _SIZE_NAMES)
    device = opts.get("--device")
    device_value = device[0] if device else ("gpu" if sub == "roundtrip" else "cpu")  # arguments.py:35, :189
    executor = opts.get("--executor")
    nodes_at = opts.get("--nodes")
    nodes = integer(nodes_at[0]) if nodes_at and nodes_at[0] is not None else (1 if nodes_at is None else None)
    per_at = opts.get("--gpus-per-node", "--gpus_per_node")
    per = integer(per_at[0]) if per_at and per_at[0] is not None else None
    known = not opts.hidden
    where = launch.argv[at].span
    if known and _convert_refused(out, opts, sub, sizes, device_value, device, executor, nodes, nodes_at, per,
                                  per_at, where):
        return
    world = nodes * per if device_value == "gpu" and nodes and per and known else None
    how = f"--nodes {nodes} x --gpus-per-node {per} (one rank per GPU, setup_conversion.py:152, :173)" if world else \
        "not known statically" if device_value != "cpu" else "one CPU process"
    grid = _grid(sizes)
    backend = "scripts/conversion/cpu_backend.py:46-134" if device_value == "cpu" else \
        "scripts/conversion/gpu_backend.py:272-476"
    out.calls.append(OpCall(
        "convert", "none", None, {},
        {"engine": f"Megatron-Bridge checkpoint conversion (convert.sh {sub} -> scripts/conversion/run_conversion.py "
                   f"on {device_value}, {B})",
         "ranks": f"{world} ({how})" if world else how, "parallel": grid,
         "token dispatch": "none: a conversion loads, converts and saves weights and runs no forward pass "
                           f"({backend}), so it needs no dispatcher buffer"},
        why_none=f"checkpoint conversion (convert.sh {sub}, {grid}, ranks {world or how}): it runs no forward pass "
                 f"({backend}), so no token dispatch and no dispatcher buffer", quiet=sizes["ep"][0] == 1))


def _convert_refused(out, opts, sub, sizes, device_value, device, executor, nodes, nodes_at, per, per_at,
                     where) -> bool:
    """setup_conversion.py's _validate_args (scripts/conversion/setup_conversion.py:66-131) on values known."""
    S = "scripts/conversion/setup_conversion.py"
    required = {"import": ("--hf-model", "--megatron-path"), "export": ("--hf-model", "--megatron-path", "--hf-path"),
                "roundtrip": ("--hf-model",)}[sub]  # arguments.py:160, :165, :195-200, :267 (required=True)
    alias = {"--hf-model": ("--hf-model-id",)} if sub == "roundtrip" else {}
    missing = [r for r in required if opts.get(r, *alias.get(r, ())) is None]
    if missing:
        out.notes.append(Note(rules.CONVERSION_REFUSED.code, f"convert.sh {sub} without {', '.join(missing)}: its "
                              f"parser exits 2 ({B} scripts/conversion/arguments.py:160, :165, :195-200, :267, "
                              "required=True); add them", where))
        return True
    for size, (value, span) in sizes.items():
        if value is not None and value < 1:
            _refused(out, f"--{size} {value}", f"{S}:77-79 (--{size} must be at least 1)", span or where,
                     f"set --{size} 1 or more")
            return True
    if (executor[0] if executor else "local") == "local" and nodes is not None and nodes != 1:  # arguments.py:27-30
        _refused(out, f"--nodes {nodes} with the local executor", f"{S}:81-83 (Local execution supports exactly one "
                 "node)", nodes_at[1], "use --executor slurm or --nodes 1")
        return True
    if sub == "roundtrip" and device_value == "cpu":
        _refused(out, "convert.sh roundtrip on --device cpu", f"{S}:97-98 (Round-trip validation requires the GPU "
                 "backend)", device[1] if device else where, "use --device gpu")
        return True
    if device_value == "cpu":
        bad = [f"--{k} {v}" for k, (v, _) in sizes.items() if v is not None and v != 1]
        if bad:
            span = next(s for k, (v, s) in sizes.items() if v is not None and v != 1)
            _refused(out, f"{', '.join(bad)} on the CPU backend (--device {device_value}"
                     f"{'' if device else ', the default of convert.sh ' + sub})", f"{S}:108-110 (CPU conversion "
                     "requires TP=PP=EP=ETP=1)", span or where, "add --device gpu --gpus-per-node N, or drop the sizes")
            return True
        return False
    if device_value != "gpu":
        return False
    if per_at is None or (per is not None and per < 1):
        _refused(out, "GPU conversion without --gpus-per-node" if per_at is None else f"--gpus-per-node {per}",
                 f"{S}:111-113 (GPU conversion requires --gpus-per-node of at least 1)",
                 per_at[1] if per_at else where, "add --gpus-per-node N")
        return True
    if nodes is None or per is None or None in (v for v, _ in sizes.values()):
        return False
    world = nodes * per
    tp, pp, ep, etp = (sizes[k][0] for k in ("tp", "pp", "ep", "etp"))
    for product, text, size, lines in ((tp * pp, f"TP {tp} x PP {pp}", "tp", "124-128"),
                                       (etp * ep * pp, f"ETP {etp} x EP {ep} x PP {pp}", "ep", "129-131")):
        if world % product:
            span = sizes[size][1] or per_at[1]
            _refused(out, f"--nodes {nodes} x --gpus-per-node {per} = {world} GPUs is not a multiple of {text} = "
                     f"{product}", f"{S}:{lines} (nodes*gpus-per-node must be divisible by "
                     f"{'TP*PP' if size == 'tp' else 'ETP*EP*PP'})", span,
                     f"use a multiple of {product} GPUs or change the parallel sizes")
            return True
    return False


def _grid(sizes: dict) -> str:
    def said(k: str) -> str:
        v, span = sizes[k]
        return f"{k.upper()} {v if v is not None else '(not known statically)'}" + ("" if span else " (default)")
    return " x ".join(said(k) for k in ("tp", "pp", "ep", "etp"))


def _infer(launch: Launch, out: Derivation, at: int) -> None:
    """infer.sh: --task's script over --nodes x --gpus-per-node Slurm tasks."""
    opts = _Options(list(launch.argv[at + 1:]), _SCRIPT_SWITCHES)
    task_at = opts.get("--task")
    task = task_at[0] if task_at else "text-generation"
    script = next((s for s in SCRIPTS if task in _TASKS and s.name.search(_TASKS[task])), None)
    if script is None:
        phases.not_derived(out, launch, f"inference not derived: infer.sh --task {task or '(not known statically)'} "
                           f"(scripts/inference/setup_inference.py:33-39) is not a Megatron generation task read")
        return
    nodes_at, per_at = opts.get("--nodes"), opts.get("--gpus-per-node", "--gpus_per_node")
    nodes = integer(nodes_at[0]) if nodes_at and nodes_at[0] is not None else (1 if nodes_at is None else None)
    per = integer(per_at[0]) if per_at and per_at[0] is not None else None
    world = nodes * per if nodes and per and not opts.hidden else None
    how = (f"infer.sh --nodes {nodes} x --gpus-per-node {per} Slurm tasks "
           "(scripts/inference/setup_inference.py:194-204)")
    _rank_script(launch, out, script, opts, world, how, f"infer.sh --task {task}", launch.argv[at].span)


def _script(launch: Launch, out: Derivation, at: int) -> None:
    from moecfg.frameworks.megatron import parallel_sizes as P

    text = _path(launch.argv[at])
    script = next(s for s in SCRIPTS if s.name.search(text))
    opts = _Options(list(launch.argv[at + 1:]), _SCRIPT_SWITCHES)
    # `uv run python -m torch.distributed.run ...`: the launcher's words start at the python / torchrun word
    k = next((i for i, x in enumerate(launch.argv[:at]) if re.match(r"(?:.*/)?(?:python[0-9.]*|torchrun)$",
                                                                   x.value or "")), 0)
    view = Launch(launch.argv[k:], launch.env, launch.context, launch.image, launch.container, launch.hints)
    w = P.world(view, at - k + 1, absent_known=False)
    _rank_script(launch, out, script, opts, w.size, w.how, text.rsplit("/", 1)[-1], launch.argv[at].span)


def _rank_script(launch: Launch, out: Derivation, script: Script, opts: _Options, world: int | None, how: str,
                 name: str, where: Span) -> None:
    sizes = _sizes(opts, _SCRIPT_SIZES, script.defaults) if script.sizes_at else \
        {k: (1, None) for k in ("tp", "pp", "ep", "etp")}
    if not script.etp:
        sizes["etp"] = (None, None)
    if script.name.search("scripts/inference/text_generation.py") and not opts.hidden:
        ep = sizes["ep"][0]
        if ep and ep > 1 and not {"--use-coordinator", "--use-legacy-generation"} & opts.switches:
            _refused(out, f"--ep {ep} without --use-coordinator (dynamic generation)", "scripts/inference/"
                     "text_generation.py:97-98 (--use-coordinator is required when --ep is greater than 1)",
                     sizes["ep"][1] or where, "add --use-coordinator, or --use-legacy-generation")
            return
    note = None if opts.hidden or script.gone else _megatron_world(world, how, sizes, where)
    if note is not None:
        out.notes.append(note)
        return
    role = "infer" if script.dispatches else "convert"
    ranks = f"{world} ({how})" if world else f"not known statically ({how})"
    release = f"Megatron-Bridge before {script.gone}" if script.gone else B
    derivation = {"engine": f"Megatron-Bridge {script.what} ({name}, {release})", "ranks": ranks,
                  "parallel": _grid(sizes)}
    if not script.dispatches:
        derivation["token dispatch"] = ("none: a conversion loads, converts and saves weights and runs no forward "
                                        "pass, so it needs no dispatcher buffer")
        out.calls.append(OpCall(role, "none", None, {}, derivation, why_none=f"{script.what} ({name}, {_grid(sizes)}"
                                f", ranks {world or 'not known statically'}{', ' + release if script.gone else ''}): "
                                "it runs no forward pass, so no token dispatch and no dispatcher buffer",
                                quiet=sizes["ep"][0] == 1))
        return
    ep = sizes["ep"][0]
    if ep == 1:
        derivation["token dispatch"] = "EP 1: no expert-parallel dispatch"
        out.calls.append(OpCall(role, "none", None, {}, derivation, why_none=f"{script.what} ({name}) with EP 1: no "
                                "expert-parallel dispatch", quiet=True))
        return
    phases.not_derived(out, launch, f"inference dispatcher not derived: {script.what} ({name}) over EP "
                       f"{ep if ep is not None else '(not known statically)'} runs the model provider's "
                       "moe_token_dispatcher_type, set in Python by the model's bridge (provider_bridge): not read")


def _megatron_world(world: int | None, how: str, sizes: dict, where: Span) -> Note | None:
    """MC983: Megatron's own divisibility checks, reached through the provider's initialize_model_parallel."""
    from moecfg.frameworks.megatron import parallel_sizes as P
    from moecfg.frameworks.megatron.rules import WORLD_INDIVISIBLE

    values = {k: v for k, (v, _) in sizes.items()}
    if world is None or None in values.values() or min(values.values()) < 1:
        return None
    bad = P.indivisible(world, values["tp"], values["pp"], 1, values["ep"], values["etp"], True)
    if bad is None:
        return None
    size = "ep" if bad.expert else "pp" if "pipeline" in bad.flag else "tp"
    span = sizes[size][1] or where
    fix = f"set --{size} {bad.fit}" if bad.fit else "change the parallel sizes"
    lines = ":881-884" if bad.expert else ":822-823"
    return Note(WORLD_INDIVISIBLE.code, f"world size {world} ({how}) is not a multiple of {bad.text} = {bad.product}: "
                f"Megatron raises RuntimeError when the model provider initialises its parallel groups ({MEGATRON} "
                f"megatron/core/parallel_state.py{lines}; {B} src/megatron/bridge/models/model_provider.py:306-323); "
                f"{fix}, or start a multiple of {bad.product} ranks", span)
