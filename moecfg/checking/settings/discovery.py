"""Which config file applies to a folder: the nearest `.moecfg.yaml` / `.moecfg.yml`, or a `pyproject.toml`
with a `[tool.moecfg]` table, at or above it (cached per folder in the caller's dict: one run's cache)."""
from __future__ import annotations

import os
import re

YAML_NAMES = (".moecfg.yaml", ".moecfg.yml")
# blanks, not \s: `^\s*` also eats newlines and backtracks quadratically over blank lines (200 KB: 87 s)
_TABLE = re.compile(r"^[ \t]*\[tool\.moecfg[\].]", re.M)


def find(start_dir: str, cache: dict | None = None) -> str | None:
    """Nearest config file at or above `start_dir`; `cache` (folder -> found) is the caller's, for one run."""
    found_in = {} if cache is None else cache
    d = os.path.abspath(start_dir or ".")
    trail = []
    found = None
    while True:
        if d in found_in:
            found = found_in[d]
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
        found_in[t] = found
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
