"""xLLM's command line as gflags reads it (xLLM calls google::ParseCommandLineFlags on argv: xllm/xllm.cpp).

gflags syntax (gflags 2.2 src/gflags.cc `ParseNewCommandLineFlags`, `SplitArgumentLocked`, `FlagValue::ParseFrom`):
- `--name=value` and `-name=value`; one or two dashes are the same;
- `--name value`: a non-boolean flag without `=` takes the next word as its value, whatever it looks like;
- booleans: `--name` is true, `--noname` is false, `--name=false`; a boolean never takes the next word;
  values true/false, yes/no, 1/0, t/f, y/n (any case);
- integers: decimal with an optional sign (no sign for unsigned types), or hexadecimal when the text starts with
  `0x`, in the type's range; anything else is "illegal value ... specified for int32 flag" and the program exits;
- `--` ends the flags; other words are positional (xLLM ignores them);
- a name gflags does not know stops the program ("unknown command line flag"). brpc and glog define their own
  gflags in the same binary, so a name missing from xLLM's own table is only likely a typo (MC022 warning).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from moecfg.sources.launch import Word
from moecfg.sources.textmap import Span

_TRUE = frozenset(("true", "yes", "1", "t", "y"))
_FALSE = frozenset(("false", "no", "0", "f", "n"))
DECIMAL = re.compile(r"^[ \t\n\v\f\r]*[+-]?[0-9]+\Z")  # strtol base 10 (C isspace blanks, a sign)
_HEX = re.compile(r"^0[xX][0-9a-fA-F]+\Z")  # base 16 only when the text itself starts with 0x
_RANGES = {"int32": (-(1 << 31), (1 << 31) - 1), "uint32": (0, (1 << 32) - 1),
           "int64": (-(1 << 63), (1 << 63) - 1), "uint64": (0, (1 << 64) - 1)}


@dataclass(frozen=True, slots=True)
class GFlag:
    name: str
    text: str | None  # as written after `=` or in the next word; None: not knowable statically
    span: Span  # the flag word through its value word
    kind: str  # gflags type: bool | int32 | int64 | uint32 | uint64 | double | string
    pattern: str | None = None  # text None: the value with its unknown parts as `${...}` (`npu:${...}`)


@dataclass(slots=True)
class GFlags:
    flags: dict[str, GFlag] = field(default_factory=dict)
    unknown: list[Word] = field(default_factory=list)
    missing_value: list[Word] = field(default_factory=list)  # `--ep_size` last on the line: gflags exits

    def get(self, name: str) -> GFlag | None:
        return self.flags.get(name)


def parse(words, table: dict[str, str]) -> GFlags:
    """`words`: the Words after the program; `table`: flag name -> gflags type (flags.json)."""
    out = GFlags()
    i, n = 0, len(words)
    while i < n:
        w = words[i]
        text = w.value
        if text == "--":
            break
        if text is None and _unknown_value(w, table):  # `--devices=npu:$DEVICE`: the flag is known, not its value
            name, _, pattern = w.pattern.lstrip("-").partition("=")
            out.flags[name] = GFlag(name, None, w.span, table[name], pattern)
            i += 1
            continue
        if text is None or not text.startswith("-") or text == "-":
            i += 1
            continue
        head, eq, inline = text.lstrip("-").partition("=")
        name, kind = head, table.get(head)
        if kind is None and head.startswith("no") and table.get(head[2:]) == "bool" and not eq:
            out.flags[head[2:]] = GFlag(head[2:], "false", w.span, "bool")
            i += 1
            continue
        if kind is None:
            out.unknown.append(w)
            i += 1
            continue
        if eq:
            out.flags[name] = GFlag(name, inline if w.exact or inline else None, w.span, kind)
        elif kind == "bool":
            out.flags[name] = GFlag(name, "true", w.span, kind)
        elif i + 1 < n:
            v = words[i + 1]
            out.flags[name] = GFlag(name, v.value, _join(w.span, v.span), kind, v.pattern if v.value is None else None)
            i += 1
        else:
            out.missing_value.append(w)
        i += 1
    return out


def _unknown_value(w: Word, table: dict) -> bool:
    head, eq, _ = (w.pattern or "").partition("=")
    return bool(eq) and head.startswith("-") and "$" not in head and table.get(head.lstrip("-")) not in (None, "bool")


def _join(a: Span, b: Span) -> Span:
    if (b.line, b.column) < (a.line, a.column):
        return a
    return Span(a.line, a.column, b.end_line, b.end_column)


def as_int(text: str | None, kind: str = "int32") -> int | None:
    """The integer gflags reads from `text`, or None (not an integer of the type, or unknown)."""
    if text is None or len(text) > 40:
        return None
    if _HEX.match(text):
        value = int(text, 16)
    elif DECIMAL.match(text) and not (kind.startswith("u") and text.strip().startswith("-")):
        value = int(text.strip(), 10)
    else:
        return None
    lo, hi = _RANGES.get(kind, _RANGES["int64"])
    return value if lo <= value <= hi else None


def as_bool(text: str | None) -> bool | None:
    low = (text or "").lower()
    return True if low in _TRUE else False if low in _FALSE else None


def illegal(flag: GFlag) -> bool:
    """gflags refuses the value (the program exits before anything starts)."""
    if flag.text is None:
        return False
    if flag.kind == "bool":
        return as_bool(flag.text) is None
    if flag.kind in _RANGES:
        return as_int(flag.text, flag.kind) is None
    return False
