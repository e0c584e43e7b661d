"""The one builder of positioned diagnostics (documents and launches alike: messages clipped the same way)."""
from __future__ import annotations

from moecfg.core.diagnostics import Diagnostic, clip, json_pointer
from moecfg.core.registry import RULES

MAX_MESSAGE = 2000  # characters of one diagnostic message


def diagnostic(code: str, message: str, span, path: tuple = (), severity: str | None = None) -> Diagnostic:
    r = RULES[code]  # the message is clipped as a last resort; checks quote values with diagnostics.shown/clip
    return Diagnostic(code, r.name, severity or r.severity, clip(message, MAX_MESSAGE), json_pointer(path),
                      span.line, span.column, span.end_line, span.end_column)
