"""`--format text`: per file (as ruff and yamllint do), its `file:line:col: CODE severity: message [name]` lines
then, for `check`, a buffer table per valid document (for `buffer`, each domain's formula with its terms); one
summary at the end. Sizes read the same for every kind: MiB / GiB with the exact bytes in brackets (JSON keeps
the bytes).

Plain text unless `color` (a terminal): then rich draws colours and tables. rich is imported only then.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, INFO, WARNING
from moecfg.render import escape

_STYLE = {ERROR: "bold red", WARNING: "yellow", INFO: "cyan"}
MIB, GIB = 1 << 20, 1 << 30


def size(n: int) -> str:
    """`956 MiB (1002438656 B)`, `2.00 GiB (2146961792 B)`, `0 B`: binary units, exact bytes in brackets."""
    if not n:
        return "0 B"
    unit, scale = ("GiB", GIB) if abs(n) >= GIB else ("MiB", MIB)
    value = n / scale
    shown = f"{n // scale}" if n % scale == 0 else (f"{value:.2f}" if unit == "GiB" or value < 10 else f"{value:.1f}")
    return f"{shown} {unit} ({n} B)"


def by_file(results) -> list[list]:
    """The results grouped by file, files in the order they were checked."""
    groups: dict[str, list] = {}
    for r in results:
        groups.setdefault(r.file, []).append(r)
    return list(groups.values())


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def diagnostic_line(r, d) -> str:
    return f"{r.file}:{d.line}:{d.column}: {d.code} {d.severity}: {d.message} [{d.name}]"


def _title(r) -> str:
    parts = [p for p in (r.kind, r.product, r.op) if p]
    rules = f", rules {r.ruleset}" if r.ruleset else ""
    where = f"document {r.document}"
    if r.launch:
        la = r.launch
        where = f"line {la['line']}: {la['framework']} {la['framework_version']} {la['role']}"
    return f"{r.file} ({where}): {' '.join(parts)}{rules}"


def derivation_lines(r, d) -> list[str]:
    """For a launch finding: how the argument the finding is about was derived (`bs = 16 <- ...`)."""
    if not r.derivation or not d.path:
        return []
    key = ".".join(d.path.strip("/").split("/"))
    keys = [key] if key in r.derivation else []
    if d.path.startswith(("/env", "/hccl_buffer_size")):
        keys += [k for k in ("bs",) if k in r.derivation]  # a buffer finding: also the batch that sized it
    return [f"    {k} = {r.derivation[k]}" for k in keys]


def fix_lines(d) -> list[str]:
    """A finding with an automatic fix: the line to paste, and the command that applies it (docs/fix.md)."""
    if not getattr(d.fix, "edits", None):
        return []
    return [f"    fix: {d.fix.message}  (moecfg check --fix applies it)"]


def _buffer_rows(buffers: dict):
    for domain, b in buffers.items():
        required = size(b["required_bytes"])
        conf = b.get("configured_bytes")
        if conf is None and b.get("configured_mb") is not None:
            conf = b["configured_mb"] * MIB  # HCCL_BUFFSIZE and hccl_buffer_size are in MB = MiB
        conf_text = "-" if conf is None else size(conf)
        if b.get("configured_from"):
            conf_text += f" ({b['configured_from']})"
        ok = b.get("sufficient")
        status = "ok" if ok else (("unknown" if b.get("configured_from") else "not set") if ok is None else ("too small" if b.get("enforced", "error") == "error" else "below advisory"))
        yield domain, required, conf_text, status


def _summary(report) -> str:
    s = report.summary()
    counts = (f"Checked {_plural(s['files'], 'file')} ({_plural(s['documents'], 'document')}): "
              f"{_plural(s['errors'], 'error')}, {_plural(s['warnings'], 'warning')}, {_plural(s['infos'], 'info')}")
    if not _only_documents(report):
        counts += f"; {coverage_line(report)}"
    return counts + "."


def _only_documents(report) -> bool:
    """A run over moecfg documents only (every file `checked`, no launch): nothing to say about launches."""
    states = getattr(report, "states", ())
    return (all(f.state == "checked" for f in states) and not getattr(report, "unread", ())
            and not any(r.launch for r in report.results))


def coverage_line(report) -> str:
    """What the run read and did not (issue 30): `12 launches read (3 with op calls), 53 launches not read
    (ms-swift megatron 53): -v lists them`."""
    from moecfg.core.coverage import summary_text

    return summary_text(report)


def _explain_lines(r):
    for domain, b in r.buffers.items():
        yield f"  [{domain}] {b.get('formula', '')}"
        for name, value in (b.get("terms") or {}).items():
            yield f"      {name} = {value}"
        if b.get("note"):
            yield f"      ({b['note']})"
        for key in sorted(k for k in b if k.endswith("_bytes") and k not in ("required_bytes", "configured_bytes")):
            yield f"      {key} = {b[key]}"
        for _, required, conf, status in _buffer_rows({domain: b}):
            yield f"      = {required}; configured {conf}: {status}"


def no_buffer(r) -> str:
    """Why a result of `moecfg buffer` has no buffer: the errors above, or what is not known (never "the errors
    above" when there is none)."""
    if any(d.severity == "error" for d in r.diagnostics):
        return "  (no buffer: fix the errors above first)"
    if r.launch and r.op == "none":
        return "  (no buffer: this phase of the launch makes no dispatch/combine call (the info above says why))"
    if r.launch:
        return ("  (no buffer: the launch's op arguments are not all known (the findings above say which); "
                "`moecfg explain-launch FILE` shows what was derived)")
    return "  (no buffer: this document sizes no buffer)"


def render(report, *, color: bool = False, command: str = "check", quiet: bool = False,
           statistics: bool = False) -> str:
    """The whole report at once. `quiet`: findings and the summary only (no buffer table of a document that is
    fine); `statistics`: the count of each code instead of the findings (as ruff --statistics)."""
    groups = [] if statistics else by_file(report.results)
    if color:
        return "".join(_rich(results, command, quiet) for results in groups) + tail(report, color, statistics)
    lines = [line for results in groups for line in file_lines(results, command, quiet)]
    return escape.lines(lines) + tail(report, color, statistics) if lines else tail(report, color, statistics)


def file_lines(results, command: str = "check", quiet: bool = False, held=frozenset()) -> list[str]:
    """One file's lines: its findings (but those in `held`, id()s said at the end), then its documents' buffers."""
    lines = []
    for r in results:
        for d in r.diagnostics:
            if id(d) not in held:
                lines.append(diagnostic_line(r, d))
                lines.extend(derivation_lines(r, d) + fix_lines(d))
    for r in results:
        if command == "buffer":
            lines.append(_title(r))
            lines.extend(_explain_lines(r) if r.buffers else [no_buffer(r)])
        elif r.valid and r.buffers and not quiet:
            lines.append(_title(r))
            lines.extend(f"  {d:<5} required {req}; configured {conf}: {st}"
                         for d, req, conf, st in _buffer_rows(r.buffers))
    return lines


def stream(run, write, *, color: bool = False, command: str = "check", quiet: bool = False,
           statistics: bool = False) -> None:
    """Streamed output of a run (checking/stream.py StreamedCheck): each file's lines written as soon as the file
    is done, in walk order; the findings said once per run, then the summary, when it is over."""
    for results in run.files():
        if statistics:
            continue
        if color:
            write(_rich(results, command, quiet, run.held))
        else:
            lines = file_lines(results, command, quiet, run.held)
            if lines:
                write(escape.lines(lines))
    questions = [] if statistics else run.questions()
    if questions:
        if color:
            write(_rich_questions(questions))
        else:
            write(escape.lines(line for r, d in questions
                               for line in [diagnostic_line(r, d), *derivation_lines(r, d), *fix_lines(d)]))
    write(tail(run.report, color, statistics))


def statistics_lines(report) -> list[str]:
    """`  12  MC042  warning  launch-unresolved`: each code with its count, most frequent first."""
    counts: dict[tuple, int] = {}
    for r in report.results:
        for d in r.diagnostics:
            key = (d.code, d.severity, d.name)
            counts[key] = counts.get(key, 0) + 1
    width = len(str(max(counts.values(), default=0)))
    return [f"{n:>{width}}  {code}  {severity:<7}  {name}"
            for (code, severity, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def tail(report, color: bool = False, statistics: bool = False) -> str:
    """The end of the output: the statistics (when asked) and the one summary line."""
    lines = (statistics_lines(report) if statistics else []) + [_summary(report)]
    if not color:
        return escape.lines(lines)
    from rich.console import Console
    from rich.text import Text

    console = Console(force_terminal=True, highlight=False, markup=False)
    s = report.summary()
    style = "bold red" if s["errors"] else ("yellow" if s["warnings"] else "green")
    with console.capture() as cap:
        for line in lines[:-1]:
            console.print(Text(line), soft_wrap=True)
        console.print(Text(lines[-1], style=style))
    return escape.terminal(cap.get(), colour=True)


def _rich(results, command: str, quiet: bool = False, held=frozenset()) -> str:
    from rich.console import Console

    console = Console(force_terminal=True, highlight=False, markup=False)
    with console.capture() as cap:
        _rich_file(console, results, command, quiet, held)
    return escape.terminal(cap.get(), colour=True)  # file text never reaches the terminal raw (nor rich markup)


def _rich_questions(questions) -> str:
    from rich.console import Console

    console = Console(force_terminal=True, highlight=False, markup=False)
    with console.capture() as cap:
        for r, d in questions:
            _rich_diagnostic(console, r, d)
    return escape.terminal(cap.get(), colour=True)


def _rich_diagnostic(console, r, d) -> None:
    from rich.text import Text

    line = Text()
    line.append(f"{escape.text(r.file)}:{d.line}:{d.column}: ", style="bold")
    line.append(d.code, style="bold")
    line.append(f" {d.severity}: ", style=_STYLE[d.severity])
    line.append(escape.text(d.message))
    line.append(f" [{d.name}]", style="dim")
    console.print(line, soft_wrap=True)
    for extra in derivation_lines(r, d) + fix_lines(d):
        console.print(Text(extra, style="dim"), soft_wrap=True)


def _rich_file(console, results, command: str, quiet: bool = False, held=frozenset()) -> None:
    """One file: its diagnostics, then its documents' buffers."""
    from rich.table import Table
    from rich.text import Text

    for r in results:
        for d in r.diagnostics:
            if id(d) not in held:
                _rich_diagnostic(console, r, d)
    for r in results:
        if command == "buffer":
            console.print(Text(escape.text(_title(r)), style="bold"))
            for text in (_explain_lines(r) if r.buffers else [no_buffer(r)]):
                console.print(text, soft_wrap=True, markup=False)
        elif r.valid and r.buffers and not quiet:
            table = Table(title=Text(escape.text(_title(r)), style="table.title"), title_justify="left")
            for col in ("domain", "required", "configured", "status"):
                table.add_column(col)
            for d, req, conf, st in _buffer_rows(r.buffers):
                table.add_row(d, req, conf, Text(st, style="green" if st == "ok" else "red"))
            console.print(table)
