"""Launches seen in raw text: the recognition table (framework_words.LAUNCHERS) matched line by line, no parse.

This is how a run knows what it did not read: a line that looks like a launch of some engine or trainer and is
not covered by a launch a framework recognised is "seen but not read" (the check orchestration decides that; this
module only finds the lines). A `.py` file is sniffed here and nowhere else: read, one regex, never parsed or run.
"""
from __future__ import annotations

import functools
import re

from moecfg.sources import framework_words as W

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.M)
_PY_SKIPPED = re.compile(r"^[ \t]*(?:#|from[ \t]|import[ \t])")  # a comment or an import names, it does not launch
_SHELL_COMMENT = re.compile(r"^[ \t]*#")


def surface_of(name: str, text: str) -> str | None:
    """Which surface of the table a file is: shell, yaml, markdown, py (None: none of them)."""
    low = name.lower()
    if low.endswith((".yaml", ".yml")):
        return W.YAML
    if low.endswith((".md", ".mdx", ".markdown", ".rst")):
        return W.MARKDOWN
    if low.endswith(".py"):
        return W.PY
    if low.endswith((".sh", ".bash")) or text.startswith("#!") and "sh" in text[:80].split("\n", 1)[0]:
        return W.SHELL
    return None


@functools.cache
def _pattern(surface: str) -> tuple[re.Pattern, tuple]:
    """One alternation per surface, a named group per pattern; the group's index -> its Launcher."""
    parts, owners = [], []
    for launcher in W.LAUNCHERS:
        if surface not in launcher.surfaces:
            continue
        for p in launcher.patterns:
            parts.append(f"(?P<g{len(owners)}>{p})")
            owners.append(launcher)
    return re.compile("|".join(parts), re.M), tuple(owners)


class Seen:
    """A line that looks like a launch of `launcher`."""

    __slots__ = ("line", "launcher")

    def __init__(self, line: int, launcher: W.Launcher):
        self.line, self.launcher = line, launcher

    def __repr__(self):
        return f"Seen({self.line}, {self.launcher.name!r})"


def seen(text: str, surface: str | None) -> list[Seen]:
    """Every launch line of `text` (one per line, first launcher that matches), in line order."""
    if surface is None:
        return []
    pattern, owners = _pattern(surface)
    fences = _fenced(text) if surface == W.MARKDOWN else None
    required: dict[int, bool] = {}
    out: list[Seen] = []
    last = -1
    for m in pattern.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        if start == last:
            continue
        launcher = owners[int(m.lastgroup[1:])]
        if launcher.requires and not required.setdefault(id(launcher), bool(re.search(launcher.requires, text))):
            continue
        line_text = text[start:text.find("\n", m.start()) if "\n" in text[m.start():] else len(text)]
        if not _counts(surface, line_text, m.start() - start, fences, start):
            continue
        last = start
        out.append(Seen(text.count("\n", 0, start) + 1, launcher))
    return out


def _counts(surface: str, line: str, column: int, fences, offset: int) -> bool:
    if surface == W.SHELL or surface == W.YAML:
        return not _SHELL_COMMENT.match(line)
    if surface == W.PY:  # a launch a Python file builds is a string: a quote before the launcher's word
        return not _PY_SKIPPED.match(line) and any(q in line[:column + 1] for q in "\"'")
    if surface == W.MARKDOWN:
        return any(a <= offset < b for a, b in fences)
    return True


def _fenced(text: str) -> list[tuple[int, int]]:
    """Offsets of the bodies of fenced code blocks (``` / ~~~): prose outside them is never a launch."""
    out, opened = [], None
    for m in _FENCE.finditer(text):
        if opened is None:
            opened = (text.find("\n", m.end()) + 1 or len(text), m.group(1)[0])
        elif m.group(1)[0] == opened[1]:
            out.append((opened[0], m.start()))
            opened = None
    if opened is not None:
        out.append((opened[0], len(text)))
    return out
