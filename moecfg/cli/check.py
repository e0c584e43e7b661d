"""`moecfg check`: the linter. Imported only when `check` runs (cli/__init__.py loads commands lazily)."""
from __future__ import annotations

import os
import sys

import click

from moecfg.cli import plain
from moecfg.cli.common import FAIL_ON, ConfigFailure, common_options, emit, launch_options, options, write_stdout


@click.command(short_help="Lint deployment files, directories and stdin.")
@click.argument("paths", nargs=-1)
@common_options
@click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
              help="Lowest severity that makes the exit code 1 (default: config file's fail-on, else error).")
@launch_options
@click.option("--exit-zero", is_flag=True,
              help="Exit 0 even with diagnostics (2 and 3 still signal usage and internal errors).")
@click.option("--ignore", "ignore", multiple=True, metavar="CODE",
              help="Ignore a rule code, code prefix (MC5) or name; adds to the config's ignore.")
@click.option("--no-inline-suppressions", is_flag=True, default=None,
              help="Ignore `# moecfg: disable` comments (CI that forbids them).")
@click.option("--show-config", is_flag=True, help="Print the effective configuration for each PATH (or .) and exit.")
@click.option("--markdown/--no-markdown", "markdown", default=None,
              help="Read launch commands in documentation (*.md, *.mdx, *.rst code blocks) while walking folders "
              "(default: yes, except at a repository's top folder).")
@click.option("--verbose", "-v", is_flag=True, help="Also list the files and documents skipped (not moecfg documents, "
              "no launch) and why, and each launch seen but not read with its launcher and why, on stderr.")
@click.option("--fail-on-unread", is_flag=True, default=None,
              help="Exit 1 when a launch was seen but not read (default: listed only; setting `unread: error`).")
@click.option("--no-respect-gitignore", is_flag=True, default=None,
              help="Also walk what .gitignore files ignore (default: respected; setting `respect-gitignore`).")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print a unified diff of every automatic fix and change nothing (exit 1 when there is a diff).")
@click.option("--fix", "apply_fix", is_flag=True,
              help="Apply every automatic fix to the files checked (only the values named), print what changed on "
              "stderr, then report what is left.")
@click.option("--quiet", "-q", is_flag=True,
              help="Text output: the findings and the summary only (no buffer table of each document that is fine).")
@click.option("--statistics", is_flag=True,
              help="Text output: how many findings of each code (most frequent first), then the summary.")
def check(paths, fmt, output, cann, fail_on, product, framework_versions, config_path, exit_zero, ignore,
          no_inline_suppressions, show_config, markdown, verbose, fail_on_unread, no_respect_gitignore, show_diff,
          apply_fix, quiet, statistics):
    """Lint deployment files, directories (recursively: *.yaml/*.yml, *.sh/*.bash, and the code blocks of *.md/*.rst
    documentation, see --markdown) and - (stdin). No PATH: the current folder, as `moecfg check .`."""
    from moecfg.checking.settings import Cli, ConfigError, Settings, code_or_prefix
    from moecfg.checking.engine import PathError, check_paths

    try:
        cli_settings = Cli(config=config_path, cann=cann, fail_on=fail_on,
                           ignore=tuple(code_or_prefix(c, "--ignore") for c in ignore),
                           inline_suppressions=False if no_inline_suppressions else None, markdown=markdown,
                           respect_gitignore=False if no_respect_gitignore else None,
                           unread="error" if fail_on_unread else None)
        settings = Settings(cli_settings)
        if show_config:
            _show_config(settings, paths or (".",))
            return
        paths = paths or (".",)
        if show_diff and apply_fix:
            raise click.UsageError("give --diff or --fix, not both")
        if apply_fix and "-" in paths and len(paths) > 1:  # the check after the fixes cannot read stdin again
            raise click.UsageError("--fix with - (stdin) and files: check stdin on its own (it is never fixed)")
        opts = options(cann, product, framework_versions)
        text = (_text_to_stdout(fmt, output) and not (show_diff or apply_fix)
                and (plain.streamed(paths) or quiet or statistics))
        if text:  # streamed: each file's lines as soon as it is done
            color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
            report = plain.stream_text(paths, opts, settings, color=color, quiet=quiet, statistics=statistics)
        else:
            report = check_paths(paths, opts, settings, progress=all(f == "text" for f in fmt) and sys.stderr.isatty(),
                                 deadline=True)
        if show_diff:
            sys.exit(_show_diff(report, paths))
        if apply_fix:
            report = _apply(report, paths, lambda: check_paths(paths, opts, settings, deadline=True))
        failing = plain.failing(report, settings)
        if verbose:
            _list_skipped(report)
    except PathError as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigError as exc:
        raise ConfigFailure(f"config: {exc}") from None
    if not text:
        emit(report, fmt, output, "check", auto_github=True)
    sys.exit(0 if exit_zero else int(failing))


def _text_to_stdout(fmt, output) -> bool:
    """The output is text on stdout alone (what is streamed): no --format but text, no --output, not on GitHub."""
    from moecfg.cli.common import targets

    return targets(fmt, output, True) == [("text", None)]


FIX_PASSES = 4  # a fix may reveal another (two fixes on one value: the second is judged after the first)


def _show_diff(report, paths) -> int:
    from moecfg.cli import fix
    from moecfg.render import escape

    found = fix.changes(report, [p for p in paths if p != "-"])
    text = "".join(fix.diff(c) for c in found if not c.refused and c.after != c.before)
    if text:  # a file's text is untrusted: control characters shown escaped, but a CRLF line ending kept
        write_stdout("".join(escape.terminal(line[:-2]) + "\r\n" if line.endswith("\r\n") else escape.terminal(line)
                             for line in text.splitlines(keepends=True)))
    notes = [line for c in found for line in fix.described(c)]
    if notes:
        click.echo(escape.lines([f"would fix {line}" if ": not fixed:" not in line else line for line in notes]),
                   err=True, nl=False)
    return 1 if text else 0


def _apply(report, paths, recheck):
    from moecfg.cli import fix
    from moecfg.render import escape

    roots, said, files = [p for p in paths if p != "-"], [], set()
    for _ in range(FIX_PASSES):
        found = fix.changes(report, roots)
        written = [c for c in found if not c.refused and c.after != c.before]
        for c in written:
            try:
                fix.write(c)
            except OSError as exc:  # a read-only folder or file: said, never a traceback
                c.refused, c.applied = f"could not be written ({exc.strerror or type(exc).__name__})", []
        said += [line for c in found for line in fix.described(c) if line not in said]
        written = [c for c in written if not c.refused]
        files.update(c.file for c in written)
        if not written:
            break
        report = recheck()
    if said:
        fixed = [line for line in said if ": not fixed:" not in line]
        lines = [f"fixed {line}" if ": not fixed:" not in line else line for line in said]
        lines.append(f"Fixed {len(fixed)} finding{'s' * (len(fixed) != 1)} in {len(files)} "
                     f"file{'s' * (len(files) != 1)}.")
        click.echo(escape.lines(lines), err=True, nl=False)
    return report


def _list_skipped(report) -> None:
    from moecfg.render import escape

    if report.skipped:  # file names and keys are untrusted: escaped as text output is (render/escape.py)
        click.echo(escape.lines(f"skipped {s.file}: {s.reason}" for s in report.skipped), err=True, nl=False)
    if report.unread:  # launches seen but not read (issue 30), each with its launcher and why
        click.echo(escape.lines(f"not read {u.file}:{u.line}: {u.launcher}: {u.reason}" for u in report.unread),
                   err=True, nl=False)


def _show_config(settings, paths) -> None:
    import json

    from moecfg.checking.settings import effective

    out = [effective(settings, p) for p in paths]
    write_stdout(json.dumps(out if len(out) > 1 else out[0], indent=2) + "\n")
