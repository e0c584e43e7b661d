"""Runs the checker on a fixture as CI does (no settings file, default options)."""
from __future__ import annotations

from pathlib import Path

from moecfg.checking.engine import check_paths

FIXTURES = Path(__file__).parent / "fixtures"


def findings(name: str, **options) -> list:
    """(code, severity, line, message) of every diagnostic `moecfg check` gives on fixtures/`name`."""
    from moecfg.backends import Options

    report = check_paths([str(FIXTURES / name)], Options(**options))
    return [(d.code, d.severity, d.line, d.message) for r in report.results for d in r.diagnostics]


def codes(name: str, **options) -> set:
    return {f[0] for f in findings(name, **options)}
