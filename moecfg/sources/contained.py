"""Files a launch or a settings file names (`--deepep-config FILE`, settings `models:` config.json paths) are
read only inside the checked tree: the folder being checked (`moecfg check DIR`; a named file's own folder;
the working directory for stdin and the API) or the settings file's own folder. The path is resolved with its
links (realpath) and must stay inside one of those folders; only a regular file is read (opened non-blocking,
so a FIFO or `/dev/stdin` cannot stall the run), at most `limit` bytes. Anything else raises `Unreadable` with a
reason that names the path, never its content. moecfg runs in CI on pull requests: a launch that names
`/proc/self/environ` or `../../../etc/passwd` must not get the runner's files printed into the log.
"""
from __future__ import annotations

import contextlib
import os
import stat
from contextvars import ContextVar

from moecfg.sources.files import Unreadable

MAX_BYTES = 1 << 20  # a JSON config of a few KiB; a config.json of a model is < 100 KiB
_CHECKED_ROOT: ContextVar[str | None] = ContextVar("moecfg_checked_root", default=None)


@contextlib.contextmanager
def checking(root: str | None):
    """While checking one file: the folder it was found in (the tree a launch may read from)."""
    token = _CHECKED_ROOT.set(root)
    try:
        yield
    finally:
        _CHECKED_ROOT.reset(token)


def tree_roots(settings_dir: str | None = None) -> tuple[str, ...]:
    """The folders files may be read from: the checked tree, and the settings file's own folder."""
    roots = [_CHECKED_ROOT.get() or os.getcwd()]
    if settings_dir:
        roots.append(settings_dir)
    return tuple(os.path.realpath(r) for r in roots)


OUTSIDE = "outside the checked folder and the settings file's folder"  # checking/coverage.py lists what says it


def _inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def resolve(path: str, base: str | None, roots: tuple[str, ...]) -> str:
    """The real path of `path` (relative to `base`), or Unreadable when it leaves every root."""
    if not path or "\x00" in path:
        raise Unreadable("not a file name")
    real = os.path.realpath(os.path.join(base or roots[0], path))
    if not any(_inside(real, r) for r in roots):
        raise Unreadable(f"{OUTSIDE} (moecfg reads no file outside them, links included)")
    return real


def read_inside(path: str, base: str | None, roots: tuple[str, ...], limit: int = MAX_BYTES) -> bytes:
    """The bytes of regular file `path` inside `roots`; Unreadable otherwise (see the module docstring)."""
    real = resolve(path, base, roots)
    if os.path.isdir(real):
        real = os.path.join(real, "config.json")  # a model folder: its config.json (same check below)
    try:
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
                     | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise Unreadable(f"cannot read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Unreadable("not a regular file (a folder, device, FIFO or socket); not read")
        if st.st_size > limit:
            raise Unreadable(f"larger than {limit >> 10} KiB; not read")
        try:
            raw = fh.read(limit + 1)
        except OSError as exc:
            raise Unreadable(f"cannot read ({exc.strerror or exc})") from None
    if len(raw) > limit:
        raise Unreadable(f"larger than {limit >> 10} KiB; not read")
    return raw
