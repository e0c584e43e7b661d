"""The core: text in, list of DocumentResult out. Never prints; renderers turn results into output."""
from __future__ import annotations

import os

from moecfg import backends as kinds
from moecfg.core import input_rules as R
from moecfg.core.diagnostics import Diagnostic, DocumentResult, Finding, Report, clip, json_pointer
from moecfg.core.guard import checked
from moecfg.sources.budget import per_file
from moecfg.core.policy import FileSettings, fill_defaults
from moecfg.core.policy import apply as apply_settings
from moecfg.core.registry import RULES
from moecfg.sources.files import PathError, Unreadable, discover, read  # noqa: F401  (PathError re-exported)
from moecfg.sources.yaml_source import Span, YamlDocument, YamlProblem, decode, parse_stream

MAX_MESSAGE = 2000  # characters of one diagnostic message

def _diag(code: str, message: str, span: Span, path: tuple = (), severity: str | None = None) -> Diagnostic:
    r = RULES[code]  # the message is clipped as a last resort; checks quote values with diagnostics.shown/clip
    return Diagnostic(code, r.name, severity or r.severity, clip(message, MAX_MESSAGE), json_pointer(path),
                      span.line, span.column, span.end_line, span.end_column)


def _file_problem(name: str, code: str, exc: YamlProblem) -> DocumentResult:
    span = Span(exc.line, exc.column, exc.line, exc.column)
    return DocumentResult(file=name, document=0, diagnostics=[_diag(code, exc.message, span)])


def lint_bytes(raw: bytes, name: str, options: kinds.Options = kinds.Options(),
               policy: FileSettings | None = None, root: str | None = None) -> list[DocumentResult]:
    """`policy` (optional): the file's settings (config defaults, suppressions, ignores, severity overrides),
    resolved once by core/settings; applied here by core/policy, without calling back into settings.
    `root` (optional): the folder being checked; a shell script may `source` files anywhere inside it."""
    try:
        text = decode(raw)
    except YamlProblem as exc:
        return _finish([_file_problem(name, R.NOT_TEXT.code, exc)], None, (), policy)
    return lint_text(text, name, options, policy, root)


def lint_text(text: str, name: str, options: kinds.Options = kinds.Options(),
              policy: FileSettings | None = None, root: str | None = None) -> list[DocumentResult]:
    from moecfg.core.routing import directive_text

    with per_file(keep=True):  # one reading budget for the whole file (sources/budget.py)
        results, starts = _lint_text(text, name, options, policy, root)
    return _finish(results, directive_text(text, name), starts, policy)


def _finish(results, text, starts, policy: FileSettings | None) -> list[DocumentResult]:
    if policy is not None:
        apply_settings(results, text, starts, policy)
    return results


def _lint_text(text: str, name: str, options: kinds.Options, policy, root: str | None = None):
    from moecfg.core import routing

    if routing.is_markdown(name):
        results = routing.lint_markdown(text, name, options, policy)
        return results, [1] * len(results)
    if routing.is_shell(name, text):
        results = routing.lint_shell(text, name, options, policy, root)
        return results, [1] * len(results)
    try:
        docs = parse_stream(text)
    except YamlProblem as exc:
        templated = routing.template_result(text, name)
        return ([templated] if templated else [_file_problem(name, R.YAML_SYNTAX.code, exc)]), [1]
    if not docs:
        span = Span(1, 1, 1, 1)
        return [DocumentResult(file=name, document=0, diagnostics=[
            _diag(R.EMPTY.code, "no YAML document in this file (empty or only comments)", span)])], [1]
    results, starts = [], []
    for doc in docs:
        if not isinstance(doc.data, dict) or routing.is_moecfg_document(doc):
            results.append(lint_document(doc, name, options, policy))
            starts.append(doc.start.line)
            continue
        launched = routing.lint_yaml_launch(doc, text, name, options, policy, len(results))
        results.extend(launched)
        starts.extend([doc.start.line] * len(launched))
    return results, starts


def lint_document(doc: YamlDocument, name: str, options: kinds.Options,
                  policy: FileSettings | None = None) -> DocumentResult:
    result = DocumentResult(file=name, document=doc.index)
    if policy is not None and policy.defaults and isinstance(doc.data, dict):
        fill_defaults(doc.data, policy.defaults)
    findings: list[Finding] = []
    for path, first, second in doc.duplicates:
        findings.append(Finding(R.DUPLICATE_KEY.code, path,
                                f"duplicate key `{path[-1]}` (first at line {first.line}, again at line {second.line}); "
                                "PyYAML would silently keep the last value", at_key=True))
    data = doc.data
    if not isinstance(data, dict):
        findings.append(Finding(R.NOT_MAPPING.code, (), f"a document must be a mapping of keys, got {_kind_of(data)}"))
    else:
        findings.extend(_analyze(doc, result, options))
    result.diagnostics = _position(doc, findings)
    return result


def _kind_of(data) -> str:
    names = {type(None): "null", list: "a list", str: "a string", bool: "a boolean", int: "an integer", float: "a number"}
    return names.get(type(data), type(data).__name__)


def _analyze(doc: YamlDocument, result: DocumentResult, options: kinds.Options) -> list[Finding]:
    kind = doc.data.get("kind", kinds.DEFAULT_KIND)
    module = kinds.load(kind) if isinstance(kind, str) else None
    if module is None:
        from moecfg.core.fields import suggest

        known = kinds.available()
        return [Finding(R.INVALID_VALUE.code, ("kind",),
                        f"`kind` = {kind!r} is not one of {', '.join(known)}{suggest(str(kind), known)}")]
    analysis = module.analyze(doc, options)
    result.kind, result.op, result.product, result.ruleset = analysis.kind, analysis.op, analysis.product, analysis.ruleset
    result.buffers, result.derived, result.explanations = analysis.buffers, analysis.derived, analysis.explanations
    return analysis.findings


def _position(doc: YamlDocument, findings: list[Finding]) -> list[Diagnostic]:
    out = []
    for f in findings:
        span = doc.position(f.path, f.at_key)
        out.append(_diag(f.code, f.message, span, f.path, f.severity))
    out.sort(key=lambda d: (d.line, d.column, d.code))
    return out


FILES_FOR_PROGRESS = 200  # a bar on a terminal's stderr from this many files on (core/progress.py)


def check_paths(paths, options: kinds.Options = kinds.Options(), settings=None, progress: bool = False) -> Report:
    """`settings` (core.settings.Settings, optional): resolves each file's FileSettings once, before linting.
    `progress`: the caller prints a human format, so a long run may show a bar on a terminal's stderr."""
    ask = getattr(settings, "markdown", None)  # documentation in walked folders (files.discover)
    entries = [e for p in paths for e in discover([p], ask(p) if ask and os.path.isdir(p) else None)]
    if progress:
        from moecfg.core.progress import track

        entries = track(entries, "checking", FILES_FOR_PROGRESS, enabled=True)
    report = Report()
    from moecfg.core.routing import SKIPPED

    SKIPPED.clear()  # what this run skipped (--verbose); a long-lived process must not accumulate it
    for entry in entries:
        name = "<stdin>" if entry.path == "-" else entry.path
        policy = settings.for_file(entry.path) if settings is not None else None
        try:
            raw = read(entry)
        except Unreadable as exc:
            if entry.named:
                raise PathError(f"{entry.path}: {exc}") from None
            results = _finish([_file_problem(name, R.NOT_TEXT.code, YamlProblem(str(exc), 1, 1))], None, (), policy)
        else:  # one file cannot stop the run (core/guard.py)
            results = checked(name, lint_bytes, raw, name, options, policy, entry.root, root=entry.root, policy=policy)
        report.results.extend(results)
        report.files += 1
    return report
