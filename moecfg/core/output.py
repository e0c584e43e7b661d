"""Writing report files: atomically, through a temp file in the target's folder and `os.replace`.

`os.replace` swaps the directory entry, so an `--output` that is a symlink committed by a pull request
(`report.txt -> ~/.profile`) is replaced by a regular file instead of being written through, and a run
killed mid-write leaves the old file (or none), never a truncated report.
"""
from __future__ import annotations

import contextlib
import os
import sys


class OutputError(Exception):
    """An output path that cannot be written (a usage error, exit 2)."""


def check_target(path: str, option: str = "--output") -> None:
    """An empty file name is a mistake (an unset CI variable), not a request for stdout."""
    if not path.strip():
        raise OutputError(f"{option} needs a file name (use - for stdout)")


def _mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def atomic_path(path: str, option: str = "--output"):
    """Yield a temp path next to `path` (same suffix, for tools that pick the format by it); on success
    it replaces `path`, on any failure it is removed and `path` is left untouched."""
    check_target(path, option)
    folder = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    try:
        import tempfile  # only when an --output is written

        fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp" + os.path.splitext(base)[1], dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write {option} {path}: {exc.strerror or exc}") from None
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, _mode())
        os.replace(tmp, path)
    except OSError as exc:
        _remove(tmp)
        raise OutputError(f"cannot write {option} {path}: {exc.strerror or exc}") from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def write_text(path: str, text: str, option: str = "--output") -> None:
    with atomic_path(path, option) as tmp:
        with open(tmp, "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(text)


def silence_stdout() -> None:
    """Point stdout at /dev/null (its reader is gone): later writes and the flush at exit succeed quietly."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests capture it)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def write_stdout(text: str) -> None:
    """Print a report. A closed pipe (`moecfg check . | head -0`) is not an error: the exit code still
    says whether there were findings. Other I/O errors (a full disk) propagate (exit 2)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
