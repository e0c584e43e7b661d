"""`moecfg plan` (what should I set?) and `moecfg sweep` (how does the buffer grow?).

Imported by cli.py at start-up: only click here; the planner is imported inside the commands.
"""
from __future__ import annotations

import sys

import click

PLAN_FORMATS = ("text", "json")


def _ints(text: str | None, what: str):
    """'32' -> [32]; '8:64' -> 8..64; '8:64:8' -> 8, 16, ..., 64; '16,32,64' -> those."""
    if text is None:
        return None
    try:
        if ":" in text:
            parts = [int(x) for x in text.split(":")]
            if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] <= 0):
                raise ValueError
            lo, hi, step = parts[0], parts[1], parts[2] if len(parts) == 3 else 1
            values = list(range(lo, hi + 1, step))
        else:
            values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise click.UsageError(f"{what} {text!r}: write N, LO:HI, LO:HI:STEP or a comma list") from None
    if not values or min(values) < 1:
        raise click.UsageError(f"{what} {text!r}: values must be >= 1 and the range not empty")
    return values


def _base(product, model, model_config, comm_alg, redundant, sets) -> tuple[dict, str]:
    """The fixed part of the document from the options, and a note on where the model comes from."""
    from .calc import _parse_override

    base, note = {"product": product} if product else {}, ""
    if model and model_config:
        raise click.UsageError("give --model or --model-config, not both")
    if model:
        from .presets import lookup, unknown_message

        preset = lookup(model)
        if preset is None:
            raise click.UsageError(unknown_message(model))
        base["model"], note = preset.name, f"{preset.name} ({preset.source})"
    elif model_config:
        from .presets.expand import ascend_values
        from .presets.hf_config import ModelConfigError, read_model_config

        try:
            preset = read_model_config(model_config)
        except ModelConfigError as exc:
            raise click.UsageError(str(exc)) from None
        base.update(ascend_values(preset, {}))
        note = f"{preset.name} ({preset.source})"
    if comm_alg is not None:
        base["comm_alg"] = comm_alg
    if redundant:
        base["redundant_experts"] = redundant
    for item in sets:
        parts, value = _parse_override(item)
        node = base
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    if "product" not in base:
        raise click.UsageError("give --product A2|A3 (or --set product=...)")
    return base, note


def _problem(product, model, model_config, comm_alg, redundant, sets, cann):
    from .plan.problem import PlanError, build

    base, note = _base(product, model, model_config, comm_alg, redundant, sets)
    for key in ("bs", "ep_world_size"):
        if key in base:
            raise click.UsageError(f"give {key} with --{'ep' if key == 'ep_world_size' else 'bs'}, not --set")
    try:
        return build(base, cann, note)
    except PlanError as exc:
        raise click.UsageError(str(exc)) from None


def _write(text: str, output: str | None) -> None:
    if output:
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise click.UsageError(f"cannot write --output {output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)


_shared = [
    click.option("--product", metavar="A2|A3", help="Atlas A2 (910B) or A3 (910_93)."),
    click.option("--model", metavar="NAME", help="Built-in model preset, e.g. deepseek-v3, qwen3-235b-a22b."),
    click.option("--model-config", "model_config", type=click.Path(), metavar="PATH",
                 help="A Hugging Face config.json (or a directory holding one)."),
    click.option("--cann", metavar="VERSION", help="CANN release whose rules apply (default: cann_version or latest)."),
    click.option("--redundant-experts", "redundant", type=int, default=0, help="EPLB redundant experts (added to moe_expert_num)."),
    click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                 help="Any other field, e.g. --set quant_mode=2 --set h=7168 (dotted for mappings)."),
    click.option("--output", type=click.Path(dir_okay=False), help="Write the output to this file."),
]


def _options(fn):
    for opt in reversed(_shared):
        fn = opt(fn)
    return fn


@click.command()
@_options
@click.option("--ep", "ep", metavar="N|LO:HI[:STEP]|A,B", required=True, help="EP size(s) to solve for.")
@click.option("--bs", "bs", type=int, help="Tokens per rank: solve the smallest buffer.")
@click.option("--buffer", "buffer_mb", type=int, metavar="MB", help="HCCL_BUFFSIZE: solve the largest bs.")
@click.option("--comm-alg", "comm_alg", default=None, help="comm_alg of the candidates.")
@click.option("--format", "fmt", type=click.Choice(PLAN_FORMATS), default="text", show_default=True)
@click.option("--emit", type=click.Choice(("yaml",)), help="Print the solved configs as YAML ready for `moecfg check`.")
def plan(product, model, model_config, cann, redundant, sets, output, ep, bs, buffer_mb, comm_alg, fmt, emit):
    """Solve for what to set: the smallest HCCL_BUFFSIZE for --bs, the largest bs for --buffer, over --ep sizes.

    Each answer is judged by the real rules (the same engine as `moecfg check`); a rejected EP size lists
    the rule codes. Exit 0 when at least one candidate is valid, 1 when none is.
    """
    from .plan import report, solver

    if bs is None and buffer_mb is None:
        raise click.UsageError("give --bs (to solve the buffer) or --buffer (to solve bs), or both (to check)")
    for name, v in (("--bs", bs), ("--buffer", buffer_mb)):
        if v is not None and v < 1:
            raise click.UsageError(f"{name} must be >= 1")
    problem = _problem(product, model, model_config, comm_alg, redundant, sets, cann)
    answers = solver.ep_table(problem, _ints(ep, "--ep"), bs, buffer_mb)
    if emit == "yaml":
        text = report.plan_yaml(answers, problem) or "# moecfg plan: no valid configuration\n"
    elif fmt == "json":
        text = report.plan_json(answers, problem)
    else:
        text = report.plan_text(answers, problem, color=output is None and sys.stdout.isatty())
    _write(text, output)
    sys.exit(0 if any(a.ok for a in answers) else 1)


@click.command()
@_options
@click.option("--ep", "ep", metavar="N|LO:HI[:STEP]|A,B", required=True, help="EP size, or the x axis if a range.")
@click.option("--bs", "bs", metavar="N|LO:HI[:STEP]|A,B", required=True, help="Tokens per rank, or the x axis if a range.")
@click.option("--comm-alg", "comm_algs", default=None, metavar="A,B", help="comm_algs to compare (comma list).")
@click.option("--rulesets", "rulesets", default=None, metavar="A,B", help="Rule sets to compare, e.g. 8.5,9.0,latest.")
@click.option("--buffer", "buffer_mb", type=int, metavar="MB", help="Configured HCCL_BUFFSIZE (drawn as a limit line).")
@click.option("--format", "fmt", type=click.Choice(PLAN_FORMATS), default="text", show_default=True)
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), metavar="FILE.svg|png",
              help="Also draw the sweep with matplotlib (extra `plot`).")
def sweep(product, model, model_config, cann, redundant, sets, output, ep, bs, comm_algs, rulesets, buffer_mb, fmt,
          plot_path):
    """Required HCCL buffer vs bs (or vs ep) for one or more comm_algs / rule sets, with limit lines."""
    from .plan import report
    from .plan import sweep as sw

    eps, bss = _ints(ep, "--ep"), _ints(bs, "--bs")
    if len(eps) > 1 and len(bss) > 1:
        raise click.UsageError("sweep one axis: give a range for --bs or for --ep, and a single value for the other")
    problem = _problem(product, model, model_config, None, redundant, sets, cann)
    algs = comm_algs.split(",") if comm_algs is not None else [problem.values.get("comm_alg") or ""]
    names = rulesets.split(",") if rulesets else [problem.ruleset.name]
    try:
        if len(eps) > 1:
            result = sw.run(problem, "ep_world_size", eps, bss[0], algs, names, buffer_mb)
        else:
            result = sw.run(problem, "bs", bss, eps[0], algs, names, buffer_mb)
    except sw.PlanError as exc:
        raise click.UsageError(str(exc)) from None
    if plot_path:
        try:
            report.plot(result, plot_path)
        except report.PlotUnavailable as exc:
            raise click.UsageError(str(exc)) from None
    text = report.sweep_json(result) if fmt == "json" else report.sweep_text(result, output is None and sys.stdout.isatty())
    _write(text, output)
