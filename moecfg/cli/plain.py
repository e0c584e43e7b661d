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

    try:
        settings = Settings()
        report = check_paths(paths, Options(), settings, progress=sys.stderr.isatty())
        code = int(failing(report, settings))
    except (PathError, ConfigError):
        return None
    from moecfg.core.output import write_stdout
    from moecfg.render import load

    fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    write_stdout(load(fmt).render(report, color=color, command="check"))
    return code


def failing(report, settings) -> bool:
    """A diagnostic at or above the --fail-on of its file (command line, else its config file)."""
    thresholds = {}
    for r in report.results:
        if r.file not in thresholds:
            thresholds[r.file] = RANK[settings.for_file(r.file).fail_on]
        if any(RANK[d.severity] >= thresholds[r.file] for d in r.diagnostics):
            return True
    return any(settings.for_file(u.file).unread == "error" for u in getattr(report, "unread", ()))
