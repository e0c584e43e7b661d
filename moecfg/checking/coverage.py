"""Coverage (issue 30): what a run read, and every launch it saw but did not read, with the launcher and why.

Per file: the launches frameworks recognised (their lines), what readers and frameworks said they did not read
(`LaunchFile.unread`, `Derivation.unread`), and the recognition table matched on the raw text
(sources/seen.py): a table line no recognised launch covers and nobody reported is a launch seen but not read.
Each file then ends in one state: `read`, `unread`, `checked` or `skipped` (with its reason).
Nothing here is a finding: a run fails on it only when asked (`--fail-on-unread`, settings `unread: error`).
"""
from __future__ import annotations

import re

from moecfg.core.coverage import UnreadLaunch

PY_REASON = "Python file building a launch (not read)"
ROOT_MARKDOWN = "Markdown with {n} launch command{s} not read at a repository root (--markdown)"


TEMPLATE_REASON = "inside a template (`{{ ... }}` filled in at deploy time): read once rendered (`helm template`)"
_TEMPLATE_NEAR = 20  # lines: a launch command this close to a template expression is taken as templated


def _templated_lines(text: str) -> list[int]:
    """1-based lines holding a template expression (`{{ .Spec.Model.Name }}`); [] for most files (one search)."""
    if "{{" not in text:
        return []
    out, at = [], text.find("{{")
    line, pos = 1, 0
    while at >= 0 and len(out) < 10_000:
        line += text.count("\n", pos, at)
        pos = at
        if not out or out[-1] != line:
            out.append(line)
        at = text.find("{{", at + 2)
    return out


_ASSIGNMENT = re.compile(r"^[ \t]*(?:(?:export|local|readonly|declare(?:[ \t]+-\w+)*)[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)\+?=")


class Coverage:
    """One file's coverage while it is analysed: frameworks and readers report into it, then `sniff` the text."""

    __slots__ = ("name", "extents", "unread", "data")

    def __init__(self, name: str):
        self.name = name
        self.extents: list[tuple[int, int]] = []  # first..last line of each recognised launch
        self.unread: list[UnreadLaunch] = []
        self.data: list[tuple[int, int, str]] = []  # heredoc bodies fed to a command as data (sources/shell)

    def recognised(self, launch, derivation) -> None:
        lines = [w.span.line for w in launch.argv] + [w.span.end_line for w in launch.argv]
        if lines:
            self.extents.append((min(lines), max(lines)))
        self.from_records(getattr(derivation, "unread", ()))
        self._outside(derivation)

    def _outside(self, derivation) -> None:
        """A file the launch names (a --deepep-config, a model's config.json) that moecfg does not read because
        it lies outside the checked tree: the launch is read, that part of it is listed (`config outside the tree`)."""
        from moecfg.sources.contained import OUTSIDE

        notes = list(derivation.notes) + [n for call in derivation.calls for n in call.notes]
        for note in notes:
            if OUTSIDE in note.message and note.span.line not in {u.line for u in self.unread}:
                what = note.message.split(":", 1)[0]
                self.unread.append(UnreadLaunch(self.name, note.span.line, derivation.framework,
                                                f"config outside the tree: {what}"))

    def from_records(self, records) -> None:
        """`sources.launch.Unread` records from a reader or a framework."""
        self.unread.extend(UnreadLaunch(self.name, u.span.line, u.launcher, u.reason) for u in records)

    def sniff(self, text: str | None, surface: str | None, reason: str | None = None) -> None:
        """The table's launch lines not covered by a recognised launch nor already reported."""
        if text is None or surface is None:
            return
        from moecfg.sources.seen import seen

        said = {u.line for u in self.unread}
        templated = _templated_lines(text)
        lines = None
        for s in seen(text, surface):
            if s.line in said or any(a <= line <= b for line in s.matched for a, b in self.extents):
                continue
            if self.extents and surface in ("shell", "markdown"):
                lines = lines or text.split("\n")
                if self._held(lines, s.matched):
                    continue
            if s.launcher.surfaces == {"yaml"} and self.extents:  # a config's key (verl's `actor_rollout_ref:`)
                continue  # in a file a framework read: its reader read the config, the launch lines lie elsewhere

            near = templated and any(abs(s.line - t) <= _TEMPLATE_NEAR for t in templated)
            self.unread.append(UnreadLaunch(self.name, s.line, s.launcher.name, reason or self._in_data(s.line)
                                            or (TEMPLATE_REASON if near else s.launcher.reason)))

    def _held(self, lines: list[str], matched: tuple) -> bool:
        """The launch words sit in a variable's assignment (`CMD="${CMD}torchrun ..."`) that a recognised launch
        expands (`bash -c "$CMD"`, `$CMD`): read there, at the line that runs it, not a launch of its own."""
        for line in matched:
            m = _ASSIGNMENT.match(lines[line - 1]) if 0 < line <= len(lines) else None
            if m is None:
                return False
            used = re.compile(r"\$\{?" + m.group(1) + r"(?![A-Za-z0-9_])")
            if not any(used.search(lines[i - 1]) for a, b in self.extents for i in range(a, min(b, len(lines)) + 1)):
                return False
        return True

    def _in_data(self, line: int) -> str | None:
        for a, b, command in self.data:
            if a <= line <= b:
                return f"inside a heredoc fed to `{command}` as data (a manifest or config applied at run time): not read"
        return None

    def sniff_only(self, text: str, surface: str) -> None:
        """A file walked for launch words only (a `.py`, documentation at a repository root)."""
        from moecfg.sources.seen import seen

        found = seen(text, surface)
        if surface == "py":
            reason = PY_REASON
        else:
            reason = ROOT_MARKDOWN.format(n=len(found), s="" if len(found) == 1 else "s")
        self.unread.extend(UnreadLaunch(self.name, s.line, s.launcher.name, reason) for s in found)
