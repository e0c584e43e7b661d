"""The answers of `moecfg plan FILE` as text, JSON and `--emit launch` (paste-ready lines in the launch's knobs)."""
from __future__ import annotations

import json


def _set(value: str | None) -> str:
    return f"set: {value}" if value is not None else "not set: the default applies"


def _assign(name: str, value, style: str = "launch") -> str:
    if style == "document":
        return f"{name}: {value}"
    return f"{name} {value}" if name.startswith("-") else f"{name}={value}"


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB"


def plan_text(path: str, plans) -> str:
    if not plans:
        return (f"{path}: no launch with an expert-parallel op call to plan (a moecfg document: `moecfg plan --ep N "
                "--bs N` with its fields as --set)\n")
    out = []
    for p in plans:
        verdict = "passes" if p.ok else f"fails {', '.join(p.failing)}"
        out.append(f"{path}:{p.line}: {p.framework} {p.role} ({p.kind}), as written: {verdict}")
        if p.buffer:
            b = p.buffer
            if b.answer is None:
                out.append(f"  smallest buffer for this batch: none ({b.note}; {_set(b.set)})")
            else:
                past = f"; {b.past} fails" if b.past else ""
                out.append(f"  smallest buffer for this batch: {_assign(b.name, b.answer, p.style)}  ({_set(b.set)}{past})")
        for b in p.batches:
            if b.unlimited:
                out.append(f"  largest {b.name} for this buffer: {b.note} ({_set(b.set)})")
            elif b.answer is None:
                out.append(f"  largest {b.name} for this buffer: none ({b.note}; {_set(b.set)})")
            else:
                out.append(f"  largest {b.name} for this buffer: {_assign(b.name, b.answer, p.style)}  ({_set(b.set)}; "
                           f"{b.past} fails)")
        if p.headroom_bytes is not None and p.buffer and p.buffer.answer:
            out.append(f"  device memory left at {_assign(p.buffer.name, p.buffer.answer, p.style)}: "
                       f"{_gib(p.headroom_bytes)} ({p.device})")
    return "\n".join(out) + "\n"


def plan_json(path: str, plans) -> str:
    return json.dumps({"file": path, "launches": [p.to_json() for p in plans]}, indent=2) + "\n"


def plan_emit(path: str, plans) -> str:
    """What to paste: the smallest buffer in the launch's own form; the batch alternative as a comment."""
    out = [f"# moecfg plan {path}"]
    for p in plans:
        out.append(f"# line {p.line}: {p.framework} {p.role}")
        b = p.buffer
        if b and b.answer is not None:
            out.append("env:\n  HCCL_BUFFSIZE: " + str(b.answer) if p.style == "document" else f"export {b.name}={b.answer}")
        for x in p.batches:
            if x.answer is not None:
                keep = f"keep {_assign(b.name, b.set, p.style)} and " if b and b.set is not None else ""
                out.append(f"# or {keep}set {_assign(x.name, x.answer, p.style)}")
    return "\n".join(out) + "\n"
