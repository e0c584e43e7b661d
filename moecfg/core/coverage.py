"""Coverage records (issue 30): a launch seen but not read, the state a file ended in, and the run's counts.
Plain records and counting, importing nothing (core is the ground); checking/coverage.py finds them."""
from __future__ import annotations

READ, UNREAD, CHECKED, SKIPPED = "read", "unread", "checked", "skipped"


class UnreadLaunch:
    """One launch seen but not read: the report's `unread[]` entry."""

    __slots__ = ("file", "line", "launcher", "reason")

    def __init__(self, file: str, line: int, launcher: str, reason: str):
        # a reader may name the launcher from the file's text: one printable line, clipped (the summary line and
        # `github` output print it; nothing from a file reaches a terminal or a CI log raw)
        self.file, self.line, self.launcher, self.reason = file, line, _one_line(launcher, 60), _one_line(reason, 300)

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


def _one_line(text: str, limit: int) -> str:
    text = "".join(c if c.isprintable() else " " for c in str(text))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


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
