"""`moecfg preflight [OPTIONS] -- COMMAND...`: check a launch on the machine that runs it, then run it unchanged.

Exit: the command's own status when it passes (moecfg is replaced by it, os.execvp); 1 when the launch is refused
(a diagnostic at or above --fail-on); 0 with --check-only when it passes; 2 usage; 127 when the command cannot be
started.
"""
from __future__ import annotations

import os
import sys

import click

from moecfg.cli.common import FAIL_ON, RANK
from moecfg.cli.runner import not_empty

_PRODUCTS = ("A2", "A3", "H100", "H800", "H20", "H200", "A100", "B200", "GB200")


@click.command(short_help="Check a launch on this machine, then run it.",
               context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--check-only", is_flag=True, help="Report only; never start the command.")
@click.option("--product", type=click.Choice(_PRODUCTS, case_sensitive=False), default=None,
              help="Override the product read from npu-smi / nvidia-smi.")
@click.option("--cann", metavar="VERSION", default=None, callback=not_empty,
              help="Override the CANN release read from the toolkit's version file.")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True,
              help="Lowest severity that refuses the launch.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--tool-timeout", type=click.FloatRange(0.1, 30), default=2.0, show_default=True,
              help="Seconds npu-smi / nvidia-smi may take.")
@click.option("--framework-version", "framework_versions", multiple=True, metavar="NAME=VERSION",
              help="A framework's version when its package metadata is not installed here (e.g. sglang=0.5.8).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Settings file to fill what this machine cannot tell (default: .moecfg.yaml found from here).")
def preflight(command, check_only, product, cann, fail_on, fmt, tool_timeout, framework_versions, config_path):
    """Check COMMAND (given after --) with this machine's product, CANN release, installed framework versions and
    model config, exactly as `moecfg check` would; refuse it (exit 1) on an error, else run it unchanged."""
    from moecfg.preflight.launch import judge
    from moecfg.preflight.machine import read_machine
    from moecfg.preflight.render import as_json, text

    argv = list(command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise click.UsageError("give the launch command after --, e.g. moecfg preflight -- vllm serve /models/x ...")
    if argv[0].startswith("-"):  # an option of ours misspelt: never exec it as the command
        raise click.UsageError(f"no such option: {argv[0]} (the launch command goes after --)")
    env = dict(os.environ)
    facts = read_machine(env, tool_timeout)
    _given_versions(facts, framework_versions)
    settings = _settings(config_path, facts)
    outcome = judge(argv, env, facts, product.upper() if product else None, cann, settings)
    passed = outcome.report.worst_rank() < RANK[fail_on]
    verdict = _verdict(outcome.report, passed, check_only, argv)
    out = sys.stdout if check_only else sys.stderr  # exec: the launched program keeps a clean stdout
    out.write(as_json(outcome, verdict, passed) if fmt == "json" else text(outcome, verdict))
    out.flush()
    if not passed:
        sys.exit(1)
    if check_only:
        return
    _exec(argv)


def _given_versions(facts, given) -> None:
    """`--framework-version vllm-ascend=0.23.0`: the command line wins over package metadata."""
    from moecfg.preflight.machine import PACKAGES

    keys = {v: d for d, v in PACKAGES.items() if v}
    for item in given:
        name, _, version = item.partition("=")
        name, version = name.strip().lower(), version.strip()
        if name not in keys or not version:
            known = ", ".join(sorted(keys))
            raise click.BadParameter(f"{item!r}: give NAME=VERSION with NAME one of {known}",
                                     param_hint="--framework-version")
        facts.packages[keys[name]] = version[:64]
        facts.read.append(f"{name} {version[:64]} <- --framework-version")


def _settings(config_path, facts):
    """The working directory's settings (.moecfg.yaml / pyproject.toml, or --config): they fill only what the
    machine could not tell. A broken file is said under "not read", never the end of the launch."""
    from moecfg.checking.settings import Cli, ConfigError, Settings

    try:
        return Settings(Cli(config=config_path)).for_file(os.getcwd())
    except (ConfigError, OSError) as exc:
        if config_path:
            raise click.BadParameter(str(exc), param_hint="--config") from None
        facts.unread.append(f"settings: {exc}")
        return None


def _verdict(report, passed: bool, check_only: bool, argv) -> str:
    s = report.summary()
    counts = f"{s['errors']} error(s), {s['warnings']} warning(s)"
    if not report.results:
        head = "preflight: not a launch moecfg recognises (nothing checked)"
    elif passed:
        head = f"preflight: passed ({counts})"
    else:
        return f"preflight: refused ({counts}); the command was not started"
    return head + ("" if check_only else f"; starting {argv[0]} unchanged")


def _exec(argv) -> None:
    import signal

    sys.stderr.flush()
    # Python starts with SIGPIPE and SIGXFSZ ignored, and exec keeps an ignored signal ignored: the launched
    # program would see EPIPE / EFBIG where it expects to be stopped (`yes | head -1` prints "Broken pipe")
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        from moecfg.render.escape import text as escaped

        sys.stderr.write(escaped(f"moecfg preflight: cannot start {argv[0]}: {exc.strerror or exc}") + "\n")
        sys.exit(127)
