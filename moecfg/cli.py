"""Command line: `moecfg check` (the linter) and `moecfg buffer` (the calculator).

Exit codes (contract §4): 0 nothing at or above --fail-on, 1 findings, 2 usage error or unreadable path,
3 internal error.
"""
from __future__ import annotations

import os
import sys

import click

from . import __version__

FAIL_ON = ("error", "warning", "info", "never")
FORMATS = ("text", "json")
_RANK = {"info": 0, "warning": 1, "error": 2, "never": 99}
BUG_URL = "https://github.com/moecfg/moecfg/issues"


def _exit_code(report, fail_on: str) -> int:
    return 1 if report.worst_rank() >= _RANK[fail_on] else 0


def _emit(report, fmt: str, output: str | None, command: str) -> None:
    from .render import load

    renderer = load(fmt)
    if output:
        text = renderer.render(report, color=False, command=command)
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise click.UsageError(f"cannot write --output {output}: {exc.strerror or exc}") from None
        return
    color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    sys.stdout.write(renderer.render(report, color=color, command=command))


def _options(cann):
    from .kinds import Options

    return Options(cann=cann)


common = [
    click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format."),
    click.option("--output", "output", type=click.Path(dir_okay=False), help="Write the report to this file."),
    click.option("--cann", "cann", metavar="VERSION", help="CANN release whose rules apply (overrides cann_version)."),
]


def _common(fn):
    for opt in reversed(common):
        fn = opt(fn)
    return fn


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="moecfg")
def cli():
    """Lint MoE expert-parallel deployment configs and size their communication buffers, before launch."""


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@_common
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True,
              help="Lowest severity that makes the exit code 1.")
def check(paths, fmt, output, cann, fail_on):
    """Lint deployment files, directories (recursively, *.yaml/*.yml) and - (stdin)."""
    from .engine import PathError, check_paths

    try:
        report = check_paths(paths, _options(cann))
    except PathError as exc:
        raise click.UsageError(str(exc)) from None
    _emit(report, fmt, output, "check")
    sys.exit(_exit_code(report, fail_on))


def _field_flags():
    """--bs, --ep-world-size, ... from the field tables of every kind (scalar fields only)."""
    import importlib

    seen, flags = set(), []
    for kind in ("ascend", "deepep", "tutel"):
        try:
            fields = importlib.import_module(f"moecfg.{kind}.fields").FIELDS
        except ModuleNotFoundError:
            continue
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
    @_common
    @click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
                  help="Exit 1 on diagnostics at this level (default: only when the input is invalid).")
    def buffer(file, sets, kind, hccl_buffsize, fmt, output, cann, fail_on, **fields):
        """Required buffer sizes with the formula and its terms, from FILE and/or --set / field flags."""
        from .calc import run_buffer

        overrides = [f"{k}={v}" for k, v in fields.items() if v is not None] + list(sets)
        if hccl_buffsize is not None:
            overrides.append(f"env.HCCL_BUFFSIZE={hccl_buffsize}")
        if kind:
            overrides.append(f"kind={kind}")
        report = run_buffer(file, overrides, _options(cann))
        _emit(report, fmt, output, "buffer")
        if fail_on:
            sys.exit(_exit_code(report, fail_on))
        sys.exit(1 if _input_invalid(report) else 0)

    for flag in _field_flags():
        buffer = flag(buffer)
    return cli.command(name="buffer")(buffer)


def _input_invalid(report) -> bool:
    """An error that is not about buffer sufficiency: the calculator's answer cannot be trusted."""
    from .registry import RULES

    return any(d.severity == "error" and "buffer" not in RULES[d.code].tags
               for r in report.results for d in r.diagnostics) or not report.results


_buffer_command()

from .commands_plan import plan, sweep  # noqa: E402  (planner: plan / sweep; imports only click)

cli.add_command(plan)
cli.add_command(sweep)


def main(argv=None) -> None:
    try:
        cli.main(args=argv, prog_name="moecfg", standalone_mode=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.stderr.write("moecfg: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as exc:  # a bug: short message, no traceback
        sys.stderr.write(f"moecfg: internal error: {type(exc).__name__}: {exc}\n"
                         f"This is a bug in moecfg {__version__}; please report it with the input file at {BUG_URL}\n")
        if os.environ.get("MOECFG_DEBUG"):
            raise
        sys.exit(3)
