"""Running the click group as a program: exit codes (contract §4) for what click would blur.

- Ctrl-C is exit 130 (click turns it into "Aborted!" and exit 1, which looks like findings); SIGTERM is
  exit 143 after the same clean-up (no temp file of an --output left behind).
- A closed stdout is quiet (see core/output.write_stdout); another I/O error on stdout (`>/dev/full`) is
  exit 2 with a message, not an internal error.
- Error messages may quote file names and values: printed through the terminal escaper (no control
  characters, no GitHub workflow commands on stderr either).
- stdout/stderr never fail on an unencodable character (shown as a backslash escape).
- Any other exception is a bug: a short message and exit 3 (MOECFG_DEBUG=1 shows the traceback).
"""
from __future__ import annotations

import sys

import click

from moecfg.cli.process import INTERRUPTED, cannot_write, exit_now, flush, internal_error, prepare_streams, restore
from moecfg.cli.process import terminate_cleanly
from moecfg.render.escape import terminal


def run(group: click.Group, argv=None) -> None:
    previous = terminate_cleanly()
    prepare_streams()
    try:
        code = flush(_invoke(group, argv))
    finally:
        restore(previous)
    if argv is None:  # the process's own command line (console script, python -m moecfg), not a caller's argv
        exit_now(code)
    sys.exit(code)


def _invoke(group, argv) -> int:
    try:
        rv = group.main(args=argv, prog_name="moecfg", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except (KeyboardInterrupt, click.exceptions.Abort):
        sys.stderr.write("moecfg: interrupted\n")
        return INTERRUPTED
    except click.ClickException as exc:
        exc.message = terminal(exc.message)
        exc.show()
        return exc.exit_code
    except OSError as exc:  # writing the report failed (click re-raises everything but EPIPE)
        return cannot_write(exc)
    except Exception as exc:  # a bug: short message, no traceback
        return internal_error(exc)


def not_empty(ctx, param, value):
    """Click callback: `--cann ''` (an unset CI variable) is a usage error, not "no version"."""
    if value is not None and not value.strip():
        raise click.BadParameter("needs a value (an empty string was given)", ctx=ctx, param=param)
    return value
