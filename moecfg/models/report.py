"""The report as pydantic models: `Report.model_dump()` equals the JSON report (`--format json`, contract §3 and
docs/contract.md §5), `Result.model_dump()` one of its result objects."""
from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_serializer

_LAUNCH_KEYS = ("launch", "arguments", "derivation")  # launch: every result of a recognised launch


class Edit(BaseModel):
    """Replace the text from (line, column) to (end_line, end_column), 1-based, end exclusive (docs/fix.md)."""

    model_config = ConfigDict(frozen=True)
    line: int
    column: int
    end_line: int
    end_column: int
    original: str = Field(description="the text there when the file was checked ('' for an insertion)")
    replacement: str


class Fix(BaseModel):
    """A diagnostic's automatic fix: its edits, and the change in the launch's own terms."""

    model_config = ConfigDict(frozen=True)
    message: str = Field(description="the change as the user types it, e.g. `export HCCL_BUFFSIZE=120`")
    applicability: Literal["safe"]
    file: str = Field(description="the file the edits are in: the result's file")
    edits: list[Edit]


class Diagnostic(BaseModel):
    """One finding, positioned in the checked text."""

    model_config = ConfigDict(frozen=True)
    code: str = Field(description="stable rule code, e.g. MC501")
    name: str = Field(description="kebab-case rule name")
    severity: Literal["error", "warning", "info"]
    message: str
    path: str = Field(description="JSON pointer of the offending key ('' = the document)")
    line: int
    column: int
    end_line: Optional[int] = None
    end_column: Optional[int] = None
    fix: Optional[Fix] = Field(None, description="the one right edit, when moecfg can place it (docs/fix.md)")

    @model_serializer(mode="wrap")
    def _drop_absent_end(self, handler):
        data = handler(self)
        if data.get("end_line") is None:
            data.pop("end_line", None)
            data.pop("end_column", None)
        if data.get("fix") is None:
            data.pop("fix", None)
        return data


class Launch(BaseModel):
    """Which launch a result comes from (launch files only)."""

    framework: str
    framework_version: str
    line: int
    role: str
    index: int = Field(0, description="the launch's ordinal among the file's recognised launches: its results share it")


class Result(BaseModel):
    """One checked document or one op call of a launch."""

    file: str
    document: int
    kind: Optional[str]
    op: Optional[str]
    product: Optional[str]
    ruleset: Optional[str]
    valid: bool
    diagnostics: list[Diagnostic]
    buffers: dict[str, dict[str, Any]]
    derived: dict[str, Any]
    launch: Optional[Launch] = None
    arguments: Optional[dict[str, Any]] = None
    derivation: Optional[dict[str, str]] = None

    @model_serializer(mode="wrap")
    def _drop_launch_keys(self, handler):
        data = handler(self)
        if self.launch is None:
            data.pop("launch", None)
        if self.arguments is None:
            for key in _LAUNCH_KEYS[1:]:
                data.pop(key, None)
        return data


class Summary(BaseModel):
    files: int
    documents: int
    errors: int
    warnings: int
    infos: int


class Skipped(BaseModel):
    """A file or document that is not moecfg's (foreign YAML, a script without a launch) and why."""

    file: str
    document: Optional[int] = Field(None, description="the YAML document; null for a script")
    reason: str


class Unread(BaseModel):
    """A launch seen but not read (docs/contract.md §5.8): the launcher as users know it and why it was not read."""

    file: str
    line: int
    launcher: str = Field(description="e.g. LightLLM, verl, ms-swift megatron, Markdown's launcher")
    reason: str = Field(description="e.g. 'engine not supported: LightLLM', 'Python file building a launch (not read)'")


class FileState(BaseModel):
    """The state one file ended in: checked (a moecfg document, or a file moecfg owns, with its diagnostics), read
    (a launch recognised), unread (launches seen, none read), skipped (with the reason)."""

    file: str
    state: Literal["checked", "read", "unread", "skipped"]
    reason: Optional[str] = None

    @model_serializer(mode="wrap")
    def _drop_empty_reason(self, handler):
        data = handler(self)
        if not data.get("reason"):
            data.pop("reason", None)
        return data


class Coverage(BaseModel):
    """How much of the run's launches was read (docs/contract.md §5.8)."""

    launches_read: int = 0
    launches_with_op_calls: int = Field(default=0, description="launches read that derive at least one EP op call")
    launches_unread: int = 0
    unread_by_launcher: dict[str, int] = Field(default_factory=dict)


class Report(BaseModel):
    """What `moecfg.check` / `check_launch` return; `valid` is False when any result has an error."""

    schema_version: int
    moecfg_version: str
    results: list[Result]
    summary: Summary
    skipped: list[Skipped] = Field(default_factory=list)
    coverage: Coverage = Field(default_factory=lambda: Coverage())
    unread: list[Unread] = Field(default_factory=list, description="launches seen but not read")
    files: list[FileState] = Field(default_factory=list, description="the state each file ended in")

    @property
    def valid(self) -> bool:
        return all(r.valid for r in self.results)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for r in self.results for d in r.diagnostics]


class Requirement(BaseModel):
    """One communicator's buffer requirement with its formula (`moecfg.required_buffers`); kind-specific extras
    (configured_from, note, headroom_bytes, enforced, ...) are kept as extra fields."""

    model_config = ConfigDict(extra="allow")
    domain: str
    required_bytes: int
    required_mb: Optional[int] = None
    configured_mb: Optional[int] = None
    configured_bytes: Optional[int] = None
    sufficient: Optional[bool] = None
    formula: str = ""
    terms: dict[str, Any] = Field(default_factory=dict)
