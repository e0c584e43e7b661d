"""The answers of `moecfg plan FILE` as text, JSON and `--emit launch` (paste-ready lines in the launch's knobs)."""
from __future__ import annotations

import json


def _set(value: str | None, unknown: bool = False) -> str:
    if unknown:
        return "set to a value not known statically"
    return f"set: {value}" if value is not None else "not set: the default applies"


def _assign(name: str, value, style: str = "launch") -> str:
    if style == "document":
        return f"{name}: {value}"
    return f"{name} {value}" if name.startswith("-") else f"{name}={value}"


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB"


def _verdict(path: str, codes: list, unsized: list) -> str:
    why = f" (moecfg check {path} says why)" if unsized else ""
    return f"fails {', '.join(codes)}{why}"


def plan_text(path: str, planned) -> str:
    out = _launches_text(path, planned.plans) if planned.plans else [
        f"{path}: no launch with an expert-parallel op call to plan (a moecfg document: `moecfg plan --ep N --bs N` "
        "with its fields as --set)"]
    for n in planned.not_planned:
        fails = f"; moecfg check fails it: {', '.join(n.failing)}" if n.failing else ""
        out.append(f"{path}:{n.line}: {n.framework or 'launch'}: not planned: {n.why}{fails}")
    if planned.more:
        out.append(f"{path}: {planned.more} more launch{'es' if planned.more > 1 else ''} past the first "
                   f"{len(planned.plans)} not planned (`moecfg check {path}` judges them all)")
    if planned.elsewhere:
        out.append(f"{path}: moecfg check also fails {', '.join(planned.elsewhere)} outside the launches planned "
                   f"(moecfg check {path} says why)")
    return "\n".join(out) + "\n"


def _launches_text(path: str, plans) -> list[str]:
    out = []
    for p in plans:
        verdict = "passes" if p.ok else _verdict(path, p.failing, p.unsized)
        out.append(f"{path}:{p.line}: {p.framework} {p.role} ({p.kind}), as written: {verdict}")
        if p.buffer:
            b = p.buffer
            if b.answer is None:
                out.append(f"  smallest buffer for this batch: none ({b.note}; {_set(b.set, b.unknown)})")
            else:
                past = f"; {b.past} fails" if b.past else ""
                out.append(f"  smallest buffer for this batch: {_assign(b.name, b.answer, p.style)}  "
                           f"({_set(b.set, b.unknown)}{past})")
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
    return out


def plan_json(path: str, planned) -> str:
    return json.dumps(planned.to_json(path), indent=2) + "\n"


def plan_emit(path: str, planned) -> str:
    """What to paste: the smallest buffer in the launch's own form; the batch alternative as a comment."""
    out = [f"# moecfg plan {path}"]
    for p in planned.plans:
        out.append(f"# line {p.line}: {p.framework} {p.role}")
        b = p.buffer
        if b and b.answer is not None:
            out.append("env:\n  HCCL_BUFFSIZE: " + str(b.answer) if p.style == "document" else f"export {b.name}={b.answer}")
        for x in p.batches:
            if x.answer is not None:
                keep = f"keep {_assign(b.name, b.set, p.style)} and " if b and b.set is not None else ""
                out.append(f"# or {keep}set {_assign(x.name, x.answer, p.style)}")
    out += [f"# line {n.line}: {n.framework or 'launch'}: not planned: {n.why}" for n in planned.not_planned]
    if planned.more:
        out.append(f"# {planned.more} more launch{'es' if planned.more > 1 else ''} not planned (past the cap)")
    return "\n".join(out) + "\n"
