"""`moecfg check --diff` / `--fix`: the placed fixes (core/fixes.py) applied to the checked files.

Only the named spans change; every other byte stays (comments, quoting, indentation, CRLF, anchors). Each edit
carries the text it replaces: a file whose text differs (changed since it was checked) is left alone. A file is
written through a temporary file in its own folder, then renamed over it, never through a symlink and never
outside the paths given on the command line.
"""
from __future__ import annotations

import os

from moecfg.core.fixes import SAFE, line_starts, offset

BOM = b"\xef\xbb\xbf"


class Change:
    """One file's fixes: its text before and after, and the diagnostics they address."""

    __slots__ = ("file", "before", "after", "applied", "refused")

    def __init__(self, file: str, before: str, after: str, applied: list, refused: str = ""):
        self.file, self.before, self.after, self.applied, self.refused = file, before, after, applied, refused


def fixes_by_file(report) -> dict[str, list]:
    """file -> the diagnostics with a safe fix in it, in report order. A file given twice (`a.sh ./a.sh`) is one
    file, and a finding reported for each spelling is one fix (it was counted twice: "Fixed 3 findings in 2 files")."""
    out: dict[str, list] = {}
    names: dict[str, str] = {}  # normalised path -> the first spelling
    seen: set = set()
    for r in report.results:
        for d in r.diagnostics:
            if d.fix is not None and getattr(d.fix, "applicability", None) == SAFE:
                file = d.fix.file or r.file
                file = names.setdefault(os.path.normpath(file), file)
                key = (file, d.code, tuple((e.line, e.column, e.end_line, e.end_column, e.replacement)
                                           for e in d.fix.edits))
                if key not in seen:
                    seen.add(key)
                    out.setdefault(file, []).append(d)
    return out


def inside(file: str, roots) -> str:
    """Why `file` may not be written ('' when it may): stdin, a symlink, or outside every path given."""
    if file == "<stdin>":
        return "stdin is not a file (--diff shows nothing for it either)"
    from moecfg.sources.documents.classify import is_documentation

    if is_documentation(file):  # an example may fail on purpose ("this launch fails: ..."): the report has the fix
        return "documentation is fixed by hand (the fix is in the report)"
    if os.path.islink(file):
        return "a symlink (not written through)"
    real = os.path.realpath(file)
    for root in roots:
        top = os.path.realpath(root)
        if real == top or real.startswith(top.rstrip(os.sep) + os.sep):
            return _read_only(file)
    return "outside the checked paths"


def _read_only(file: str) -> str:
    """The owner made it read-only: a rename over it would still work (and does, for root), so it is said instead."""
    try:
        return "" if os.stat(file).st_mode & 0o222 else "read-only (not written; make it writable to fix it)"
    except OSError:
        return ""  # reading it says why (change())


def change(file: str, diagnostics: list, roots) -> Change:
    """The file's text with every non-overlapping edit applied (of edits to one span, the largest number)."""
    refused = inside(file, roots)
    if refused:
        return Change(file, "", "", [], refused)
    try:
        with open(file, "rb") as fh:
            raw = fh.read()
        bom = raw.startswith(BOM)
        text = raw[len(BOM) if bom else 0:].decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return Change(file, "", "", [], f"not read as UTF-8 ({type(exc).__name__})")
    starts, spans, applied, found = line_starts(text), [], [], []
    for d in diagnostics:
        placed = [_offsets(text, starts, e) for e in d.fix.edits]
        if any(p is None for p in placed):
            return Change(file, text, text, [], "changed since it was checked")
        found.append((placed, d))
    for placed, d in sorted(found, key=_largest_first):
        if all(p in spans for p in placed):
            applied.append(d)  # the same edit as another finding's (MC975 and MC976 raise one cap alike)
        elif not any(a < e2 and s2 < b or (a, b) == (s2, e2) for a, b, _ in placed for s2, e2, _ in spans):
            spans.extend(placed)
            applied.append(d)
        # else another fix edits the same text: the next check (--fix runs again) shows what is left
    after = text
    for a, b, new in sorted(spans, reverse=True):
        after = after[:a] + new + after[b:]
    return Change(file, text, after, applied)


def _largest_first(item) -> tuple:
    """Fixes of one value (a prefill and a decode call both raising HCCL_BUFFSIZE): the largest number first, so
    --diff shows the value that satisfies both and --fix needs no second pass."""
    placed, _ = item
    a, _, new = placed[0]
    return (a, -int(new) if new.isdigit() else 0)


def _offsets(text: str, starts: list[int], e) -> tuple[int, int, str] | None:
    a = offset(starts, text, e.line, e.column)
    b = offset(starts, text, e.end_line, e.end_column)
    if a is None or b is None or text[a:b] != e.original:
        return None
    return a, b, e.replacement


def diff(c: Change) -> str:
    import difflib

    from moecfg.render.escape import text

    # a name is untrusted: a line break in it would start a header or a hunk of its own (`git apply` reads them)
    name = text(os.path.normpath(c.file).lstrip("/"))
    lines = difflib.unified_diff(c.before.splitlines(keepends=True), c.after.splitlines(keepends=True),
                                 f"a/{name}", f"b/{name}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def write(c: Change) -> None:
    """Atomically: a temporary file beside it (same mode), then a rename over it."""
    import tempfile

    with open(c.file, "rb") as fh:
        bom = fh.read(len(BOM)) == BOM
    folder = os.path.dirname(os.path.abspath(c.file))
    mode = os.stat(c.file).st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=".moecfg-fix-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write((BOM if bom else b"") + c.after.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, c.file)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def changes(report, roots) -> list[Change]:
    return [change(f, ds, roots) for f, ds in fixes_by_file(report).items()]


def described(c: Change) -> list[str]:
    """What was (or would be) changed, one line a fix: `file:line:col: CODE export HCCL_BUFFSIZE=120`."""
    if c.refused:
        return [f"{c.file}: not fixed: {c.refused}"]
    return [f"{c.file}:{d.fix.edits[0].line}:{d.fix.edits[0].column}: {d.code} {d.fix.message}" for d in c.applied]
