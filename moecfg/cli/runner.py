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

import os
import signal
import sys

import click

from moecfg.version import __version__
from moecfg.core.output import silence_stdout
from moecfg.render.escape import terminal

INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def run(group: click.Group, argv=None) -> None:
    previous = _terminate_cleanly()
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        code = _flush(_invoke(group, argv))
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if argv is None:  # the process's own command line (console script, python -m moecfg), not a caller's argv
        _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> None:
    """End the process without the interpreter's teardown of every module and object, ~10 % of a one-file
    `moecfg check` (benchmarks/bench_check.py): the report is written and flushed, output files are closed,
    atexit handlers still run; only the freeing of memory the OS reclaims anyway is skipped."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _terminate_cleanly():
    """SIGTERM unwinds like an exit (143), so an --output being written removes its temp file and the old
    report stays (core/output.atomic_path); the default action would kill the process mid-write."""
    def stop(signum, frame):
        raise SystemExit(128 + signum)

    try:
        return signal.signal(signal.SIGTERM, stop)
    except (ValueError, OSError):  # not the main thread (an embedding program): leave its handler alone
        return None


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
        silence_stdout()
        sys.stderr.write(terminal(f"moecfg: cannot write the output: {exc.strerror or exc}\n"))
        return 2
    except Exception as exc:  # a bug: short message, no traceback
        if os.environ.get("MOECFG_DEBUG"):
            raise
        sys.stderr.write(terminal(f"moecfg: internal error: {type(exc).__name__}: {exc}\n")
                         + f"This is a bug in moecfg {__version__}; please report it with the command line and the input "
                         "file (MOECFG_DEBUG=1 shows the traceback).\n")
        return 3


def _flush(code: int) -> int:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    except OSError as exc:
        silence_stdout()
        sys.stderr.write(f"moecfg: cannot write the output: {exc.strerror or exc}\n")
        return 2
    return code


def not_empty(ctx, param, value):
    """Click callback: `--cann ''` (an unset CI variable) is a usage error, not "no version"."""
    if value is not None and not value.strip():
        raise click.BadParameter("needs a value (an empty string was given)", ctx=ctx, param=param)
    return value
