"""`moecfg check PATH...` with no option, without click: the same engine, settings, renderer and exit codes as
cli/check.py (which calls `failing` here), for the run a CI step or an editor makes most. A usage problem (a
missing path, a broken config file) is left to click, which runs the command again and words the error."""
from __future__ import annotations

import os
import sys

from moecfg.cli.process import INTERRUPTED, cannot_write, exit_now, flush, internal_error, prepare_streams, restore
from moecfg.cli.process import terminate_cleanly

RANK = {"info": 0, "warning": 1, "error": 2, "never": 99}


def run_check(paths: list[str]) -> None:
    """Exit with the check's code; return (without output) when click must run it to word a usage error."""
    previous = terminate_cleanly()
    prepare_streams()
    try:
        code = _check(paths)
    except KeyboardInterrupt:
        sys.stderr.write("moecfg: interrupted\n")
        code = INTERRUPTED
    except OSError as exc:  # writing the report failed
        code = cannot_write(exc)
    except Exception as exc:  # a bug: short message, no traceback
        code = internal_error(exc)
    finally:
        restore(previous)
    if code is not None:
        exit_now(flush(code))


def _check(paths: list[str]) -> int | None:
    from moecfg.backends import Options
    from moecfg.checking.engine import PathError, check_paths
    from moecfg.checking.settings import ConfigError, Settings

    fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    try:
        settings = Settings()
        if fmt == "text" and streamed(paths):
            return int(failing(stream_text(paths, Options(), settings, color=color), settings))
        report = check_paths(paths, Options(), settings, progress=sys.stderr.isatty())
        code = int(failing(report, settings))
    except (PathError, ConfigError):
        return None
    from moecfg.core.output import write_stdout
    from moecfg.render import load

    write_stdout(load(fmt).render(report, color=color, command="check"))
    return code


def streamed(paths) -> bool:
    """Text output is streamed file by file when a run may check more than one file (a folder, several paths);
    a single named file prints at once, as ever (its findings in line order)."""
    return len(paths) > 1 or any(p != "-" and os.path.isdir(p) for p in paths)


def stream_text(paths, options, settings, *, color: bool = False, quiet: bool = False, statistics: bool = False):
    """Check `paths`, writing each file's text output as soon as it is done (checking/stream.py); the Report."""
    from moecfg.checking.stream import StreamedCheck
    from moecfg.core.output import write_stdout
    from moecfg.render.text import stream

    # a progress bar only when the streamed lines do not go to the same terminal
    run = StreamedCheck(paths, options, settings, progress=sys.stderr.isatty() and not sys.stdout.isatty(),
                        deadline=True)
    stream(run, write_stdout, color=color, quiet=quiet, statistics=statistics)
    return run.report


def failing(report, settings) -> bool:
    """A diagnostic at or above the --fail-on of its file (command line, else its config file)."""
    thresholds = {}
    for r in report.results:
        if r.file not in thresholds:
            thresholds[r.file] = RANK[settings.for_file(r.file).fail_on]
        if any(RANK[d.severity] >= thresholds[r.file] for d in r.diagnostics):
            return True
    return any(settings.for_file(u.file).unread == "error" for u in getattr(report, "unread", ()))
