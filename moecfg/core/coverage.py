"""Coverage (issue 30): what a run read, and every launch it saw but did not read, with the launcher and why.

Per file: the launches frameworks recognised (their lines), what readers and frameworks said they did not read
(`LaunchFile.unread`, `Derivation.unread`), and the recognition table matched on the raw text
(sources/seen.py): a table line no recognised launch covers and nobody reported is a launch seen but not read.
Each file then ends in one state: `read`, `unread`, `checked` or `skipped` (with its reason).
Nothing here is a finding: a run fails on it only when asked (`--fail-on-unread`, settings `unread: error`).
"""
from __future__ import annotations

READ, UNREAD, CHECKED, SKIPPED = "read", "unread", "checked", "skipped"
PY_REASON = "Python file building a launch (not read)"
ROOT_MARKDOWN = "Markdown with {n} launch command{s} not read at a repository root (--markdown)"


class UnreadLaunch:
    """One launch seen but not read: the report's `unread[]` entry."""

    __slots__ = ("file", "line", "launcher", "reason")

    def __init__(self, file: str, line: int, launcher: str, reason: str):
        self.file, self.line, self.launcher, self.reason = file, line, launcher, reason

    def __eq__(self, other):
        return isinstance(other, UnreadLaunch) and self.to_dict() == other.to_dict()

    __hash__ = None

    def __repr__(self):
        return f"UnreadLaunch({self.file!r}, {self.line}, {self.launcher!r}, {self.reason!r})"

    def to_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "launcher": self.launcher, "reason": self.reason}


class FileState:
    """The state one file ended in (`files[]` of the report)."""

    __slots__ = ("file", "state", "reason")

    def __init__(self, file: str, state: str, reason: str = ""):
        self.file, self.state, self.reason = file, state, reason

    def to_dict(self) -> dict:
        out = {"file": self.file, "state": self.state}
        if self.reason:
            out["reason"] = self.reason
        return out


class Coverage:
    """One file's coverage while it is analysed: frameworks and readers report into it, then `sniff` the text."""

    __slots__ = ("name", "extents", "unread")

    def __init__(self, name: str):
        self.name = name
        self.extents: list[tuple[int, int]] = []  # first..last line of each recognised launch
        self.unread: list[UnreadLaunch] = []

    def recognised(self, launch, derivation) -> None:
        lines = [w.span.line for w in launch.argv] + [w.span.end_line for w in launch.argv]
        if lines:
            self.extents.append((min(lines), max(lines)))
        self.from_records(getattr(derivation, "unread", ()))

    def from_records(self, records) -> None:
        """`sources.launch.Unread` records from a reader or a framework."""
        self.unread.extend(UnreadLaunch(self.name, u.span.line, u.launcher, u.reason) for u in records)

    def sniff(self, text: str | None, surface: str | None, reason: str | None = None) -> None:
        """The table's launch lines not covered by a recognised launch nor already reported."""
        if text is None or surface is None:
            return
        from moecfg.sources.seen import seen

        said = {u.line for u in self.unread}
        for s in seen(text, surface):
            if s.line in said or any(a <= s.line <= b for a, b in self.extents):
                continue
            self.unread.append(UnreadLaunch(self.name, s.line, s.launcher.name, reason or s.launcher.reason))

    def sniff_only(self, text: str, surface: str) -> None:
        """A file walked for launch words only (a `.py`, documentation at a repository root)."""
        from moecfg.sources.seen import seen

        found = seen(text, surface)
        if surface == "py":
            reason = PY_REASON
        else:
            reason = ROOT_MARKDOWN.format(n=len(found), s="" if len(found) == 1 else "s")
        self.unread.extend(UnreadLaunch(self.name, s.line, s.launcher.name, reason) for s in found)


def state_of(name: str, results, skipped, unread) -> FileState:
    """read > unread > checked > skipped: a file with a recognised launch is read (its unread ones are listed)."""
    if any(r.launch for r in results):
        return FileState(name, READ)
    if unread:
        groups = by_launcher(unread)
        return FileState(name, UNREAD, f"{_launches(len(unread))} not read ({_grouped(groups)})")
    if results:
        return FileState(name, CHECKED)
    reason = skipped[0].reason if skipped else "nothing to check"
    return FileState(name, SKIPPED, reason)


def by_launcher(unread) -> dict[str, int]:
    out: dict[str, int] = {}
    for u in unread:
        out[u.launcher] = out.get(u.launcher, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


def _grouped(groups: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in groups.items())


def _launches(n: int) -> str:
    return f"{n} launch" + ("" if n == 1 else "es")


def launch_counts(results) -> tuple[int, int]:
    """(launches read, of them with an op call): a launch is (file, launch.index)."""
    read, with_ops = set(), set()
    for r in results:
        if not r.launch:
            continue
        key = (r.file, r.launch.get("index", 0))
        read.add(key)
        if r.kind and r.kind != "none":
            with_ops.add(key)
    return len(read), len(with_ops)


def summary_text(report) -> str:
    """`12 launches read (3 with op calls), 53 launches not read (ms-swift megatron 53): -v lists them`."""
    read, with_ops = launch_counts(report.results)
    text = f"{_launches(read)} read ({with_ops} with op calls)"
    if report.unread:
        text += f", {_launches(len(report.unread))} not read ({_grouped(by_launcher(report.unread))}): -v lists them"
    return text
