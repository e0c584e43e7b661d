"""Writing report files: atomically, through a temp file in the target's folder and `os.replace`.

`os.replace` swaps the directory entry, so an `--output` that is a symlink committed by a pull request
(`report.txt -> ~/.profile`) is replaced by a regular file instead of being written through, and a run
killed mid-write leaves the old file (or none), never a truncated report.
"""
from __future__ import annotations

import contextlib
import os
import tempfile


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
