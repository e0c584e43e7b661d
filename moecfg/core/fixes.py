"""Fixes as edits the engine applies (docs/fix.md).

A rule knows the right value but not where the file writes it: it attaches a `Suggestion` (the knob's path and
the value; its message names the other possible edit) to its finding. The engine (checking/engine.py, checking/launch.py) knows the spans the
knob was read from and the file's text: `place` turns the suggestion into a `Fix` of exact `Edit`s, or into a
sentence saying why no edit is safe (the value is written elsewhere, or not at all). The cli applies edits
(cli/fix.py); nothing here writes a file.
"""
from __future__ import annotations

import re

from moecfg.core.record import field, record

SAFE = "safe"  # the edit replaces the one literal that set the value; nothing else changes


@record(frozen=True, slots=True)
class Suggestion:
    """A rule's one right edit, before it is placed: set `knob` (the user's own name: HCCL_BUFFSIZE,
    --max-num-seqs, hccl_buffer_size.ep) at document path `path` to `value`. `spans` / `old`: where and what
    the file writes, when the rule already knows
    (a launch note is positioned by its framework); else the engine looks `path` up."""

    path: tuple
    knob: str
    value: int | str
    spans: tuple = ()
    old: object = None
    insert: object = None  # a shell launch's Span: an unset variable is exported on a line of its own before it


@record(frozen=True, slots=True)
class Edit:
    """Replace the text from (line, column) to (end_line, end_column) (1-based, end exclusive) with
    `replacement`; `original` is the text there when the file was checked (the applier refuses otherwise)."""

    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str
    original: str

    def to_dict(self) -> dict:
        return {"line": self.line, "column": self.column, "end_line": self.end_line, "end_column": self.end_column,
                "original": self.original, "replacement": self.replacement}


@record(slots=True)
class Fix:
    """A diagnostic's fix: its edits in the file, and the change in the user's own terms (`export HCCL_BUFFSIZE=120`)."""

    message: str
    edits: list = field(default_factory=list)
    applicability: str = SAFE
    file: str = ""  # the file the edits are in (the checked file; set by the engine)

    def to_dict(self) -> dict:
        return {"message": self.message, "applicability": self.applicability, "file": self.file,
                "edits": [e.to_dict() for e in self.edits]}


@record(slots=True)
class Pending:
    """A suggestion with the spans the engine found for it, waiting for the file's text (checking/engine.py)."""

    suggestion: Suggestion
    spans: tuple
    old: object
    source: str = ""  # how the value was derived (a launch's derivation line), said when it cannot be placed
    document: bool = False  # a moecfg YAML document: the human form is its own key path (`env.HCCL_BUFFSIZE: 478`)
    insert: object = None  # Suggestion.insert (a shell launch's Span), or a YamlInsert for a moecfg document


def line_starts(text: str) -> list[int]:
    """Offsets of each line's first character (lines end at \\n; a \\r stays part of its line's text)."""
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def offset(starts: list[int], text: str, line: int, column: int) -> int | None:
    if not 1 <= line <= len(starts):
        return None
    at = starts[line - 1] + column - 1
    end = starts[line] if line < len(starts) else len(text)
    return at if column >= 1 and at <= end else None


def position(starts: list[int], at: int) -> tuple[int, int]:
    """(line, column), 1-based, of offset `at`."""
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= at:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1, at - starts[lo] + 1


def literal(value) -> str | None:
    """The text a plain number or word is written as (True/False/None and containers are not placed)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float, str)) and str(value).strip() and "\n" not in str(value):
        return str(value)
    return None


def place(text: str, pending: Pending) -> Fix | str:
    """The Fix, or why there is none: the old value must be written exactly once, as a whole token, inside the
    spans the value was read from (`HCCL_BUFFSIZE=100`, `value: "100"`, `--max-num-seqs 16`, `"key": 100`)."""
    s = pending.suggestion
    old, new = literal(pending.old), literal(s.value)
    if new is None:
        return ""
    if not pending.spans:
        how = f" ({pending.source})" if pending.source else ""
        return _export(text, pending, new) or f"{s.knob} is not set in this file{how}"
    if old is None:
        return f"{s.knob} is not written as a value here"
    starts = line_starts(text)
    hits = set()
    token = re.compile(r"(?<![\w$.{-])" + re.escape(old) + r"(?![\w.])")
    for span in pending.spans:
        a = offset(starts, text, span.line, span.column)
        b = offset(starts, text, span.end_line, span.end_column)
        if a is None or b is None or b < a:
            continue
        hits.update(m.start() for m in token.finditer(text, a, b))
    if len(hits) > 1:  # `--additional-config '{"a": 100, "b": 100}'`: the one after the knob's own key
        key = re.compile(r"(?<![\w.-])" + re.escape(s.knob.strip('"\'')) + r"""["']?(?:\s*[:=]\s*|\s+)["']?$""")
        hits = {h for h in hits if key.search(text, max(0, h - 200), h)}
    if len(hits) != 1:
        return f"{s.knob} = {old} is not written as one literal at {_written(text, starts, pending)}"
    at = hits.pop()
    shared = _shared_anchor(text, starts, at)
    if shared:
        return f"{s.knob} = {old} is written at {shared}: set the value there if each of them should change"
    line, column = position(starts, at)
    end_line, end_column = position(starts, at + len(old))
    edit = Edit(line, column, end_line, end_column, new, old)
    return Fix(human(text, starts, edit, s, pending.document), [edit])


ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
_NEAR = 200  # characters before a value searched for its flag, key or anchor (place() looks as far for the key)
_ANCHOR = re.compile(r"&([^\s\[\]{},&]+)[ \t]+(?:!\S*[ \t]+)?[\"']?$")


def _shared_anchor(text: str, starts: list[int], at: int) -> str:
    """'' unless the literal at `at` is a YAML anchor's value (`buf: &buf 400`) that more than one alias reads:
    editing it would change every key that reads `*buf`, not only the one the finding is about."""
    line_start = starts[position(starts, at)[0] - 1]
    m = _ANCHOR.search(text, max(line_start, at - _NEAR), at)
    if not m:
        return ""
    aliases = len(re.findall(r"\*" + re.escape(m.group(1)) + r"(?![^\s\[\]{},])", text))
    return f"the anchor &{m.group(1)} that {aliases} aliases read" if aliases > 1 else ""


@record(frozen=True, slots=True)
class YamlInsert:
    """Where a missing key of a moecfg document goes: a line of its own after its siblings' last line, at their
    indentation, under the missing parents `keys[:-1]` (each indented two more)."""

    line: int
    indent: int
    keys: tuple
    parent: object = None  # the parent mapping's Span: a flow mapping (`env: {A: 1}`) is not edited


def yaml_insert(values: dict, keys: dict, path: tuple) -> YamlInsert | None:
    """The YamlInsert of `path` in a document (its values' and keys' spans), or None: only a key of an existing
    block mapping, or of a new mapping at the top level (`env:` + `  HCCL_BUFFSIZE: 478`), is inserted."""
    for depth in (len(path) - 1, len(path) - 2):
        if depth < 0 or (depth and path[:depth] not in values):
            continue
        parent = path[:depth]
        siblings = [p for p in values if len(p) == depth + 1 and p[:depth] == parent]
        if not siblings or not all(isinstance(k, str) for k in path):
            return None
        columns = [keys[p].column for p in siblings if p in keys]
        if not columns:
            return None
        last = max((values[p] for p in siblings), key=lambda s: (s.end_line, s.end_column))
        line = last.end_line + (1 if last.end_column > 1 else 0)
        indent = min(columns) - 1
        return YamlInsert(line, indent, path[depth:], values.get(parent) if depth else None)
    return None


def _yaml_lines(text: str, pending: Pending, new: str) -> Fix | None:
    at: YamlInsert = pending.insert
    starts = line_starts(text)
    if at.line > len(starts) or (at.line == len(starts) and not text.endswith("\n") and text):
        return None  # after a last line without a line break: not a line of its own
    if at.parent is not None:
        a = offset(starts, text, at.parent.line, at.parent.column)
        if a is None or text[a:a + 1] in "{[":
            return None
    above = text[starts[at.line - 2]:starts[at.line - 1]] if at.line > 1 else ""
    if above.split("#")[0].rstrip().endswith(("}", "]", ",")):  # the siblings are a flow mapping: not a block line
        return None
    first = text[:starts[1]] if len(starts) > 1 else ""
    end = "\r\n" if first.endswith("\r\n") else "\n"
    rows = [" " * (at.indent + 2 * i) + f"{k}:" for i, k in enumerate(at.keys[:-1])]
    rows.append(" " * (at.indent + 2 * (len(at.keys) - 1)) + f"{at.keys[-1]}: {new}")
    edit = Edit(at.line, 1, at.line, 1, "".join(r + end for r in rows), "")
    return Fix(f"{'.'.join(str(p) for p in pending.suggestion.path)}: {new}", [edit])


def _export(text: str, pending: Pending, new: str) -> Fix | None:
    """An unset variable of a shell launch: `export NAME=value` on its own line before the launch's line, with its
    indentation and line ending (none after a line continued with a backslash: that line is part of a command)."""
    s, at = pending.suggestion, pending.insert
    if isinstance(at, YamlInsert):
        return _yaml_lines(text, pending, new)
    if at is None or not ENV_NAME.fullmatch(s.knob):
        return None
    starts = line_starts(text)
    if not 1 <= at.line <= len(starts):
        return None
    start = starts[at.line - 1]
    line = text[start:starts[at.line] if at.line < len(starts) else len(text)]
    before = text[starts[at.line - 2]:start] if at.line > 1 else ""
    if before.rstrip("\r\n").endswith("\\"):
        return None
    indent = line[:len(line) - len(line.lstrip(" \t"))]
    end = "\r\n" if line.endswith("\r\n") else "\n"
    edit = Edit(at.line, 1, at.line, 1, f"{indent}export {s.knob}={new}{end}", "")
    return Fix(f"export {s.knob}={new}", [edit])


def _written(text: str, starts: list[int], pending: Pending) -> str:
    """Where the value comes from, quoted from the file: `HCCL_BUFFSIZE=$BUF` (line 4), or the derivation."""
    span = pending.spans[0]
    a = offset(starts, text, span.line, span.column)
    b = offset(starts, text, span.end_line, span.end_column)
    quoted = " ".join(text[a:b].split()) if a is not None and b is not None and b > a else ""
    if quoted:
        quoted = quoted if len(quoted) <= 80 else quoted[:79] + "…"
        return f"`{quoted}` (line {span.line}): set the value where it is defined"
    return pending.source or f"line {span.line}"


def human(text: str, starts: list[int], edit: Edit, s: Suggestion, document: bool = False) -> str:
    """The change as the user would type it: `export HCCL_BUFFSIZE=120`, `--max-num-seqs 34`, `"key": 1050`."""
    value = edit.replacement
    if document:
        return f"{'.'.join(str(p) for p in s.path)}: {value}"
    line = text[starts[edit.line - 1]:starts[edit.line] if edit.line < len(starts) else len(text)]
    before = line[max(0, edit.column - 1 - _NEAR):edit.column - 1]  # the patterns below retry at each `-`: a
    # 20,000-character value before the edit cost 6 s; the flag or key is right before it
    if ENV_NAME.fullmatch(s.knob):
        return f"export {s.knob}={value}" if re.match(r"\s*export\s", line) else f"{s.knob}={value}"
    flag = re.search(r"""(?<![\w-])(--?[\w-]+)[ =]["']?$""", before)  # from a word's start: linear
    if flag:
        return f"{flag.group(1)} {value}"
    key = re.search(r"""(["']?)(?<![\w.-])([\w.-]+)\1\s*:\s*["']?$""", before)
    if key and key.group(1):
        return f'"{key.group(2)}": {value}'
    return f"{s.knob}: {value}"


def unplaced(message: str, why: str) -> str:
    """The diagnostic's message when the fix cannot be applied automatically: it says where the value comes from."""
    return f"{message}; no automatic fix: {why}" if why else message
