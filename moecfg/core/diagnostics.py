"""The one currency between stages: findings (from checks, path based) and diagnostics (positioned)."""
from __future__ import annotations

import reprlib

from moecfg.core.record import field, record

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_RANK = {INFO: 0, WARNING: 1, ERROR: 2}

Path = tuple  # keys (str) and list indices (int) from the document root
MAX_SHOWN = 60  # characters of a value quoted in a message (a 1 MB key or an alias bomb is not printed whole)


class _Short(reprlib.Repr):
    def __init__(self):
        super().__init__()
        self.maxstring = self.maxother = self.maxlong = MAX_SHOWN
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = 6
        self.maxlevel = 2

    def repr_int(self, x, level):  # str() of a 5000-digit int raises; estimate the digits from the bits instead
        if x.bit_length() > 3 * MAX_SHOWN:
            return f"<integer of about {int((x.bit_length() - 1) * 0.30103) + 1} digits>"
        return super().repr_int(x, level)


_SHORT = _Short()


def shown(value) -> str:
    """repr() for messages, bounded: long strings, deep or aliased structures and huge ints are cut."""
    return _SHORT.repr(value)


def clip(text: str, limit: int = MAX_SHOWN) -> str:
    """Untrusted text (a key, a file's value) cut to `limit` characters for a message."""
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


@record(frozen=True, slots=True)
class Finding:
    """What a check reports: a rule code, the path of the offending value, a message.

    `severity` overrides the rule's default (rarely: the same rule can be advisory in one case).
    `at_key` asks for the key's position instead of the value's (unknown and duplicate keys).
    """

    code: str
    path: Path
    message: str
    severity: str | None = None
    at_key: bool = False
    fix: object = None  # core.fixes.Suggestion: the one right edit, placed by the engine (docs/fix.md)


@record(slots=True)
class Diagnostic:
    """One reported problem: rule code, name, severity, message and position."""

    code: str
    name: str
    severity: str
    message: str
    path: str  # JSON pointer
    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None
    fix: object = None  # core.fixes.Fix once placed (a Pending while the engine places it)

    def to_dict(self) -> dict:
        d = {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
        }
        if self.end_line is not None:
            d["end_line"] = self.end_line
            d["end_column"] = self.end_column
        if self.fix is not None and hasattr(self.fix, "edits"):
            d["fix"] = self.fix.to_dict()
        return d


def json_pointer(path: Path) -> str:
    """RFC 6901 pointer of a path tuple ('' for the document root)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


@record(slots=True)
class DocumentResult:
    """Outcome of one YAML document: what the report's `results[]` entries are made of."""

    file: str
    document: int
    kind: str | None = None
    op: str | None = None
    product: str | None = None
    ruleset: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    buffers: dict = field(default_factory=dict)
    derived: dict = field(default_factory=dict)
    # Human-oriented detail for `moecfg buffer` (formula text and terms per domain); not in the JSON contract.
    explanations: dict = field(default_factory=dict)
    # Launch files only (docs/contract.md §5): the launch, the resolved op arguments and how each was derived.
    launch: dict | None = None
    arguments: dict | None = None
    derivation: dict | None = None

    @property
    def valid(self) -> bool:
        return not any(d.severity == ERROR for d in self.diagnostics)

    def to_dict(self) -> dict:
        d = {
            "file": self.file,
            "document": self.document,
            "kind": self.kind,
            "op": self.op,
            "product": self.product,
            "ruleset": self.ruleset,
            "valid": self.valid,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "buffers": self.buffers,
            "derived": self.derived,
        }
        if self.launch is not None:  # every result of a recognised launch, with an op call or not
            d["launch"] = self.launch
        if self.arguments is not None:
            d["arguments"], d["derivation"] = self.arguments, self.derivation
        return d


class SkippedDocument:
    """A file or document that is not moecfg's (foreign YAML, a script without a launch): why it got nothing.
    (A plain class: it has no field default and needs no dataclass view.)"""

    __slots__ = ("file", "document", "reason")

    def __init__(self, file: str, document: int, reason: str):
        self.file, self.document, self.reason = file, document, reason

    def __repr__(self) -> str:
        return f"SkippedDocument({self.file!r}, {self.document}, {self.reason!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, SkippedDocument) and self.to_dict() == other.to_dict()

    __hash__ = None

    def to_dict(self) -> dict:
        return {"file": self.file, "document": self.document, "reason": self.reason}


class Report:
    """The results of one run over every file and document, and what was skipped (each run its own list)."""

    __slots__ = ("results", "files", "skipped", "unread", "states")

    def __init__(self, results: list[DocumentResult] | None = None, files: int = 0,
                 skipped: list[SkippedDocument] | None = None, unread: list | None = None,
                 states: list | None = None):
        self.results = [] if results is None else results
        self.files = files
        self.skipped = [] if skipped is None else skipped
        self.unread = [] if unread is None else unread  # core.coverage.UnreadLaunch: launches seen but not read
        self.states = [] if states is None else states  # core.coverage.FileState: one per file, in file order

    def count(self, severity: str) -> int:
        return sum(1 for r in self.results for d in r.diagnostics if d.severity == severity)

    def summary(self) -> dict:
        return {
            "files": self.files,
            "documents": len(self.results),
            "errors": self.count(ERROR),
            "warnings": self.count(WARNING),
            "infos": self.count(INFO),
        }

    def coverage(self) -> dict:
        """The run's launch counts (issue 30): the JSON report's `coverage` object."""
        from moecfg.core.coverage import by_launcher, launch_counts

        read, with_ops = launch_counts(self.results)
        return {"launches_read": read, "launches_with_op_calls": with_ops, "launches_unread": len(self.unread),
                "unread_by_launcher": by_launcher(self.unread)}

    def worst_rank(self) -> int:
        ranks = [SEVERITY_RANK[d.severity] for r in self.results for d in r.diagnostics]
        return max(ranks, default=-1)
