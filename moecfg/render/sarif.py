"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning (`github/codeql-action/upload-sarif`).

One `rules` entry per code that appears in the results (id, name, short and full description, help text
and markdown: the rule's whole page ships inside the SARIF, so no link is needed), and one result per diagnostic with the file (a URI relative to the
current folder, so GitHub maps it to the repository), line, column, end line and end column.
"""
from __future__ import annotations

import json
import os

from moecfg.version import __version__

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def artifact_uri(file: str) -> str:
    """The file as an RFC 3986 URI reference: its bytes (os.fsencode: a name's undecodable bytes included)
    percent-encoded except unreserved characters and `/`. `deploy%2Fprod.yaml` stays that name
    (`deploy%252Fprod.yaml`), never the other file `deploy/prod.yaml`; `#`, `?`, spaces, `:` in a first segment
    and control characters cannot change what the URI points at."""
    from urllib.parse import quote

    if file == "<stdin>":
        return "stdin"
    rel = os.path.relpath(file) if os.path.isabs(file) else file
    if rel.startswith(".."):
        path = os.path.abspath(file).replace(os.sep, "/")
        return "file://" + quote(os.fsencode(path if path.startswith("/") else "/" + path), safe="/:")
    return quote(os.fsencode(rel.replace(os.sep, "/").removeprefix("./")), safe="/")


def _rule_entry(code: str) -> dict:
    from moecfg.render.rule_docs import doc_for, help_markdown, help_plain
    from moecfg.core.registry import RULES

    d = doc_for(RULES[code])
    full = d.family_doc.split("\n\n")[0].replace("\n", " ") if d.family_doc else d.summary
    return {
        "id": d.code,
        "name": d.name,
        "shortDescription": {"text": d.summary},
        "fullDescription": {"text": full},
        "help": {"text": help_plain(d), "markdown": help_markdown(d)},
        "defaultConfiguration": {"level": LEVEL[d.severity]},
        "properties": {"tags": [d.family, *d.tags]},
    }


def _result(r, diag, index: int) -> dict:
    region = {"startLine": diag.line, "startColumn": diag.column}
    if diag.end_line is None:  # a point (e.g. a parser position): one character wide
        region["endLine"], region["endColumn"] = diag.line, diag.column + 1
    else:
        region["endLine"] = diag.end_line
        region["endColumn"] = max(diag.end_column, diag.column + 1) if diag.end_line == diag.line else diag.end_column
    out = {
        "ruleId": diag.code,
        "ruleIndex": index,
        "level": LEVEL[diag.severity],
        "message": {"text": f"{diag.message} [{diag.name}]"},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": artifact_uri(r.file)},
            "region": region,
        }}],
    }
    if getattr(diag.fix, "edits", None):
        out["fixes"] = [_fix(r, diag.fix)]
    props = {k: v for k, v in (("document", r.document), ("jsonPointer", diag.path)) if v not in (None, "")}
    if props:
        out["properties"] = props
    return out


def _fix(r, fix) -> dict:
    """SARIF §3.55: one artifactChange of replacements (deletedRegion + insertedContent) per file."""
    return {"description": {"text": fix.message}, "artifactChanges": [{
        "artifactLocation": {"uri": artifact_uri(fix.file or r.file)},
        "replacements": [{"deletedRegion": {"startLine": e.line, "startColumn": e.column, "endLine": e.end_line,
                                            "endColumn": e.end_column},
                          "insertedContent": {"text": e.replacement}} for e in fix.edits]}]}


def _skipped(s) -> dict:
    """A skipped file or document (docs/contract.md §5.7): a note, not a result (nothing to fix)."""
    return {
        "descriptor": {"id": "skipped"},
        "level": "note",
        "message": {"text": f"skipped: {s.reason}"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(s.file)}}}],
        "properties": {"document": s.document},
    }


def _unread(u) -> dict:
    """A launch seen but not read (docs/contract.md §5.8): a note, not a result (nothing to fix in the file)."""
    return {
        "descriptor": {"id": "unread"},
        "level": "note",
        "message": {"text": f"launch not read ({u.launcher}): {u.reason}"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": artifact_uri(u.file)},
                                            "region": {"startLine": u.line}}}],
    }


def as_dict(report) -> dict:
    codes = sorted({d.code for r in report.results for d in r.diagnostics})
    index = {c: i for i, c in enumerate(codes)}
    results = [_result(r, d, index[d.code]) for r in report.results for d in r.diagnostics]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "moecfg",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule_entry(c) for c in codes],
            }},
            "results": results,
            "columnKind": "unicodeCodePoints",
            "invocations": [{"executionSuccessful": True,
                             "toolExecutionNotifications": [_skipped(s) for s in getattr(report, "skipped", ())]
                             + [_unread(u) for u in getattr(report, "unread", ())]}],
        }],
    }


def render(report, *, color: bool = False, command: str = "check") -> str:
    from moecfg.render.escape import unicode_only

    return json.dumps(unicode_only(as_dict(report)), indent=2) + "\n"
