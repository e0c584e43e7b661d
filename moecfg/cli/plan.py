"""`moecfg plan` (what should I set?) and `moecfg sweep` (how does the buffer grow?), for `--kind ascend`
(HCCL_BUFFSIZE, bs, EP sizes) and `--kind deepep` (num_nvl_bytes / num_rdma_bytes, tokens per rank, num_ranks).

Imported only when `plan` or `sweep` runs (cli/__init__.py); the planner is imported inside the commands.
"""
from __future__ import annotations

import sys

import click

from moecfg.cli.runner import not_empty
from moecfg.core.diagnostics import clip

PLAN_FORMATS = ("text", "json")
MAX_POINTS = 1024  # candidates of one plan / points of one sweep: each is judged by the real rules
MAX_SWEEP = 16384  # points x series of one sweep (about 5 s of DeepEP normal-mode sizing)
MAX_VALUE = 1 << 24  # ranks, tokens per rank: far above any deployment, small enough for the formulas


def _ints(text: str | None, what: str):
    """'32' -> [32]; '8:64' -> 8..64; '8:64:8' -> 8, 16, ..., 64; '16,32,64' -> those."""
    if text is None:
        return None
    try:
        if ":" in text:
            parts = [_int(x) for x in text.split(":")]
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] <= 0):
                raise ValueError
            lo, hi, step = parts[0], parts[1], parts[2] if len(parts) == 3 else 1
            values = range(lo, hi + 1, step)  # its length is known without building it
        else:
            values = [_int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise click.UsageError(f"{what} {clip(text)!r}: write N, LO:HI, LO:HI:STEP or a comma list") from None
    if len(values) > MAX_POINTS:
        raise click.UsageError(f"{what} {clip(text)!r} gives {len(values)} values; at most {MAX_POINTS} per run "
                               "(give a STEP, e.g. 8:8192:8, or a shorter range)")
    if not values or min(values) < 1 or max(values) > MAX_VALUE:
        raise click.UsageError(f"{what} {clip(text)!r}: values must be 1 to {MAX_VALUE} and the range not empty")
    return list(values)


def _cap_sweep(points: int, series: int, flags: str) -> None:
    if points * series > MAX_SWEEP:
        raise click.UsageError(f"{points} points x {series} series ({flags}) = {points * series} computations; at "
                               f"most {MAX_SWEEP} per sweep (fewer series or a coarser STEP)")


def _int(text: str) -> int:
    """ASCII digits only, at most 18 (int() also reads other Unicode digits, and raises on 5000 of them)."""
    t = text.strip()
    if not (t.isascii() and t.lstrip("-").isdigit() and len(t) <= 18):
        raise ValueError(text)
    return int(t)


def _base(product, model, model_config, comm_alg, redundant, sets) -> tuple[dict, str]:
    """The fixed part of an ascend document from the options, and a note on where the model comes from."""
    base = {"product": product} if product else {}
    note = _model(base, "ascend", model, model_config)
    if comm_alg is not None:
        base["comm_alg"] = comm_alg
    _extras(base, redundant, sets)
    if "product" not in base:
        raise click.UsageError("give --product A2|A3 (or --set product=...)")
    return base, note


def _model(base: dict, kind: str, model, model_config) -> str:
    """Put `model: NAME` (or the fields of a config.json) into `base`; returns where the model comes from."""
    if model and model_config:
        raise click.UsageError("give --model or --model-config, not both")
    if model:
        from moecfg.presets import lookup, unknown_message

        preset = lookup(model)
        if preset is None:
            raise click.UsageError(unknown_message(model))
        base["model"] = preset.name
    elif model_config:
        from moecfg.presets.expand import preset_values

        preset = read_preset(model_config)
        base.update(preset_values(kind, preset, {}))
    else:
        return ""
    return f"{preset.name} ({preset.source})"


def read_preset(path: str):
    """The ModelPreset of a Hugging Face config.json (a usage error when it cannot be read)."""
    from moecfg.presets.hf_config import ModelConfigError, read_model_config

    try:
        return read_model_config(path)
    except ModelConfigError as exc:
        raise click.UsageError(str(exc)) from None


def _extras(base: dict, redundant, sets) -> None:
    from moecfg.checking.calculator import _parse_override

    if redundant:
        base["redundant_experts"] = redundant
    for item in sets:
        parts, value = _parse_override(item)
        node = base
        for i, part in enumerate(parts[:-1]):
            node = node.setdefault(part, {})
            if not isinstance(node, dict):  # `--set a=1 --set a.b=2`, or `--set model.x=1` with --model
                raise click.UsageError(f"--set {item!r}: `{'.'.join(parts[:i + 1])}` is already a value, not a mapping")
        node[parts[-1]] = value


def _problem(product, model, model_config, comm_alg, redundant, sets, cann):
    from moecfg.plan.problem import PlanError, build

    base, note = _base(product, model, model_config, comm_alg, redundant, sets)
    for key in ("bs", "ep_world_size"):
        if key in base:
            raise click.UsageError(f"give {key} with --{'ep' if key == 'ep_world_size' else 'bs'}, not --set")
    try:
        return build(base, cann, note)
    except PlanError as exc:
        raise click.UsageError(str(exc)) from None


def _write(text: str, output: str | None) -> None:
    if output is not None:
        from moecfg.cli.common import write_output

        write_output(output, text)
    else:
        from moecfg.cli.common import write_stdout

        write_stdout(text)


_shared = [
    click.option("--kind", type=click.Choice(("ascend", "deepep")), default="ascend", show_default=True,
                 help="Backend: ascend (HCCL_BUFFSIZE, bs, EP sizes) or deepep (DeepEP Buffer bytes, tokens, num_ranks)."),
    click.option("--product", metavar="A2|A3", help="Atlas A2 (910B) or A3 (910_93) [ascend]."),
    click.option("--mode", metavar="normal|low_latency", help="DeepEP kernels [deepep]."),
    click.option("--device", metavar="H800|H100|H20|...", help="GPU whose memory bounds the buffers [deepep]."),
    click.option("--model", metavar="NAME", help="Built-in model preset, e.g. deepseek-v3, qwen3-235b-a22b."),
    click.option("--model-config", "model_config", type=click.Path(), metavar="PATH",
                 help="A Hugging Face config.json (or a directory holding one)."),
    click.option("--cann", metavar="VERSION", callback=not_empty, help="CANN release whose rules apply (default: cann_version or latest) [ascend]."),
    click.option("--redundant-experts", "redundant", type=int, default=0,
                 help="EPLB redundant experts (added to moe_expert_num / num_experts)."),
    click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                 help="Any other field, e.g. --set quant_mode=2 --set h=7168 (dotted for mappings)."),
    click.option("--output", type=click.Path(dir_okay=False), help="Write the output to this file."),
]
_BYTES_HELP = "bytes (or with KiB/MiB/GiB) [deepep]"
_bytes_options = [
    click.option("--num-nvl-bytes", "nvl", metavar="BYTES", help="NVL buffer: " + _BYTES_HELP),
    click.option("--num-rdma-bytes", "rdma", metavar="BYTES", help="RDMA buffer: " + _BYTES_HELP),
]
_ONLY = {"ascend": ("product", "cann", "buffer_mb", "comm_alg", "comm_algs", "rulesets"),
         "deepep": ("mode", "device", "nvl", "rdma", "num_sms")}
_FLAG = {"buffer_mb": "--buffer", "comm_alg": "--comm-alg", "comm_algs": "--comm-alg", "nvl": "--num-nvl-bytes",
         "rdma": "--num-rdma-bytes", "num_sms": "--num-sms"}


def _options(fn):
    for opt in reversed(_shared):
        fn = opt(fn)
    return fn


def _bytes(fn):
    for opt in reversed(_bytes_options):
        fn = opt(fn)
    return fn


def _progress(human: bool) -> None:
    """A bar on a terminal's stderr for long loops, only for the text format (core/progress.py)."""
    from moecfg.core.progress import enable

    enable(human)


def _only_for_kind(kind: str, **given) -> None:
    """A usage error for an option of the other backend (e.g. --product with --kind deepep)."""
    other = "deepep" if kind == "ascend" else "ascend"
    for name in _ONLY[other]:
        if given.get(name) not in (None, ()):
            flag = _FLAG.get(name, "--" + name)
            raise click.UsageError(f"{flag} is an option of --kind {other}, not of --kind {kind}")


_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}


def parse_bytes(text: str | None, what: str) -> int | None:
    """'1908410496' -> 1908410496; '1GiB' -> 1073741824; '512 MiB' -> 536870912."""
    if text is None:
        return None
    body = text.strip().replace("_", "").replace(",", "")
    digits = body.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ")
    unit = body[len(digits):].strip().lower()
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 30) or unit not in _UNITS:
        raise click.UsageError(f"{what} {text!r}: write a number of bytes, optionally with KiB, MiB or GiB")
    return int(digits) * _UNITS[unit]


def _deepep_problem(mode, device, model, model_config, redundant, sets):
    from moecfg.plan.deepep_problem import build
    from moecfg.plan.problem import PlanError

    base = {"kind": "deepep"}
    if mode:
        base["mode"] = mode
    if device:
        base["device"] = device
    note = _model(base, "deepep", model, model_config)
    _extras(base, redundant, sets)
    if "mode" not in base:
        raise click.UsageError("give --mode normal|low_latency (DeepEP kernels)")
    try:
        return build(base, note)
    except PlanError as exc:
        raise click.UsageError(str(exc)) from None


@click.command(short_help="Solve what to set over EP sizes / rank counts.")
@click.argument("launch_file", required=False, metavar="[FILE]")
@_options
@click.option("--ep", "--num-ranks", "ep", metavar="N|LO:HI[:STEP]|A,B",
              help="EP size(s) to solve for (DeepEP: num_ranks).")
@click.option("--bs", "--tokens", "--num-max-dispatch-tokens-per-rank", "bs", type=int,
              help="Tokens per rank: solve the smallest buffer(s) (DeepEP low_latency: num_max_dispatch_tokens_per_rank).")
@click.option("--buffer", "buffer_mb", type=int, metavar="MB", help="HCCL_BUFFSIZE: solve the largest bs [ascend].")
@_bytes
@click.option("--comm-alg", "comm_alg", default=None, help="comm_alg of the candidates [ascend].")
@click.option("--format", "fmt", type=click.Choice(PLAN_FORMATS), default="text", show_default=True)
@click.option("--emit", type=click.Choice(("yaml", "launch")),
              help="Print the solved configs as YAML ready for `moecfg check`; with FILE, `launch`: the lines to paste "
              "in the launch's own knobs.")
def plan(launch_file, kind, product, mode, device, model, model_config, cann, redundant, sets, output, ep, bs,
         buffer_mb, nvl, rdma, comm_alg, fmt, emit):
    """Solve for what to set, over EP sizes / rank counts; every answer is judged by the real rules.

    ascend: the smallest HCCL_BUFFSIZE for --bs, the largest bs for --buffer (--set op=mega_moe,
    dispatch_ffn_combine, sgl_deepep_normal or sgl_deepep_low_latency with the shapes as --set). deepep: the smallest
    num_nvl_bytes / num_rdma_bytes (for --tokens in low_latency mode), or the most tokens per rank for
    --num-rdma-bytes. A rejected candidate lists its rule codes. Exit 0 when at least one candidate is
    valid, 1 when none is.

    FILE (a launch script, manifest or compose file; or a moecfg document): for each launch, the smallest buffer
    for the batch it configures and the largest batch for the buffer it sets, in its own flags and variables (a
    document: its own keys), with the device memory left; exit 0 when all pass as written, 1 otherwise
    (docs/fix.md).
    """
    if launch_file is not None:
        _plan_launch_file(launch_file, product, cann, output, fmt, emit, ep=ep, bs=bs, buffer_mb=buffer_mb,
                          model=model, model_config=model_config, sets=sets, nvl=nvl, rdma=rdma)
        return
    if emit == "launch":
        raise click.UsageError("--emit launch needs a FILE (a launch to plan)")
    _only_for_kind(kind, product=product, cann=cann, buffer_mb=buffer_mb, comm_alg=comm_alg, mode=mode, device=device,
                   nvl=nvl, rdma=rdma)
    if ep is None:
        raise click.UsageError("give --ep (EP sizes)" if kind == "ascend" else "give --num-ranks (N, LO:HI[:STEP] or A,B)")
    if bs is not None and bs < 1:
        raise click.UsageError("--bs must be >= 1")
    _progress(fmt == "text" and emit is None)
    if kind == "deepep":
        answers, text = _plan_deepep(mode, device, model, model_config, redundant, sets, output, ep, bs, nvl, rdma, fmt,
                                     emit)
    else:
        answers, text = _plan_ascend(product, model, model_config, cann, redundant, sets, output, ep, bs, buffer_mb,
                                     comm_alg, fmt, emit)
    _write(text, output)
    sys.exit(0 if any(a.ok for a in answers) else 1)


def _plan_launch_file(path, product, cann, output, fmt, emit, **ignored) -> None:
    """`moecfg plan FILE`: the launch's own knobs (moecfg.plan.launch); the solver options do not apply."""
    given = [name for name, value in ignored.items() if value not in (None, ())]
    if given:
        raise click.UsageError(f"--{given[0].replace('_', '-')} does not apply with FILE: the launch sets it")
    if emit == "yaml":
        raise click.UsageError("--emit yaml is for --ep plans; with FILE use --emit launch")
    from moecfg.cli.common import options
    from moecfg.checking.settings import ConfigError, Settings
    from moecfg.plan import launch_report
    from moecfg.plan.launch import plan_file
    from moecfg.sources.files import PathError, Unreadable

    try:
        plans = plan_file(path, options(cann, product.upper() if product else None), Settings())
    except PathError as exc:
        raise click.UsageError(str(exc)) from None
    except (Unreadable, ValueError) as exc:
        raise click.UsageError(f"{clip(path)}: {exc}") from None
    except ConfigError as exc:
        raise click.UsageError(f"config: {exc}") from None
    if emit == "launch":
        text = launch_report.plan_emit(path, plans)
    elif fmt == "json":
        text = launch_report.plan_json(path, plans)
    else:
        text = launch_report.plan_text(path, plans)
    from moecfg.render import escape

    _write(escape.terminal(text) if fmt != "json" else text, output)
    sys.exit(0 if plans.plans and not plans.fails else 1)


def _plan_ascend(product, model, model_config, cann, redundant, sets, output, ep, bs, buffer_mb, comm_alg, fmt, emit):
    from moecfg.plan import report, solver

    if bs is None and buffer_mb is None:
        raise click.UsageError("give --bs (to solve the buffer) or --buffer (to solve bs), or both (to check)")
    if buffer_mb is not None and buffer_mb < 1:
        raise click.UsageError("--buffer must be >= 1")
    base, _ = _base(product, model, model_config, comm_alg, redundant, sets)
    if _is_fused(base):
        return _plan_fused(base, cann, ep, bs, buffer_mb, fmt, emit)
    problem = _problem(product, model, model_config, comm_alg, redundant, sets, cann)
    answers = solver.ep_table(problem, _ints(ep, "--ep"), bs, buffer_mb)
    if emit == "yaml":
        text = report.plan_yaml(answers, problem) or "# moecfg plan: no valid configuration\n"
    elif fmt == "json":
        text = report.plan_json(answers, problem)
    else:
        text = report.plan_text(answers, problem, color=output is None and sys.stdout.isatty())
    return answers, text


def _plan_fused(base, cann, ep, bs, buffer_mb, fmt, emit):
    """op mega_moe / dispatch_ffn_combine / sgl_deepep_* (moecfg.plan.fused): the shapes with --set (no presets)."""
    from moecfg.plan import fused

    _fused_only(base, cann, None)
    answers = fused.solve(base, cann, _ints(ep, "--ep"), bs, buffer_mb)
    if emit == "yaml":
        return answers, fused.plan_yaml(answers) or "# moecfg plan: no valid configuration\n"
    return answers, fused.plan_json(answers) if fmt == "json" else fused.plan_text(answers, base, bs is None)


def _is_fused(base: dict) -> bool:
    from moecfg.plan.fused import FUSED_OPS

    return base.get("op") in FUSED_OPS


def _fused_only(base: dict, cann, rulesets) -> None:
    """Usage errors for options a fused / sgl-kernel-npu op cannot use."""
    sgl = base["op"].startswith("sgl_deepep")
    if "model" in base:
        shapes = "h, k and num_experts" if sgl else "h, k, moe_expert_num and intermediate_hidden"
        raise click.UsageError(f"op {base['op']} has no model presets: give {shapes} with --set")
    if sgl and (cann or rulesets):  # its limits are sgl-kernel-npu's (@f425bdf), not a CANN release's
        raise click.UsageError(f"op {base['op']} is sgl-kernel-npu's: --cann / --rulesets do not apply")


def _plan_deepep(mode, device, model, model_config, redundant, sets, output, ranks, tokens, nvl, rdma, fmt, emit):
    from moecfg.plan import deepep_report as report
    from moecfg.plan import deepep_solver as solver

    nvl, rdma = parse_bytes(nvl, "--num-nvl-bytes"), parse_bytes(rdma, "--num-rdma-bytes")
    problem = _deepep_problem(mode, device, model, model_config, redundant, sets)
    if problem.low_latency and tokens is None and rdma is None:
        raise click.UsageError("low_latency: give --tokens (to solve the buffers) or --num-rdma-bytes (to solve the "
                               "tokens per rank), or both (to check)")
    if not problem.low_latency and tokens is not None:
        raise click.UsageError("--tokens (num_max_dispatch_tokens_per_rank) sizes only low_latency buffers; normal "
                               "mode buffers depend on num_ranks, num_sms and the chunk configs")
    answers = solver.ranks_table(problem, _ints(ranks, "--num-ranks"), tokens, nvl, rdma)
    if emit == "yaml":
        text = report.plan_yaml(answers, problem) or "# moecfg plan: no valid configuration\n"
    elif fmt == "json":
        text = report.plan_json(answers, problem)
    else:
        text = report.plan_text(answers, problem, color=output is None and sys.stdout.isatty())
    return answers, text


@click.command(short_help="Required buffer vs tokens per rank or EP size.")
@_options
@click.option("--ep", "--num-ranks", "ep", metavar="N|LO:HI[:STEP]|A,B",
              help="EP size (DeepEP: num_ranks), or the x axis if a range.")
@click.option("--bs", "--tokens", "--num-max-dispatch-tokens-per-rank", "bs", metavar="N|LO:HI[:STEP]|A,B",
              help="Tokens per rank (DeepEP low_latency: num_max_dispatch_tokens_per_rank), or the x axis if a range.")
@click.option("--comm-alg", "comm_algs", default=None, metavar="A,B", help="comm_algs to compare (comma list) [ascend].")
@click.option("--rulesets", "rulesets", default=None, metavar="A,B", help="Rule sets to compare, e.g. 8.5,9.0,latest [ascend].")
@click.option("--num-sms", "num_sms", default=None, metavar="A,B", help="Buffer.num_sms values to compare [deepep normal].")
@click.option("--buffer", "buffer_mb", type=int, metavar="MB", help="Configured HCCL_BUFFSIZE (drawn as a limit line) [ascend].")
@_bytes
@click.option("--format", "fmt", type=click.Choice(PLAN_FORMATS), default="text", show_default=True)
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), metavar="FILE.svg|png",
              help="Also draw the sweep with matplotlib (extra `plot`).")
@click.option("--rows", default="24", show_default=True, metavar="N|all",
              type=click.Choice(["all"] + [str(n) for n in range(2, 1001)]), show_choices=False,
              help="Rows of the text table (evenly spaced, ends included); all = every x.")
def sweep(kind, product, mode, device, model, model_config, cann, redundant, sets, output, ep, bs, comm_algs, rulesets,
          num_sms, buffer_mb, nvl, rdma, fmt, plot_path, rows):
    """Required buffer vs tokens per rank or vs EP size / num_ranks, with limit lines.

    ascend: HCCL_BUFFSIZE for one or more comm_algs / rule sets. deepep: num_nvl_bytes / num_rdma_bytes
    vs tokens per rank (low_latency) or num_ranks (normal), compared over --num-sms values.
    """
    from moecfg.plan import report

    _only_for_kind(kind, product=product, cann=cann, buffer_mb=buffer_mb, comm_algs=comm_algs, rulesets=rulesets,
                   mode=mode, device=device, nvl=nvl, rdma=rdma, num_sms=num_sms)
    _progress(fmt == "text")
    if kind == "deepep":
        result = _sweep_deepep(mode, device, model, model_config, redundant, sets, ep, bs, num_sms, nvl, rdma)
    else:
        result = _sweep_ascend(product, model, model_config, cann, redundant, sets, ep, bs, comm_algs, rulesets,
                               buffer_mb)
    if plot_path:
        from moecfg.core.output import OutputError

        try:
            report.plot(result, plot_path)
        except (report.PlotUnavailable, OutputError) as exc:
            raise click.UsageError(str(exc)) from None
    text = report.sweep_json(result) if fmt == "json" else report.sweep_text(
        result, output is None and sys.stdout.isatty(), None if rows == "all" else int(rows))
    _write(text, output)


def _sweep_ascend(product, model, model_config, cann, redundant, sets, ep, bs, comm_algs, rulesets, buffer_mb):
    from moecfg.plan import sweep as sw

    if ep is None or bs is None:
        raise click.UsageError("give --ep and --bs (one of them a range: the x axis)")
    eps, bss = _ints(ep, "--ep"), _ints(bs, "--bs")
    if len(eps) > 1 and len(bss) > 1:
        raise click.UsageError("sweep one axis: give a range for --bs or for --ep, and a single value for the other")
    base, _ = _base(product, model, model_config, None, redundant, sets)
    if _is_fused(base):
        from moecfg.plan import fused

        _fused_only(base, cann, rulesets)
        vs, xs, fixed = ("ep_world_size", eps, bss[0]) if len(eps) > 1 else ("bs", bss, eps[0])
        return fused.sweep(base, cann, vs, xs, fixed, rulesets.split(",") if rulesets else None, buffer_mb)
    problem = _problem(product, model, model_config, None, redundant, sets, cann)
    algs = comm_algs.split(",") if comm_algs is not None else [problem.values.get("comm_alg") or ""]
    names = rulesets.split(",") if rulesets else [problem.ruleset.name]
    _cap_sweep(max(len(eps), len(bss)), len(algs) * len(names), "--comm-alg x --rulesets")
    try:
        if len(eps) > 1:
            return sw.run(problem, "ep_world_size", eps, bss[0], algs, names, buffer_mb)
        return sw.run(problem, "bs", bss, eps[0], algs, names, buffer_mb)
    except sw.PlanError as exc:
        raise click.UsageError(str(exc)) from None


def _sweep_deepep(mode, device, model, model_config, redundant, sets, ranks, tokens, num_sms, nvl, rdma):
    from moecfg.plan import deepep_sweep as sw
    from moecfg.plan.deepep_problem import TOKENS

    nvl, rdma = parse_bytes(nvl, "--num-nvl-bytes"), parse_bytes(rdma, "--num-rdma-bytes")
    problem = _deepep_problem(mode, device, model, model_config, redundant, sets)
    if ranks is None:
        raise click.UsageError("give --num-ranks (N, or LO:HI[:STEP] / A,B as the x axis)")
    rs = _ints(ranks, "--num-ranks")
    sms = _ints(num_sms, "--num-sms") if num_sms else (None,)
    if not problem.low_latency:
        if tokens is not None:
            raise click.UsageError("--tokens sizes only low_latency buffers: sweep normal mode over --num-ranks")
        _cap_sweep(len(rs), len(sms), "--num-sms")
        return sw.run(problem, "num_ranks", rs, 0, sms, nvl, rdma)
    if num_sms:
        raise click.UsageError("--num-sms changes only normal-mode buffers (low_latency uses every SM)")
    if tokens is None:
        raise click.UsageError("low_latency: give --tokens (num_max_dispatch_tokens_per_rank; a range is the x axis)")
    ts = _ints(tokens, "--tokens")
    if len(rs) > 1 and len(ts) > 1:
        raise click.UsageError("sweep one axis: give a range for --tokens or for --num-ranks, and a single value for the other")
    if len(rs) > 1:
        return sw.run(problem, "num_ranks", rs, ts[0], nvl=nvl, rdma=rdma)
    return sw.run(problem, TOKENS, ts, rs[0], nvl=nvl, rdma=rdma)
