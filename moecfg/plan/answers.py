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

    def to_json(self) -> dict:
        return {"knob": self.name, "set": self.set, "answer": self.answer, "past": self.past,
                **({"note": self.note} if self.note else {}), **({"unlimited": True} if self.unlimited else {})}


@dataclass
class LaunchPlan:
    line: int
    framework: str
    role: str
    kind: str
    ok: bool  # the launch as written passes the sizing rules
    failing: list = field(default_factory=list)  # codes of the sizing findings as written
    buffer: Knob | None = None
    batches: list = field(default_factory=list)
    headroom_bytes: int | None = None  # device memory left at the smallest buffer (the launch's memory budget)
    device: str = ""
    style: str = "launch"  # "document": knobs are a moecfg document's keys (`env.HCCL_BUFFSIZE: 478`)

    def to_json(self) -> dict:
        return {"line": self.line, "framework": self.framework, "role": self.role, "kind": self.kind, "ok": self.ok,
                "failing": self.failing, "buffer": self.buffer.to_json() if self.buffer else None,
                "batches": [b.to_json() for b in self.batches], "headroom_bytes": self.headroom_bytes,
                "device": self.device}
