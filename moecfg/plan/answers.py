"""The answers of `moecfg plan FILE` (plan/launch.py for launches, plan/document.py for moecfg documents)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Knob:
    """One knob's answer: the value the launch sets, the boundary found, and the value just past it."""

    name: str
    set: str | None  # as written (None: not set, the framework's default applies)
    answer: int | None  # None: no value within the search range works
    past: int | None = None  # the first value on the other side (judged failing)
    note: str = ""
    unlimited: bool = False  # a batch flag the buffer does not limit (answer None, nothing fails up to BATCH_MAX)
    unknown: bool = False  # set to a value not known statically (`set` None): never the default in disguise

    def to_json(self) -> dict:
        return {"knob": self.name, "set": self.set, "answer": self.answer, "past": self.past,
                **({"note": self.note} if self.note else {}), **({"unlimited": True} if self.unlimited else {}),
                **({"unknown": True} if self.unknown else {})}


@dataclass
class LaunchPlan:
    line: int
    framework: str
    role: str
    kind: str
    ok: bool  # the launch as written passes `moecfg check` (no error on it)
    failing: list = field(default_factory=list)  # codes of the errors `moecfg check` reports on it as written
    buffer: Knob | None = None
    batches: list = field(default_factory=list)
    headroom_bytes: int | None = None  # device memory left at the smallest buffer (the launch's memory budget)
    device: str = ""
    style: str = "launch"  # "document": knobs are a moecfg document's keys (`env.HCCL_BUFFSIZE: 478`)
    unsized: list = field(default_factory=list)  # of `failing`, the codes plan does not size (check says why)
    document: int | None = None  # a moecfg document's index in the file

    def to_json(self) -> dict:
        return {"line": self.line, "framework": self.framework, "role": self.role, "kind": self.kind, "ok": self.ok,
                "failing": self.failing, "buffer": self.buffer.to_json() if self.buffer else None,
                "batches": [b.to_json() for b in self.batches], "headroom_bytes": self.headroom_bytes,
                "device": self.device, "unsized": self.unsized}


@dataclass
class NotPlanned:
    """A launch plan does not answer: where, which framework, why, and the errors `check` reports on it."""

    line: int
    framework: str
    why: str
    failing: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"line": self.line, "framework": self.framework, "why": self.why, "failing": self.failing}


@dataclass
class FilePlan:
    """`moecfg plan FILE`: the plans, the launches not planned (each with why), how many past the cap, and the
    errors `check` reports on the file outside any launch."""

    plans: list = field(default_factory=list)
    not_planned: list = field(default_factory=list)
    more: int = 0  # recognised launches past MAX_LAUNCHES, not planned
    elsewhere: list = field(default_factory=list)  # error codes of check on the file outside the launches

    @property
    def fails(self) -> bool:
        """As `moecfg check` judges the file: any error on it (planned launch, other launch or elsewhere)."""
        return any(not p.ok for p in self.plans) or any(n.failing for n in self.not_planned) or bool(self.elsewhere)

    def to_json(self, path: str) -> dict:
        return {"file": path, "launches": [p.to_json() for p in self.plans],
                "not_planned": [n.to_json() for n in self.not_planned], "not_planned_past_cap": self.more,
                "failing_elsewhere": self.elsewhere}
