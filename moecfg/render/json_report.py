"""`--format json`: the versioned report of contract §3."""
from __future__ import annotations

import json

from moecfg.version import __version__

SCHEMA_VERSION = 1


def as_dict(report) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "moecfg_version": __version__,
        "results": [r.to_dict() for r in report.results],
        "summary": report.summary(),
        "skipped": [s.to_dict() for s in getattr(report, "skipped", ())],  # docs/contract.md §5.7
        "coverage": report.coverage(),
        "unread": [u.to_dict() for u in getattr(report, "unread", ())],  # docs/contract.md §5.8 (issue 30)
        "files": [f.to_dict() for f in getattr(report, "states", ())],
    }


def render(report, *, color: bool = False, command: str = "check") -> str:
    from moecfg.render.escape import unicode_only

    return json.dumps(unicode_only(as_dict(report), keep_bytes=("file",)), indent=2) + "\n"
