"""Environment files a compose service names (`env_file:`), parsed as docker compose does.

Syntax (docs.docker.com/compose/env-file/ "Syntax for environment files", and
compose-spec/compose-go@0421734 dotenv/parser.go): `#` lines and blank lines are skipped; `export ` before the
name is dropped (locateKeyName); `NAME=value`; an unquoted value ends at ` #` (an inline comment needs a blank
before it) and loses its trailing blanks; `'...'` is literal; `"..."` has `\\n`-style escapes; unquoted and
double-quoted values interpolate `${VAR}` / `$VAR` from the host (unknown here, so the value is unknown); a bare
`NAME` takes the host's value (unknown). `format: raw` (compose long form) takes the text after `=` as written.

Each value keeps its span in the env file, so a fix edits that line (checking/engine.py places it).
"""
from __future__ import annotations

import re

from moecfg.core.record import record
from moecfg.sources.textmap import Span

_LINE = re.compile(r"[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.]*)[ \t]*(=[ \t]*)?")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "$": "$"}


class EnvFileError(ValueError):
    """A line compose refuses (`unexpected character`, an unterminated quote): the file is not read."""


@record(frozen=True, slots=True)
class EnvLine:
    """One `NAME=value` of an env file: the value (None: interpolated or taken from the host) and where its
    text is (inside the quotes)."""

    name: str
    value: str | None
    span: Span
    why: str = ""  # when value is None: why it is unknown


def parse(text: str, raw: bool = False) -> list[EnvLine]:
    """The assignments of env file `text`, in order (a later line for the same name wins, as in compose)."""
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line[:-1] if line.endswith("\r") else line
        body = line.lstrip(" \t")
        if not body or body.startswith("#"):
            continue
        m = _LINE.match(line)
        if m is None:
            raise EnvFileError(f"line {number}: not `NAME=value`")
        name, start = m.group(1), m.end()
        if m.group(2) is None:  # `NAME` alone: the host's value
            if line[start:].strip():
                raise EnvFileError(f"line {number}: not `NAME=value`")
            out.append(EnvLine(name, None, Span(number, m.start(1) + 1, number, m.end(1) + 1),
                               "taken from the host environment"))
            continue
        out.append(_value(name, line, start, number, raw))
    return out


def _value(name: str, line: str, start: int, number: int, raw: bool) -> EnvLine:
    rest = line[start:]
    if raw:
        text = rest.rstrip(" \t")
        return EnvLine(name, text, Span(number, start + 1, number, start + len(text) + 1))
    quote = rest[:1]
    if quote in ("'", '"'):
        end = _closing(rest, quote)
        if end is None:  # a value continued on the next lines: not followed (compose joins them)
            raise EnvFileError(f"line {number}: a quoted value not closed on its line")
        inner = rest[1:end]
        span = Span(number, start + 2, number, start + 2 + len(inner))
        if quote == "'":
            return EnvLine(name, inner.replace("\\'", "'"), span)
        if "$" in inner.replace("\\$", ""):
            return EnvLine(name, None, span, "interpolated from the host (`$`)")
        return EnvLine(name, re.sub(r"\\(.)", lambda e: _ESCAPES.get(e.group(1), e.group()), inner), span)
    comment = re.search(r"[ \t]#", rest)
    text = (rest[:comment.start()] if comment else rest).rstrip(" \t")
    span = Span(number, start + 1, number, start + 1 + len(text))
    if "$" in text:
        return EnvLine(name, None, span, "interpolated from the host (`$`)")
    return EnvLine(name, text, span)


def _closing(rest: str, quote: str) -> int | None:
    i = 1
    while i < len(rest):
        if rest[i] == "\\":
            i += 2
            continue
        if rest[i] == quote:
            return i
        i += 1
    return None
