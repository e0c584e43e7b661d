"""Command line: `moecfg check` (the linter) and `moecfg buffer` (the calculator).

Exit codes (contract §4): 0 nothing at or above --fail-on, 1 findings, 2 usage error or unreadable path,
3 internal error.
"""
from __future__ import annotations

import os
import sys

import click

from moecfg import __version__
from moecfg.cli.runner import not_empty

FAIL_ON = ("error", "warning", "info", "never")
FORMATS = ("text", "json", "sarif", "github", "junit")  # = render.RENDERERS
_RANK = {"info": 0, "warning": 1, "error": 2, "never": 99}


def _exit_code(report, fail_on: str) -> int:
    return 1 if report.worst_rank() >= _RANK[fail_on] else 0


def _targets(fmts, outputs, auto_github: bool = False) -> list[tuple[str, str | None]]:
    """Pair the i-th --format with the i-th --output; a format without an output (or `--output -`) goes to
    stdout, at most one of them. No --format: text, or github when GITHUB_ACTIONS=true (check only)."""
    fmts, outputs = list(fmts or ()), list(outputs or ())
    if not fmts:
        default = "github" if auto_github and os.environ.get("GITHUB_ACTIONS") == "true" else "text"
        fmts = [default] * max(1, len(outputs))
        if len(outputs) > 1:
            raise click.UsageError("several --output need a --format each (--format json --output a.json ...)")
    if len(outputs) > len(fmts):
        raise click.UsageError(f"{len(outputs)} --output for {len(fmts)} --format: give each --output its --format")
    pairs = [(f, outputs[i] if i < len(outputs) and outputs[i] != "-" else None) for i, f in enumerate(fmts)]
    if sum(1 for _, out in pairs if out is None) > 1:
        raise click.UsageError("only one --format can print to stdout; give the others an --output FILE")
    return pairs


def _emit(report, fmts, outputs, command: str, auto_github: bool = False) -> None:
    from moecfg.render import load

    if isinstance(fmts, str):
        fmts = (fmts,)
    if isinstance(outputs, str):
        outputs = (outputs,)
    for fmt, output in _targets(fmts, outputs, auto_github):
        renderer = load(fmt)
        if output is not None:
            write_output(output, renderer.render(report, color=False, command=command))
            continue
        color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        write_stdout(renderer.render(report, color=color, command=command))


def write_stdout(text: str) -> None:
    from moecfg.core.output import write_stdout as write

    write(text)


def write_output(path: str, text: str, option: str = "--output") -> None:
    """Atomic write (core/output.py); an unwritable or empty path is a usage error."""
    from moecfg.core.output import OutputError, write_text

    try:
        write_text(path, text, option)
    except OutputError as exc:
        raise click.UsageError(str(exc)) from None


def _options(cann, product=None):
    from moecfg.backends import Options

    return Options(cann=cann, product=product)


common = [
    click.option("--format", "fmt", type=click.Choice(FORMATS), multiple=True,
                 help="Output format (default text; github when GITHUB_ACTIONS=true). Repeat with --output for "
                      "several reports in one run."),
    click.option("--output", "output", type=click.Path(dir_okay=False, allow_dash=True), multiple=True,
                 help="Write the report of the --format in the same position to this file (- = stdout)."),
    click.option("--cann", "cann", metavar="VERSION", callback=not_empty,
                 help="CANN release whose rules apply (overrides cann_version)."),
]


def _common(fn):
    for opt in reversed(common):
        fn = opt(fn)
    return fn


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="moecfg")
def cli():
    """Lint MoE expert-parallel deployment configs and size their communication buffers, before launch."""


class ConfigFailure(click.ClickException):
    exit_code = 2


@cli.command()
@click.argument("paths", nargs=-1)
@_common
@click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
              help="Lowest severity that makes the exit code 1 (default: config file's fail-on, else error).")
@click.option("--exit-zero", is_flag=True,
              help="Exit 0 even with diagnostics (2 and 3 still signal usage and internal errors).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Use this config file for every path instead of searching .moecfg.yaml / pyproject.toml.")
@click.option("--ignore", "ignore", multiple=True, metavar="CODE",
              help="Ignore a rule code, code prefix (MC5) or name; adds to the config's ignore.")
@click.option("--no-inline-suppressions", is_flag=True, default=None,
              help="Ignore `# moecfg: disable` comments (CI that forbids them).")
@click.option("--show-config", is_flag=True, help="Print the effective configuration for each PATH (or .) and exit.")
@click.option("--product", "product", type=click.Choice(["A2", "A3"], case_sensitive=False), default=None,
              help="Hardware of launch files (scripts, manifests): a launch command does not name it.")
@click.option("--verbose", "-v", is_flag=True, help="Also list the files and documents skipped (not moecfg documents, "
              "no launch) and why, on stderr.")
def check(paths, fmt, output, cann, fail_on, exit_zero, config_path, ignore, no_inline_suppressions, show_config,
          product, verbose):
    """Lint deployment files, directories (recursively, *.yaml/*.yml) and - (stdin)."""
    from moecfg.core.settings import Cli, ConfigError, Settings, code_or_prefix
    from moecfg.core.engine import PathError, check_paths

    try:
        cli_settings = Cli(config=config_path, cann=cann, fail_on=fail_on,
                           ignore=tuple(code_or_prefix(c, "--ignore") for c in ignore),
                           inline_suppressions=False if no_inline_suppressions else None)
        settings = Settings(cli_settings)
        if show_config:
            _show_config(settings, paths or (".",))
            return
        if not paths:
            raise click.UsageError("give at least one PATH (a file, a directory or - for stdin)")
        report = check_paths(paths, _options(cann, product.upper() if product else None), settings)
        failing = _failing(report, settings)
        if verbose:
            _list_skipped()
    except PathError as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigError as exc:
        raise ConfigFailure(f"config: {exc}") from None
    _emit(report, fmt, output, "check", auto_github=True)
    sys.exit(0 if exit_zero else int(failing))


def _list_skipped() -> None:
    from moecfg.core.routing import SKIPPED
    from moecfg.render import escape

    if SKIPPED:  # file names and keys are untrusted: escaped as text output is (render/escape.py)
        click.echo(escape.lines(f"skipped {name}: {why}" for name, why in SKIPPED), err=True, nl=False)


def _failing(report, settings) -> bool:
    """A diagnostic at or above the --fail-on of its file (command line, else its config file)."""
    thresholds = {}
    for r in report.results:
        if r.file not in thresholds:
            thresholds[r.file] = _RANK[settings.for_file(r.file).fail_on]
        if any(_RANK[d.severity] >= thresholds[r.file] for d in r.diagnostics):
            return True
    return False


def _show_config(settings, paths) -> None:
    import json

    from moecfg.core.settings import effective

    out = [effective(settings, p) for p in paths]
    write_stdout(json.dumps(out if len(out) > 1 else out[0], indent=2) + "\n")


def _field_flags():
    """--bs, --ep-world-size, ... from the field tables of every kind (scalar fields only)."""
    from moecfg.backends import fields_module

    seen, flags = set(), []
    for kind in ("ascend", "deepep", "tutel"):
        mod = fields_module(kind)
        if mod is None:
            continue
        fields = mod.FIELDS
        for f in fields:
            if f.type in ("mapping",) or f.name in seen or f.name == "kind":
                continue
            seen.add(f.name)
            flags.append(click.option("--" + f.name.replace("_", "-"), f.name, default=None, metavar="VALUE",
                                      help=f"{f.doc} [{kind}]" if f.doc else None))
    return flags


def _buffer_command():
    @click.argument("file", required=False)
    @click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                  help="Set a field (dotted for mappings: env.HCCL_BUFFSIZE=1024); values are YAML scalars.")
    @click.option("--kind", "kind", default=None, help="Backend when no FILE is given (default ascend).")
    @click.option("--hccl-buffsize", "hccl_buffsize", default=None, metavar="MB", help="Shortcut for --set env.HCCL_BUFFSIZE=MB.")
    @click.option("--model-config", "model_config", type=click.Path(), default=None, metavar="PATH",
                  help="A Hugging Face config.json: fills the model fields the document does not set (ascend, deepep).")
    @_common
    @click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
                  help="Exit 1 on diagnostics at this level (default: only when the input is invalid).")
    def buffer(file, sets, kind, hccl_buffsize, model_config, fmt, output, cann, fail_on, **fields):
        """Required buffer sizes with the formula and its terms, from FILE and/or --set / field flags."""
        from moecfg.core.calculator import run_buffer

        overrides = [f"{k}={v}" for k, v in fields.items() if v is not None] + list(sets)
        if hccl_buffsize is not None:
            overrides.append(f"env.HCCL_BUFFSIZE={hccl_buffsize}")
        if kind:
            overrides.append(f"kind={kind}")
        preset = None
        if model_config:
            from moecfg.cli.plan import read_preset

            preset = read_preset(model_config)
        report = run_buffer(file, overrides, _options(cann), preset)
        _emit(report, fmt, output, "buffer")
        if fail_on:
            sys.exit(_exit_code(report, fail_on))
        sys.exit(1 if _input_invalid(report) else 0)

    for flag in _field_flags():
        buffer = flag(buffer)
    return cli.command(name="buffer")(buffer)


def _input_invalid(report) -> bool:
    """An error that is not about buffer sufficiency: the calculator's answer cannot be trusted."""
    from moecfg.core.registry import RULES

    return any(d.severity == "error" and "buffer" not in RULES[d.code].tags
               for r in report.results for d in r.diagnostics) or not report.results


_buffer_command()

from moecfg.cli.plan import plan, sweep  # noqa: E402  (planner: plan / sweep; imports only click)

cli.add_command(plan)
cli.add_command(sweep)

from moecfg.cli.docs import explain, rules, schema  # noqa: E402  (docs and editor support; imports only click)

cli.add_command(rules)

from moecfg.cli.launch import explain_launch  # noqa: E402  (imports only click)

cli.add_command(explain_launch)
cli.add_command(explain)
cli.add_command(schema)


def main(argv=None) -> None:
    from moecfg.cli.runner import run

    run(cli, argv)
