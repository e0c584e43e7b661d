"""Untrusted text (keys, values, file names) made safe for each output, in one place per format.

- text / terminal: control characters (C0, DEL, C1, Unicode line separators, bidi overrides) are shown as
  `\\x1b`, `\\n`, `\\u202e`; a file name's undecodable byte (a surrogate escape) as `\\xff`. A line that
  would start with `::` (a GitHub Actions workflow command, also after blanks) gets its first `:` shown
  as `\\x3a`, so no output line of moecfg is ever executed by the runner.
- github: the runner's own escapes (`%`, CR, LF; `:` and `,` in properties) plus the control characters.
- XML: characters XML 1.0 forbids are shown escaped instead (the report stays well-formed).
- JSON / SARIF: `json.dumps` escapes every control character already (a test keeps it so); a file name's
  undecodable bytes (lone surrogates, not Unicode text) are written `\\xff` as in text, and the JSON report adds
  `file_bytes`: the name's exact bytes, percent-encoded (RFC 3986), so nothing is lost (unicode_only).
"""
from __future__ import annotations

import functools
import re

_CONTROL = ("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_KEEP_NEWLINE = ("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SGR = re.compile(r"\x1b\[[0-9;]*m")  # colour codes rich writes itself
_XML_FORBIDDEN = ("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_WORKFLOW = re.compile(r"^([^\S\n]*):(?=:)", re.M)
# _CONTROL, _KEEP_NEWLINE and _XML_FORBIDDEN are compiled on first use (~1 ms each, the wide character ranges):
# printable ASCII text never needs them, and only junit, plan/sweep text and error messages need the other two.
_compiled = functools.cache(re.compile)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _show(m: re.Match) -> str:
    c = m.group()
    n = ord(c)
    if c in _NAMED:
        return _NAMED[c]
    if 0xDC80 <= n <= 0xDCFF:  # os.fsdecode's surrogate escape of a non-UTF-8 byte
        return f"\\x{n - 0xDC00:02x}"
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def text(s: str) -> str:
    """One line of untrusted text: every control character shown escaped."""
    if s.isascii() and s.isprintable():  # the common case, exactly: no ASCII control character, nothing wider
        return s
    return _compiled(_CONTROL).sub(_show, s)


def no_workflow_commands(s: str) -> str:
    """No line may start with `::` (GitHub Actions reads such a stdout line as a command)."""
    return _WORKFLOW.sub(r"\1\\x3a", s)


def lines(items) -> str:
    """Text output built line by line: each line escaped, then joined (a newline in a key stays inside its line)."""
    return no_workflow_commands("\n".join(text(line) for line in items)) + "\n"


def terminal(s: str, colour: bool = False) -> str:
    """A whole rendered text (rich tables, charts, messages): line breaks kept, and with `colour` rich's colour
    codes (SGR); every other control character escaped, no workflow commands."""
    if not colour:
        return no_workflow_commands(_compiled(_KEEP_NEWLINE).sub(_show, s))
    kept = _SGR.split(s)
    codes = _SGR.findall(s)
    out = [_compiled(_KEEP_NEWLINE).sub(_show, part) for part in kept]
    return no_workflow_commands("".join(p + (codes[i] if i < len(codes) else "") for i, p in enumerate(out)))


def github_data(s: str) -> str:
    return text(s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def github_property(s: str) -> str:
    return github_data(s).replace(":", "%3A").replace(",", "%2C")


def xml(s: str) -> str:
    """A serialized XML document with the characters XML 1.0 forbids shown escaped."""
    return _compiled(_XML_FORBIDDEN).sub(_show, s)


_SURROGATE = "[\ud800-\udfff]"


def unicode_only(obj, keep_bytes: tuple = ()):
    """`obj` (dicts, lists, strings) with every lone surrogate shown escaped (`\\xff` for an undecodable byte),
    so the JSON written is Unicode text. A key in `keep_bytes` whose value changed gets a sibling `<key>_bytes`:
    the original bytes (os.fsencode), percent-encoded: lossless."""
    if isinstance(obj, str):
        return _compiled(_SURROGATE).sub(_show, obj) if not obj.isascii() else obj
    if isinstance(obj, list):
        return [unicode_only(v, keep_bytes) for v in obj]
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            out[k] = shown = unicode_only(v, keep_bytes)
            if k in keep_bytes and isinstance(v, str) and shown != v:
                import os
                from urllib.parse import quote

                out[f"{k}_bytes"] = quote(os.fsencode(v), safe="/")
        return out
    return obj
