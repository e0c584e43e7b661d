"""The framework-facing half of the typed value layer: the MC023/MC025 notes of a launch value moecfg cannot use.
The parsing itself is moecfg/core/values.py (below presets and frameworks, which both read values); its names are
re-exported here, so `from moecfg.frameworks.values import integer` keeps working."""
from __future__ import annotations

from moecfg.core.values import (  # noqa: F401  (re-exported)
    INT64_MAX, INT64_MIN, MAX_DIGITS, MAX_JSON, MAX_TEXT, JsonValueError, OddNumber, at_least, clipped, finite,
    integer, load_json, parse, shape_problems, why_not)


def refused(name: str, value, lo: int, framework: str, span, derives: str = "the op arguments that depend on it"):
    """The MC025 note of a size below `lo` that the framework refuses at start-up."""
    from moecfg.frameworks import Note

    return Note("MC025", f"`{name} {clipped(value)}`: {framework} refuses a value below {lo}; moecfg cannot derive "
                f"{derives}. Set it to >= {lo} (or drop the flag for the default)", span)


def unknown_buffsize(entry, where: str = "HCCL_BUFFSIZE", span=None):
    """The MC023 note (about env.HCCL_BUFFSIZE) when the launch sets HCCL_BUFFSIZE to a value not known statically
    (`$BUF`) or no int() reads; None when it is unset (HCCL's default runs) or an integer. HCCL's default never stands
    in for a value the launch does set (OpCall.not_known)."""
    from moecfg.frameworks import Note

    if entry is None or (entry.value is not None and integer(entry.value) is not None):
        return None
    what = "the value is not known statically" if entry.value is None else \
        f"{clipped(entry.value)!r}: {why_not(entry.value)}"
    return Note("MC023", f"{where}: {what}", span or entry.span, about="env.HCCL_BUFFSIZE")


def size_notes(flags, names, framework: str, lo: int = 1) -> list:
    """For each of `names` the launch sets: MC023 when its value is unknown or not an integer moecfg reads,
    MC025 when it is below `lo` (the framework refuses it). Empty: every given size is usable."""
    from moecfg.frameworks import Note

    notes = []
    for name in names:
        f = flags.get(name)
        if f is None:
            continue
        n = integer(f.value) if f.value is not None else None
        if f.value is None:
            notes.append(Note("MC023", f"{name}: the value is not known statically; what depends on it is not derived "
                              "or checked", f.span))
        elif n is None:
            notes.append(Note("MC023", f"{name} {clipped(f.value)!r}: {why_not(f.value)}; what depends on it is not "
                              "derived or checked", f.span))
        elif n < lo:
            notes.append(refused(name, n, lo, framework, f.span, "the EP size"))
    return notes


def unreadable_notes(flags, env: dict, int_flags, int_envs) -> list:
    """MC023 for each integer flag or variable the launch sets to a text no int() reads (or past 19 digits):
    the framework stops at start-up, and moecfg derives nothing from a default it would otherwise assume."""
    from moecfg.frameworks import Note

    notes = []
    for name in int_flags:
        f = flags.get(name)
        if f is not None and f.value is not None and integer(f.value) is None:
            notes.append(Note("MC023", f"{name} {clipped(f.value)!r}: {why_not(f.value)}; what depends on it is not "
                              "derived or checked", f.span))
    for name in int_envs:
        e = env.get(name)
        if e is not None and e.value is not None and integer(e.value) is None:
            notes.append(Note("MC023", f"{name}={clipped(e.value)!r}: {why_not(e.value)}; what depends on it is not "
                              "derived or checked", e.span))
    return notes
