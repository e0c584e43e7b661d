"""Which config file applies to a folder: the nearest `.moecfg.yaml` / `.moecfg.yml`, or a `pyproject.toml`
with a `[tool.moecfg]` table, at or above it (cached per folder for the run)."""
from __future__ import annotations

import os
import re

YAML_NAMES = (".moecfg.yaml", ".moecfg.yml")
# blanks, not \s: `^\s*` also eats newlines and backtracks quadratically over blank lines (200 KB: 87 s)
_TABLE = re.compile(r"^[ \t]*\[tool\.moecfg[\].]", re.M)

_FOUND: dict[str, str | None] = {}


def find(start_dir: str) -> str | None:
    """Nearest config file at or above `start_dir`."""
    d = os.path.abspath(start_dir or ".")
    trail = []
    found = None
    while True:
        if d in _FOUND:
            found = _FOUND[d]
            break
        trail.append(d)
        found = _in_dir(d)
        if found:
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    for t in trail:
        _FOUND[t] = found
    return found


def _in_dir(d: str) -> str | None:
    for name in YAML_NAMES:
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    p = os.path.join(d, "pyproject.toml")
    if os.path.isfile(p):
        from moecfg.sources.files import Entry, Unreadable, read

        try:
            if _TABLE.search(read(Entry(p)).decode("utf-8", "replace")):
                return p
        except Unreadable:
            return None
    return None
