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

import bisect
import re

from moecfg.core.record import field, record
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
_HASH = re.compile(r"(?:^|(?<=\s))#(?=\s*moecfg:)")
_MARK = re.compile(r"#\s*moecfg:\s*(.*)$")
_DIRECTIVE = re.compile(r"(disable|disable-file)\s*=\s*([A-Za-z0-9_\-]+(?:\s*,\s*[A-Za-z0-9_\-]+)*)\s*(?:--\s*(.*))?$")


@record(slots=True)
class Directive:
    """A `# moecfg:` comment: where it is, what it covers and which codes it disables."""

    line: int  # where the comment is
    column: int
    end_column: int
    covers: int | None  # line it applies to; None = the whole file
    codes: tuple
    reason: str
    used: set = field(default_factory=set)


def _next_content_lines(lines: list[str]) -> list[int]:
    """For each line index, the 1-based number of the next line that is not blank or a comment (one pass
    from the end: a file of 10k directive lines must not rescan the rest of the file for each)."""
    out, nxt = [0] * len(lines), None
    for j in range(len(lines) - 1, -1, -1):
        out[j] = nxt if nxt is not None else j + 2
        s = lines[j].strip()
        if s and not s.startswith("#"):
            nxt = j + 1
    return out


def _scalar_spans(text: str) -> list[tuple]:
    """(start, end) positions, as (line, column) from 0, of every scalar: a `#` inside one (a block scalar's
    text, a quoted string) is not a comment. PyYAML's scanner keeps no comments, but it knows the scalars."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    spans = []
    try:
        for tok in yaml.scan(text, Loader=loader):
            if isinstance(tok, yaml.ScalarToken):
                spans.append(((tok.start_mark.line, tok.start_mark.column), (tok.end_mark.line, tok.end_mark.column)))
    except yaml.YAMLError:
        pass  # the rest of the file is not YAML (reported as MC001): its text is no scalar we know of
    return spans


def _in_scalar(spans: list[tuple], starts: list[tuple], pos: tuple) -> bool:
    i = bisect.bisect_right(starts, pos) - 1
    return i >= 0 and spans[i][0] < pos < spans[i][1]


def _resolve(token: str):
    from moecfg.core.registry import get

    r = get(token)
    return r.code if r else None


def parse(text: str):
    """(directives, problems): problems are MC014/MC015 diagnostics about the comments themselves."""
    directives, problems = [], []
    lines = text.splitlines()
    spans = _scalar_spans(text)
    span_starts = [a for a, _ in spans]
    following = None
    for i, line in enumerate(lines):
        if "moecfg:" not in line:
            continue
        for hash_ in _HASH.finditer(line):  # the first `# moecfg:` that is a real comment
            if not _in_scalar(spans, span_starts, (i, hash_.start())):
                following = following or _next_content_lines(lines)
                _parse_line(lines, i, _MARK.match(line, hash_.start()), following, directives, problems)
                break
    return directives, problems


def _parse_line(lines, i, m, following, directives, problems) -> None:
    line = lines[i]
    column = m.start() + 1
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
        covers = following[i] if standalone else i + 1
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
    by_line, whole_file = {}, []
    for d in directives:
        (whole_file if d.covers is None else by_line.setdefault(d.covers, [])).append(d)
    for result in results:
        kept = []
        for diag in result.diagnostics:
            hit = _covering(whole_file, by_line.get(diag.line, ()), diag)
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
    firsts = list(starts)[:len(results)]
    for p in problems:
        _owner(results, firsts, p.line).diagnostics.append(p)
    for result in results:
        result.diagnostics.sort(key=lambda x: (x.line, x.column, x.code))


def _covering(whole_file, on_line, diag):
    """The first directive (in file order) that covers `diag`: linear in the directives of its line only."""
    if diag.code in (UNUSED.code, NO_REASON.code):
        return None
    hits = [d for d in (*whole_file, *on_line) if diag.code in d.codes]
    return min(hits, key=lambda d: d.line) if hits else None


def _owner(results, starts, line: int):
    """The document a comment line belongs to: the last one that starts at or before it (starts ascend)."""
    i = bisect.bisect_right(starts, line) - 1
    return results[max(i, 0)]
