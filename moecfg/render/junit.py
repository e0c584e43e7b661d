"""`--format junit`: JUnit XML for CI test reports; one testsuite per file, one testcase per document.

A document with an error-severity diagnostic (`valid: false` in the JSON report) is a failed testcase
whose text lists every diagnostic; warnings and infos of a passing document go to its system-out.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from moecfg.render import escape
from moecfg.render.escape import text, xml
from moecfg.render.text import diagnostic_line


def _case_name(r) -> str:
    parts = [p for p in (r.kind, r.product, r.op) if p]
    return f"document {r.document}" + (f" ({' '.join(parts)})" if parts else "")


def _testcase(suite, r) -> bool:
    case = ET.SubElement(suite, "testcase", name=_case_name(r), classname=text(r.file))
    lines = escape.lines(diagnostic_line(r, d) for d in r.diagnostics)[:-1]  # one line each, no `::` line
    if not r.valid:
        errors = [d for d in r.diagnostics if d.severity == "error"]
        first = errors[0]
        fail = ET.SubElement(case, "failure", message=text(f"{first.code} {first.message}"[:1000]),
                             type=first.code)
        fail.text = lines + "\n"
        return True
    if lines:
        ET.SubElement(case, "system-out").text = lines + "\n"
    return False


def render(report, *, color: bool = False, command: str = "check") -> str:
    root = ET.Element("testsuites", name=f"moecfg {command}")
    by_file: dict[str, list] = {}
    for r in report.results:
        by_file.setdefault(r.file, []).append(r)
    total = failures = 0
    for file, results in by_file.items():
        suite = ET.SubElement(root, "testsuite", name=text(file))
        failed = sum(_testcase(suite, r) for r in results)
        suite.set("tests", str(len(results)))
        suite.set("failures", str(failed))
        suite.set("errors", "0")
        total += len(results)
        failures += failed
    if getattr(report, "unread", None):  # launches seen but not read: one summary line, not a case per file
        from moecfg.render.text import coverage_line

        suite = ET.SubElement(root, "testsuite", name="moecfg coverage", tests="0", failures="0", errors="0")
        ET.SubElement(suite, "system-out").text = text(coverage_line(report)) + "\n"
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", "0")
    ET.indent(root)
    out = '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
    return escape.no_workflow_commands(xml(out))  # CI logs show the XML: no line of it may start with `::`
