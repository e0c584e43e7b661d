"""What running as a program needs, without click (cli/plain.py runs `moecfg check PATH...` without it;
cli/runner.py wraps click with the same pieces): SIGTERM as exit 143, stdout/stderr that never fail on a
character, the final flush, an internal error as a short message and exit 3, and the fast exit."""
from __future__ import annotations

import os
import signal
import sys

from moecfg.version import __version__

INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def prepare_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def terminate_cleanly():
    """SIGTERM unwinds like an exit (143), so an --output being written removes its temp file and the old
    report stays (core/output.atomic_path); the default action would kill the process mid-write."""
    def stop(signum, frame):
        raise SystemExit(128 + signum)

    try:
        return signal.signal(signal.SIGTERM, stop)
    except (ValueError, OSError):  # not the main thread (an embedding program): leave its handler alone
        return None


def restore(previous) -> None:
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def internal_error(exc: Exception) -> int:
    """A bug: short message, no traceback (MOECFG_DEBUG=1 re-raises)."""
    if os.environ.get("MOECFG_DEBUG"):
        raise exc
    from moecfg.render.escape import terminal

    sys.stderr.write(terminal(f"moecfg: internal error: {type(exc).__name__}: {exc}\n")
                     + f"This is a bug in moecfg {__version__}; please report it with the command line and the input "
                     "file (MOECFG_DEBUG=1 shows the traceback).\n")
    return 3


def cannot_write(exc: OSError) -> int:
    from moecfg.core.output import silence_stdout
    from moecfg.render.escape import terminal

    silence_stdout()
    sys.stderr.write(terminal(f"moecfg: cannot write the output: {exc.strerror or exc}\n"))
    return 2


def flush(code: int) -> int:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        from moecfg.core.output import silence_stdout

        silence_stdout()
    except OSError as exc:
        from moecfg.core.output import silence_stdout

        silence_stdout()
        sys.stderr.write(f"moecfg: cannot write the output: {exc.strerror or exc}\n")
        return 2
    return code


def exit_now(code: int) -> None:
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
