"""`moecfg check`: the linter. Imported only when `check` runs (cli/__init__.py loads commands lazily)."""
from __future__ import annotations

import sys

import click

from moecfg.cli import plain
from moecfg.cli.common import FAIL_ON, ConfigFailure, common_options, emit, options, write_stdout


@click.command(short_help="Lint deployment files, directories and stdin.")
@click.argument("paths", nargs=-1)
@common_options
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
@click.option("--markdown/--no-markdown", "markdown", default=None,
              help="Read launch commands in documentation (*.md, *.mdx, *.rst code blocks) while walking folders "
              "(default: yes, except at a repository's top folder).")
@click.option("--verbose", "-v", is_flag=True, help="Also list the files and documents skipped (not moecfg documents, "
              "no launch) and why, on stderr.")
@click.option("--no-respect-gitignore", is_flag=True, default=None,
              help="Also walk what .gitignore files ignore (default: respected; setting `respect-gitignore`).")
def check(paths, fmt, output, cann, fail_on, exit_zero, config_path, ignore, no_inline_suppressions, show_config,
          product, markdown, verbose, no_respect_gitignore):
    """Lint deployment files, directories (recursively: *.yaml/*.yml, *.sh/*.bash, and the code blocks of *.md/*.rst
    documentation, see --markdown) and - (stdin)."""
    from moecfg.checking.settings import Cli, ConfigError, Settings, code_or_prefix
    from moecfg.checking.engine import PathError, check_paths

    try:
        cli_settings = Cli(config=config_path, cann=cann, fail_on=fail_on,
                           ignore=tuple(code_or_prefix(c, "--ignore") for c in ignore),
                           inline_suppressions=False if no_inline_suppressions else None, markdown=markdown,
                           respect_gitignore=False if no_respect_gitignore else None)
        settings = Settings(cli_settings)
        if show_config:
            _show_config(settings, paths or (".",))
            return
        if not paths:
            raise click.UsageError("give at least one PATH (a file, a directory or - for stdin)")
        report = check_paths(paths, options(cann, product.upper() if product else None), settings,
                             progress=all(f == "text" for f in fmt) and sys.stderr.isatty(), deadline=True)
        failing = plain.failing(report, settings)
        if verbose:
            _list_skipped(report)
    except PathError as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigError as exc:
        raise ConfigFailure(f"config: {exc}") from None
    emit(report, fmt, output, "check", auto_github=True)
    sys.exit(0 if exit_zero else int(failing))


def _list_skipped(report) -> None:
    from moecfg.render import escape

    if report.skipped:  # file names and keys are untrusted: escaped as text output is (render/escape.py)
        click.echo(escape.lines(f"skipped {s.file}: {s.reason}" for s in report.skipped), err=True, nl=False)


def _show_config(settings, paths) -> None:
    import json

    from moecfg.checking.settings import effective

    out = [effective(settings, p) for p in paths]
    write_stdout(json.dumps(out if len(out) > 1 else out[0], indent=2) + "\n")
