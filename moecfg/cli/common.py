"""What the commands share: output formats and targets, exit-code thresholds, the --format/--output/--cann
options. Imports only click (every command's module imports this one)."""
from __future__ import annotations

import os
import sys

import click

from moecfg.cli.plain import RANK  # noqa: F401  (one table: plain.py runs check without click)
from moecfg.cli.runner import not_empty

FAIL_ON = ("error", "warning", "info", "never")
FORMATS = ("text", "json", "sarif", "github", "junit")  # = render.RENDERERS


class ConfigFailure(click.ClickException):
    exit_code = 2


def exit_code(report, fail_on: str) -> int:
    return 1 if report.worst_rank() >= RANK[fail_on] else 0


def targets(fmts, outputs, auto_github: bool = False) -> list[tuple[str, str | None]]:
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


def emit(report, fmts, outputs, command: str, auto_github: bool = False) -> None:
    from moecfg.render import load

    if isinstance(fmts, str):
        fmts = (fmts,)
    if isinstance(outputs, str):
        outputs = (outputs,)
    for fmt, output in targets(fmts, outputs, auto_github):
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


def options(cann, product=None, framework_versions=()):
    """The run's Options; `product` an Ascend product (A2, A3) or a GPU model (H100, ...), any case."""
    from moecfg.backends import Options

    product = product.upper() if product else None
    ascend = product if product in ASCEND_PRODUCTS else None
    return Options(cann=cann, product=ascend, device=product if product and not ascend else None,
                   framework_versions=tuple(framework_versions or ()))


# Every command that takes a product takes these (preflight and explain-error too): the Ascend products, then the
# GPU models of the device catalog (backends/device/devices.py; tests/test_cli.py holds them equal).
ASCEND_PRODUCTS = ("A2", "A3")
PRODUCTS = ASCEND_PRODUCTS + ("H100", "H800", "H20", "H200", "A100", "B200", "GB200")


def _framework_versions(ctx, param, values) -> tuple:
    """--framework-version NAME=VERSION (repeatable) -> ((name, version), ...), checked as the settings'
    `framework-versions:` are (the same names, the same version forms)."""
    if not values:
        return ()
    from moecfg.checking.settings.config import framework_versions as parse
    from moecfg.checking.settings.errors import ConfigError

    table = {}
    for value in values:
        name, sep, version = value.partition("=")
        if not sep or not name.strip() or not version.strip():
            raise click.BadParameter(f"{value!r}: expected NAME=VERSION, such as vllm-ascend=0.13.0")
        table[name.strip()] = version.strip()
    try:
        return tuple(parse(table).items())
    except ConfigError as exc:
        raise click.BadParameter(str(exc).replace("`framework-versions`", "").lstrip(": .")) from None


_LAUNCH = [
    click.option("--product", "product", type=click.Choice(PRODUCTS, case_sensitive=False), default=None,
                 help="Hardware of launch files (scripts, manifests), which a command line does not name: an Ascend "
                      "product or a GPU model (wins over the settings' product / device and over hints)."),
    click.option("--framework-version", "framework_versions", multiple=True, metavar="NAME=VERSION",
                 callback=_framework_versions,
                 help="Version of a launch's framework when its image tag does not give it, e.g. "
                      "vllm-ascend=0.13.0 (repeatable; wins over the settings' framework-versions)."),
    click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
                 help="Use this settings file instead of searching .moecfg.yaml / pyproject.toml."),
]


def launch_options(fn):
    """--product, --framework-version, --config: the same on check, explain-launch and buffer."""
    for opt in reversed(_LAUNCH):
        fn = opt(fn)
    return fn


_COMMON = [
    click.option("--format", "fmt", type=click.Choice(FORMATS), multiple=True,
                 help="Output format (default text; github when GITHUB_ACTIONS=true). Repeat with --output for "
                      "several reports in one run."),
    click.option("--output", "output", type=click.Path(dir_okay=False, allow_dash=True), multiple=True,
                 help="Write the report of the --format in the same position to this file (- = stdout)."),
    click.option("--cann", "cann", metavar="VERSION", callback=not_empty,
                 help="CANN release whose rules apply (overrides cann_version)."),
]


def common_options(fn):
    """--format, --output, --cann (in that order in --help)."""
    for opt in reversed(_COMMON):
        fn = opt(fn)
    return fn
