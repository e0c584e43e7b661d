"""Suppression comments (MC014, MC015): silence a rule where you know better, and say why.

    moe_expert_num: 250  # moecfg: disable=MC201 -- experts 250-255 are dummies padded by the loader
    # moecfg: disable=MC503,MC211 -- A2 lab cluster, buffer sized by hand
    ep_world_size: 16

A directive at the end of a line covers the diagnostics on that line; a directive on a line of its own
covers the next line that is not a comment (the key below it). `# moecfg: disable-file=CODE[,CODE] --
reason` in the first 10 lines covers the whole file (every document). Codes or rule names may be given.
The reason after `--` is required: a suppression without one is reported (MC015), and so is a
suppression that suppressed nothing (MC014: the rule no longer fires, or the code is wrong), so stale
suppressions do not pile up. `moecfg check --no-inline-suppressions` ignores every directive (for CI
that forbids them). Config-file `ignore` and `per-path-ignores` apply after the directives.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from moecfg.core.diagnostics import WARNING, Diagnostic
from moecfg.core.registry import rule

_F = "suppression"
UNUSED = rule(
    "MC014", "unused-suppression", WARNING, "A `# moecfg: disable` directive that suppressed nothing", family=_F,
    why="A stale suppression hides the next real problem of that rule on that line; one with a wrong code "
        "never worked.",
    fail_example="product: A3\ncann_version: 9.0.1\nbs: 128\nh: 7168\nk: 8\nep_world_size: 32\n"
                 "moe_expert_num: 256  # moecfg: disable=MC201 -- padded expert count\nenv:\n  HCCL_BUFFSIZE: 1024\n",
    pass_example="product: A3\ncann_version: 9.0.1\nbs: 128\nh: 7168\nk: 8\nep_world_size: 32\n"
                 "moe_expert_num: 250  # moecfg: disable=MC201 -- experts 250-255 are padded by the loader\n"
                 "env:\n  HCCL_BUFFSIZE: 1024\n",
    fix="Delete the directive, or correct its code to the one reported on that line.")
NO_REASON = rule(
    "MC015", "suppression-without-reason", WARNING,
    "A `# moecfg:` directive without a reason after `--`, or one moecfg cannot read", family=_F,
    why="The next reader cannot tell whether the suppression is still justified.",
    fail_example="product: A3\ncann_version: 9.0.1\nbs: 128\nh: 7168\nk: 8\nep_world_size: 32\n"
                 "moe_expert_num: 250  # moecfg: disable=MC201\nenv:\n  HCCL_BUFFSIZE: 1024\n",
    pass_example="product: A3\ncann_version: 9.0.1\nbs: 128\nh: 7168\nk: 8\nep_world_size: 32\n"
                 "moe_expert_num: 250  # moecfg: disable=MC201 -- experts 250-255 are padded by the loader\n"
                 "env:\n  HCCL_BUFFSIZE: 1024\n",
    fix="Write `# moecfg: disable=CODE -- why this is fine here`.")

FILE_HEADER_LINES = 10
_MARK = re.compile(r"(?:^|\s)#\s*moecfg:\s*(.*)$")
_DIRECTIVE = re.compile(r"(disable|disable-file)\s*=\s*([A-Za-z0-9_\-]+(?:\s*,\s*[A-Za-z0-9_\-]+)*)\s*(?:--\s*(.*))?$")


@dataclass(slots=True)
class Directive:
    """A `# moecfg:` comment: where it is, what it covers and which codes it disables."""

    line: int  # where the comment is
    column: int
    end_column: int
    covers: int | None  # line it applies to; None = the whole file
    codes: tuple
    reason: str
    used: set = field(default_factory=set)


def _next_content_line(lines: list[str], index: int) -> int:
    for j in range(index + 1, len(lines)):
        s = lines[j].strip()
        if s and not s.startswith("#"):
            return j + 1
    return index + 2


def _resolve(token: str):
    from moecfg.core.registry import get

    r = get(token)
    return r.code if r else None


def parse(text: str):
    """(directives, problems): problems are MC014/MC015 diagnostics about the comments themselves."""
    directives, problems = [], []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "moecfg:" not in line:
            continue
        m = _MARK.search(line)
        if m:
            _parse_line(lines, i, m, directives, problems)
    return directives, problems


def _parse_line(lines, i, m, directives, problems) -> None:
    line = lines[i]
    column = line.index("#", m.start()) + 1
    end = len(line.rstrip()) + 1

    def report(r, message):
        problems.append(_problem(r, i + 1, column, message, end))

    body = m.group(1).strip()
    d = _DIRECTIVE.match(body)
    if not d:
        report(NO_REASON, f"cannot read the directive `# moecfg: {body}`; write "
                          "`# moecfg: disable=CODE[,CODE] -- reason` or `disable-file=...`")
        return
    verb, codes_text, reason = d.group(1), d.group(2), (d.group(3) or "").strip()
    standalone = line.lstrip().startswith("#")
    if verb == "disable-file":
        if i >= FILE_HEADER_LINES or not standalone:
            report(UNUSED, f"`disable-file` must be a comment line in the first {FILE_HEADER_LINES} lines of the "
                           f"file; this one (line {i + 1}) is ignored")
            return
        covers = None
    else:
        covers = _next_content_line(lines, i) if standalone else i + 1
    codes = []
    for token in (t.strip() for t in codes_text.split(",")):
        code = _resolve(token)
        if code is None:
            report(UNUSED, f"`{token}` in this suppression is not a moecfg rule code or name; it suppresses "
                           "nothing (see `moecfg rules`)")
        else:
            codes.append(code)
    if not reason:
        report(NO_REASON, f"suppression of {', '.join(codes) or codes_text} has no reason; "
                          "append `-- why this is fine here`")
    if codes:
        directives.append(Directive(i + 1, column, end, covers, tuple(codes), reason))


def _problem(r, line: int, column: int, message: str, end_column: int | None = None) -> Diagnostic:
    """A diagnostic about a directive comment, spanning the comment (to the end of its line)."""
    return Diagnostic(r.code, r.name, r.severity, message, "", line, column, line, end_column or column + 1)


def apply(results, text: str, starts=()) -> None:
    """Drop the diagnostics a directive covers; add MC014/MC015 to the document holding the comment.

    `starts`: first line of each result's document (same order as `results`)."""
    if "moecfg:" not in text or not results:
        return
    directives, problems = parse(text)
    for result in results:
        kept = []
        for diag in result.diagnostics:
            hit = _covering(directives, diag)
            if hit is None:
                kept.append(diag)
            else:
                hit.used.add(diag.code)
        result.diagnostics = kept
    for d in directives:
        for code in d.codes:
            if code not in d.used:
                scope = "this file" if d.covers is None else f"line {d.covers}"
                problems.append(_problem(UNUSED, d.line, d.column, f"suppression of {code} is unused: no {code} "
                                         f"diagnostic on {scope}; remove it", d.end_column))
    for p in problems:
        _owner(results, starts, p.line).diagnostics.append(p)
    for result in results:
        result.diagnostics.sort(key=lambda x: (x.line, x.column, x.code))


def _covering(directives, diag):
    if diag.code in (UNUSED.code, NO_REASON.code):
        return None
    for d in directives:
        if diag.code in d.codes and (d.covers is None or d.covers == diag.line):
            return d
    return None


def _owner(results, starts, line: int):
    """The document a comment line belongs to: the last one that starts at or before it."""
    owner = results[0]
    for r, start in zip(results, starts):
        if start <= line:
            owner = r
    return owner
