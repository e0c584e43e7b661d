"""The check path, one pass: discover -> read and classify (sources/documents/classify.py) -> analyse (a kind for moecfg
documents, checking/launch.py for launches) -> position -> settings and suppressions -> report.

Each stage is entered once per file and nothing flows back; what a run skipped is part of its Report (no
module-level state: two runs in one process never see each other's skips). Core knows kinds and frameworks only
through their registries (moecfg.backends, moecfg.frameworks). Never prints; renderers turn results into output.
"""
from __future__ import annotations

import functools
import os

from moecfg import backends as kinds
from moecfg.core import input_rules as R
from moecfg.core import launch_rules  # noqa: F401  (registers MC024: a template's info comes from the reader)
from moecfg.core.diagnose import diagnostic
from moecfg.core.diagnostics import Diagnostic, DocumentResult, Finding, Report, SkippedDocument
from moecfg.checking.guard import checked
from moecfg.checking.policy import FileSettings, fill_defaults
from moecfg.checking.policy import apply as apply_settings
from moecfg.sources.documents import classify as D
from moecfg.sources.budget import per_file
from moecfg.checking.coverage import Coverage
from moecfg.core.coverage import state_of
from moecfg.sources.files import Dangling, PathError, Unreadable, discover, read  # noqa: F401  (PathError re-exported)
from moecfg.sources.seen import surface_of
from moecfg.sources.manifests.yaml_source import Span, YamlDocument


@functools.cache
def vocabulary() -> D.Vocabulary:
    """What makes a document moecfg's, from the backends' registry (field tables load only when asked)."""
    return D.Vocabulary(frozenset(kinds.KIND_MODULES), _field_names)


@functools.cache
def _field_names() -> frozenset:
    names = set()
    for kind in kinds.FIELD_MODULES:
        mod = kinds.fields_module(kind)
        if mod is None:
            continue
        names.update(f.name for f in mod.FIELDS)
        for table in getattr(mod, "OP_FIELDS", {}).values():
            names.update(f.name for f in table)
    return frozenset(names - D.GENERIC_KEYS)


class Checked:
    """One file's outcome: its results (in document order), the documents it skipped, the launches it saw but did
    not read and the state it ended in (checking/coverage.py; None: a file walked for launch words held none)."""

    __slots__ = ("results", "skipped", "unread", "state")

    def __init__(self):
        self.results: list[DocumentResult] = []
        self.skipped: list[SkippedDocument] = []
        self.unread: list = []  # core.coverage.UnreadLaunch
        self.state = None  # core.coverage.FileState, set by check_entry

    def __getstate__(self):  # sent back from a worker process (big trees)
        return self.results, self.skipped, self.unread, self.state

    def __setstate__(self, state):
        self.results, self.skipped, self.unread, self.state = state


def lint_bytes(raw: bytes, name: str, options: kinds.Options = kinds.Options(),
               policy: FileSettings | None = None, root: str | None = None) -> list[DocumentResult]:
    """`policy` (optional): the file's settings (config defaults, suppressions, ignores, severity overrides),
    resolved once by core/settings; applied here by core/policy, without calling back into settings.
    `root` (optional): the folder being checked; a shell script may `source` files anywhere inside it."""
    return check_bytes(raw, name, options, policy, root).results


def lint_text(text: str, name: str, options: kinds.Options = kinds.Options(),
              policy: FileSettings | None = None, root: str | None = None) -> list[DocumentResult]:
    return check_text(text, name, options, policy, root).results


def check_bytes(raw: bytes, name: str, options: kinds.Options = kinds.Options(),
                policy: FileSettings | None = None, root: str | None = None, docs: bool = True) -> Checked:
    """`docs`: documentation inside the file (a vLLM recipe's Markdown guide) is read (files.Entry.docs)."""
    with per_file(keep=True):  # one reading budget for the whole file (sources/budget.py)
        text, items = D.classify_bytes(raw, name, vocabulary(), root, docs)
        return _analyse(items, text, name, options, policy)


def sniff_bytes(raw: bytes, name: str, surface: str) -> Checked:
    """A file walked for launch words only (files.Entry.sniff): never parsed, never run."""
    out = Checked()
    coverage = Coverage(name)
    coverage.sniff_only(raw.decode("utf-8", "replace"), surface)
    out.unread = coverage.unread
    return out


def check_text(text: str, name: str, options: kinds.Options = kinds.Options(),
               policy: FileSettings | None = None, root: str | None = None, docs: bool = True) -> Checked:
    with per_file(keep=True):  # one reading budget for the whole file (sources/budget.py)
        return _analyse(D.classify_text(text, name, vocabulary(), root, docs), text, name, options, policy)


def _analyse(items: list, text: str | None, name: str, options: kinds.Options, policy) -> Checked:
    """Analyse each classified document once, then apply the file's settings to all of them."""
    out, starts, launches = Checked(), [], 0
    coverage = Coverage(name)
    for item in items:
        if isinstance(item, D.Skipped):
            out.skipped.append(SkippedDocument(name, item.document, item.reason))
            continue
        if isinstance(item, D.Launches):
            coverage.from_records(item.launch_file.unread)
            coverage.data.extend(item.launch_file.data_regions)
        found = _results_of(item, name, options, policy, len(out.results), coverage)
        launches = _count_on(found, launches)
        if not found and isinstance(item, D.Launches):
            out.skipped.append(SkippedDocument(name, item.document, item.launch_file.skipped
                                               or "no framework launch recognised"))
        out.results.extend(found)
        starts.extend([item.start] * len(found))
    if policy is not None:  # in documentation, suppression directives count only inside its launch blocks
        apply_settings(out.results, D.directive_text(text, name), starts, policy)
    _place_fixes(out.results, text)
    coverage.sniff(text, surface_of(name, text or ""))
    out.unread = coverage.unread
    return out


def _place_fixes(results: list[DocumentResult], text: str | None) -> None:
    """Each pending fix becomes edits in `text`, or a sentence in its message saying why it has none."""
    if not any(d.fix is not None for r in results for d in r.diagnostics):
        return  # the common case: no sizing finding, nothing to import
    from moecfg.core.fixes import Pending, place, unplaced

    for r in results:
        for d in r.diagnostics:
            if not isinstance(d.fix, Pending):
                continue
            elsewhere = _elsewhere(d.fix)
            if elsewhere is not None:  # the value is written in another file (a compose env_file line)
                got = _place_elsewhere(d.fix, elsewhere)
            else:
                got = place(text, d.fix) if text is not None else "the file's text is not known"
            if isinstance(got, str):
                d.message, d.fix = unplaced(d.message, got), None
            else:
                got.file, d.fix = elsewhere or r.file, got


def _elsewhere(pending) -> str | None:
    """The other file every span of `pending` points into (sources/textmap.Elsewhere), or None."""
    files = {getattr(s, "file", None) for s in pending.spans}
    return files.pop() if len(files) == 1 and None not in files and "" not in files else None


def _place_elsewhere(pending, file: str):
    """The fix in `file` (read again, inside the checked tree only), at the spans the value was read from."""
    from moecfg.core.fixes import place
    from moecfg.core.record import replace
    from moecfg.sources import contained
    from moecfg.sources.files import Unreadable

    try:
        other = contained.read_inside(os.path.abspath(file), None, contained.tree_roots()).decode("utf-8-sig")
    except (Unreadable, UnicodeDecodeError):
        return f"{file} is not read again"
    got = place(other, replace(pending, spans=tuple(s.at for s in pending.spans)))
    if not isinstance(got, str):
        got.message = f"{got.message} (in {file}, line {got.edits[0].line})"
    return got


def _results_of(item, name: str, options, policy, first: int, coverage=None) -> list[DocumentResult]:
    if isinstance(item, D.Owned):
        return [lint_document(item.doc, name, options, policy)]
    if isinstance(item, D.Launches):
        from moecfg.checking.launch import context, lint_launch_file

        results = lint_launch_file(item.launch_file, name, context(policy, options), options, first, coverage)
        if item.document is not None:  # a YAML document's launches share its index; a script's count up
            for r in results:
                r.document = item.document
        return results
    span = item.span
    return [DocumentResult(file=name, document=item.document, diagnostics=[diagnostic(item.code, item.message, span)])]


def _count_on(found: list[DocumentResult], before: int) -> int:
    """`launch.index` counts the file's launches, not one YAML document's: shifted by the launches before it."""
    indexes = [r.launch["index"] for r in found if r.launch]
    for r in found:
        if r.launch:
            r.launch["index"] += before
    return before + (max(indexes) + 1 if indexes else 0)


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
        d = diagnostic(f.code, f.message, span, f.path, f.severity)
        if f.fix is not None:  # the value's own node: the only place the document writes it
            from moecfg.core.fixes import Pending, yaml_insert

            at = tuple(f.fix.path)
            if at in doc.values:
                d.fix = Pending(f.fix, (doc.values[at],), doc.raw_scalars.get(at), document=True)
            else:  # a key the document does not write (HCCL_BUFFSIZE unset): a line of its own
                d.fix = Pending(f.fix, (), None, document=True, insert=yaml_insert(doc.values, doc.keys, at))
        out.append(d)
    out.sort(key=lambda d: (d.line, d.column, d.code))
    return out


FILES_FOR_PROGRESS = 200  # a bar on a terminal's stderr from this many files on (core/progress.py)


def check_paths(paths, options: kinds.Options = kinds.Options(), settings=None, progress: bool = False,
                respect_gitignore: bool | None = None, deadline: bool = False) -> Report:
    """`settings` (core.settings.Settings, optional): resolves each file's FileSettings once, before linting.
    `progress`: the caller prints a human format, so a long run may show a bar on a terminal's stderr.
    `respect_gitignore`: skip what .gitignore files ignore while walking (None: the settings' choice, default on).
    `deadline`: a file checked in this process gets the workers' CPU deadline too (checking/workers.py; the CLI
    sets it: it owns the process's SIGPROF)."""
    report = Report()
    for _ in each_file(paths, options, settings, progress, respect_gitignore, report, deadline):
        pass
    return finish(report, settings)


def each_file(paths, options: kinds.Options = kinds.Options(), settings=None, progress: bool = False,
              respect_gitignore: bool | None = None, report: Report | None = None, deadline: bool = False):
    """Each file's Checked in walk order, as soon as it and every file before it are done (checking/stream.py
    prints them as they come); each is added to `report` first. Call `finish(report, settings)` after the last."""
    entries = [e for p in paths for e in discover([p], _walk_options(settings, respect_gitignore, p))]
    if settings is not None:  # each folder's settings found once, here: a worker's discoveries would be lost
        for folder in dict.fromkeys(os.path.dirname(e.path) or "." for e in entries if e.path != "-"):
            settings.config_for(os.path.join(folder, "x"))
    if progress:
        from moecfg.core.progress import track

        entries = track(entries, "checking", FILES_FOR_PROGRESS, enabled=True)
    for one in _each_checked(entries, options, settings, deadline):
        if one.state is None:  # walked for launch words and held none: not one of the checked files
            continue
        if report is not None:
            report.results.extend(one.results)
            report.skipped.extend(one.skipped)
            report.unread.extend(one.unread)
            report.states.append(one.state)
            report.files += 1
        yield one


def finish(report: Report, settings=None) -> Report:
    """What is said once per run (checking/ask_once.py), over the whole run's results; MC016 on each settings
    file of the tree that could not be used."""
    report.results.extend(_settings_problems(settings))
    from moecfg.checking.ask_once import fused_op_question, model_question, product_question, version_assumed

    product_question(report.results)
    model_question(report.results)
    fused_op_question(report.results)
    version_assumed(report.results)
    return report


def _settings_problems(settings) -> list[DocumentResult]:
    """MC016 on each settings file found in the tree that could not be used (checking/settings/resolve.py)."""
    import os
    import re

    out = []
    for path, why in sorted(getattr(settings, "problems", {}).items()):
        shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else os.path.basename(path)
        line, column = 1, 1
        m = re.match(r"(\d{1,9}):(\d{1,9}): ", why[len(path) + 1:]) if why.startswith(path + ":") else None
        if m:
            line, column = int(m.group(1)), int(m.group(2))
        why = why[len(path):].lstrip(":0123456789 ") if why.startswith(path) else why
        message = f"this settings file cannot be used ({why}); the files below it are checked with the defaults"
        out.append(DocumentResult(file=shown, document=0, diagnostics=[
            diagnostic(R.SETTINGS_INVALID.code, message, Span(line, column, line, column))]))
    return out


PARALLEL_FROM = 256  # files: below this, starting worker processes costs more than it saves
MAX_WORKERS = 8


def _each_checked(entries, options, settings, deadline: bool = False):
    """Each entry's Checked, in order; a big tree is checked on every core (fork: the workers share what the
    parent imported), in chunks, results still in file order."""
    entries = list(entries)
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    if len(entries) < PARALLEL_FROM or workers < 2 or not _can_fork():
        for entry in entries:
            yield _serial(entry, options, settings) if deadline else check_entry(entry, options, settings)
        return
    from moecfg.checking import workers as W

    size = max(16, len(entries) // (workers * 8))
    check = functools.partial(check_entry, options=options, settings=settings)
    yield from W.run(entries, workers, size, check, functools.partial(_lost, settings=settings))


def _serial(entry, options, settings) -> Checked:
    """check_entry under the per-file CPU deadline: past it, MC019 on the file and the run goes on."""
    from moecfg.checking import workers as W

    try:
        with W.serial_deadline():
            return check_entry(entry, options, settings)
    except W.FileDeadline:
        return _lost(entry, W.cpu_limit_reason(), settings)


def _lost(entry, why: str, settings) -> Checked:
    """The result of a file whose worker process died checking it (checking/workers.py): MC019 saying why."""
    from moecfg.checking.guard import lost

    name = "<stdin>" if entry.path == "-" else entry.path
    out = Checked()
    out.results.append(lost(name, why, settings.for_file(entry.path) if settings is not None else None))
    out.state = state_of(name, out.results, out.skipped, out.unread)
    return out


def _can_fork() -> bool:
    import multiprocessing
    import threading

    # fork copies one thread: a process running others (an embedding program) is checked serially
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def check_entry(entry, options: kinds.Options, settings) -> Checked:
    """One file's Checked, its state set (core/coverage.py state_of); None state: a sniffed file without launch words."""
    got = _check_entry(entry, options, settings)
    name = "<stdin>" if entry.path == "-" else entry.path
    if getattr(entry, "sniff", None) and not got.unread and not got.results:
        if entry.named:  # named on the command line: said, not silently dropped
            got.skipped.append(SkippedDocument(name, 0, "Python file without a launch word (sniffed, never parsed)"))
        else:  # walked for launch words and held none: not one of the checked files
            return got
    got.state = state_of(name, got.results, got.skipped, got.unread)
    return got


def _check_entry(entry, options: kinds.Options, settings) -> Checked:
    name = "<stdin>" if entry.path == "-" else entry.path
    policy = settings.for_file(entry.path) if settings is not None else None
    try:
        raw = read(entry)
    except Dangling as exc:
        dangling = Checked()
        dangling.skipped.append(SkippedDocument(name, 0, str(exc)))
        return dangling
    except Unreadable as exc:
        if entry.named:
            raise PathError(f"{entry.path}: {exc}") from None
        if getattr(entry, "sniff", None):  # walked for launch words only: not a file moecfg checks
            return Checked()
        unread = Checked()
        unread.results.append(DocumentResult(file=name, document=0, diagnostics=[
            diagnostic(R.NOT_TEXT.code, str(exc), Span(1, 1, 1, 1))]))
        if policy is not None:
            apply_settings(unread.results, None, (), policy)
        return unread
    if getattr(entry, "sniff", None):
        return sniff_bytes(raw, name, entry.sniff)
    # one file cannot stop the run (checking/guard.py): a crash while checking it is MC019 on it
    got = checked(name, check_bytes, raw, name, options, policy, entry.root, getattr(entry, "docs", True),
                  root=entry.root, policy=policy)
    if isinstance(got, Checked):
        return got if entry.named else _empty_met_walking(got, name)
    crashed = Checked()
    crashed.results.extend(got)
    return crashed


def _empty_met_walking(got: Checked, name: str) -> Checked:
    """An empty YAML file met while walking a folder (a chart's blank values.yaml, sgl-project/ome@17b77ed
    charts/ome-crd/values.yaml) is nobody's deployment: skipped with the reason; named on the command line, MC007."""
    if len(got.results) == 1 and [d.code for d in got.results[0].diagnostics] == [R.EMPTY.code]:
        got.results.clear()
        got.skipped.append(SkippedDocument(name, 0, "empty: no YAML document"))
    return got


def _walk_options(settings, respect_gitignore: bool | None, path: str):
    import os

    from moecfg.sources.files import Walk

    if respect_gitignore is None:
        ask = getattr(settings, "respect_gitignore", None)
        respect_gitignore = ask(path if path != "-" else ".") if ask is not None else True
    ask = getattr(settings, "markdown", None)  # documentation in walked folders (files.discover)
    markdown = ask(path) if ask is not None and os.path.isdir(path) else None
    ask = getattr(settings, "excludes", None)  # settings `exclude` / `extend-exclude`
    excludes = ask(path if path != "-" else ".") if ask is not None else None
    return Walk(respect_gitignore=respect_gitignore, markdown=markdown, excludes=excludes)
