"""Command-line flags as the framework's argparse reads them, with the position of each in the file.

A framework declares its flags as a table of `FlagSpec`; `parse_flags` applies argparse semantics
(`--x v`, `--x=v`, booleans, `--no-x`, repeated flags: last wins) and keeps unknown flags for a warning.
"""
from __future__ import annotations

import re

from moecfg.core.record import field, record
from moecfg.frameworks.values import JsonValueError, load_json
from moecfg.sources.launch import Word
from moecfg.sources.textmap import Span


@record(frozen=True, slots=True)
class FlagSpec:
    name: str  # canonical, e.g. "--max-num-seqs"
    aliases: tuple[str, ...] = ()
    takes_value: bool = True  # False: a store_true flag (also accepts --no-NAME when negatable)
    negatable: bool = False
    nargs: str | None = None  # "+" / "*": a list of values up to the next flag


# An unexpanded template placeholder: `{tp}` (sweep recipes), `{{ .Values.tp }}` (Helm / Jinja), `${TP}` / `$TP` left
# as text by a YAML reader, `<tp-size>` (docs). Its value is unknown (MC023), never the flag's default.
PLACEHOLDER = re.compile(r"\{\{.{0,256}?\}\}|\{[A-Za-z_][\w.-]*\}|\$\{?[A-Za-z_]\w*\}?|^<[A-Za-z_][\w-]*>$")


def known_value(text: str | None) -> str | None:
    """`text`, or None when it holds a placeholder."""
    return None if text is None or PLACEHOLDER.search(text) else text


@record(frozen=True, slots=True)
class Flag:
    name: str
    value: str | None  # None: unknown value (unexpandable) or a boolean flag's absence of value
    span: Span  # the flag word through its value
    values: tuple[str | None, ...] = ()  # for nargs flags
    present: bool = True


@record(slots=True)
class Flags:
    flags: dict[str, Flag] = field(default_factory=dict)
    positionals: list[Word] = field(default_factory=list)
    unknown: list[Word] = field(default_factory=list)
    abbreviated: list[tuple[Word, str]] = field(default_factory=list)  # (word, the option argparse takes it for)

    def get(self, name: str) -> Flag | None:
        return self.flags.get(name)

    def value(self, name: str, default=None):
        f = self.flags.get(name)
        return default if f is None else f.value

    def boolean(self, name: str) -> bool:
        f = self.flags.get(name)
        return bool(f and f.value != "false")


def _span(a: Span, b: Span) -> Span:
    if (b.line, b.column) < (a.line, a.column):
        return a
    return Span(a.line, a.column, b.end_line, b.end_column)


def _normalise(text: str, underscores: bool) -> str:
    head, eq, tail = text.partition("=")
    if underscores and head.startswith("--"):
        head = "--" + head[2:].replace("_", "-")
    return head + eq + tail


def parse_flags(words, specs, *, underscores: bool = True, abbrev: bool = False, verbatim=()) -> Flags:
    """`words`: the Words after the program name. `underscores`: `--max_num_seqs` == `--max-num-seqs`
    (vLLM's FlexibleArgumentParser does this). `abbrev`: a unique prefix of a long option is that option, as
    argparse's allow_abbrev (its default) reads it; an ambiguous one stays unknown. `verbatim`: flags whose value is
    kept as written even when it looks like a placeholder (JSON flags: `{bad}` is a JSON error to report)."""
    table: dict[str, FlagSpec] = {}
    for s in specs:
        for n in (s.name, *s.aliases):
            table[n] = s
        if s.negatable:
            table["--no-" + s.name[2:]] = s
    out = Flags()
    i, n = 0, len(words)
    while i < n:
        w = words[i]
        text = w.value
        if text is None or not text.startswith("-") or text in ("-", "--") or _is_number(text):
            out.positionals.append(w)
            i += 1
            continue
        head, eq, inline = _normalise(text, underscores).partition("=")
        spec = table.get(head)
        if spec is None and abbrev and head.startswith("--") and len(head) > 2:
            spec, full = _prefix(table, head)
            if spec is not None:
                out.abbreviated.append((w, full))
                head = full
        if spec is None:
            out.unknown.append(w)
            i += 1
            continue
        if not spec.takes_value:
            value = "false" if head.startswith("--no-") and spec.negatable else (inline if eq else "true")
            out.flags[spec.name] = Flag(spec.name, value, w.span)
            i += 1
            continue
        if eq:
            out.flags[spec.name] = Flag(spec.name, (inline if spec.name in verbatim else known_value(inline))
                                        if w.exact or inline else None, w.span)
            i += 1
            continue
        if spec.nargs == "?" and (i + 1 >= n or _starts_flag(words[i + 1].value)):
            out.flags[spec.name] = Flag(spec.name, "", w.span)  # the flag alone: argparse stores `const`
            i += 1
            continue
        if spec.nargs in ("+", "*"):
            j = i + 1
            vals = []
            while j < n and not _starts_flag(words[j].value):
                vals.append(words[j].value)
                j += 1
            end = words[j - 1].span if j > i + 1 else w.span
            vals = [known_value(v) for v in vals]
            out.flags[spec.name] = Flag(spec.name, " ".join(v or "" for v in vals) if all(v is not None for v in vals)
                                        else None, _span(w.span, end), tuple(vals))
            i = j
            continue
        if i + 1 < n:
            v = words[i + 1]
            out.flags[spec.name] = Flag(spec.name, v.value if spec.name in verbatim else known_value(v.value),
                                        _span(w.span, v.span))
            i += 2
        else:
            out.flags[spec.name] = Flag(spec.name, None, w.span)
            i += 1
    return out


def _prefix(table: dict, head: str) -> tuple[FlagSpec | None, str]:
    """argparse's prefix match: the one option string starting with `head` (None when none or several)."""
    found = [n for n in table if n.startswith(head) and n.startswith("--")]
    return (table[found[0]], found[0]) if len(found) == 1 else (None, "")


def _starts_flag(text) -> bool:
    return text is not None and text.startswith("-") and not _is_number(text)


def _is_number(text: str) -> bool:
    try:
        float(text)  # as argparse's negative-number test reads it (float() has no digit limit)
        return True
    except ValueError:
        return False


class JsonFlagError(ValueError):
    pass


def json_value(flag: Flag) -> dict:
    """The JSON object of a flag such as --additional-config '{...}'. Raises JsonFlagError with a message."""
    if flag.value is None:
        raise JsonFlagError(f"{flag.name}: the value is not known statically")
    try:
        data = load_json(flag.value)
    except JsonValueError as exc:
        raise JsonFlagError(f"{flag.name} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise JsonFlagError(f"{flag.name} must be a JSON object, got {type(data).__name__}")
    return data
