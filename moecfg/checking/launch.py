"""The launch stage of the engine: a LaunchFile -> one DocumentResult per op call the launch makes.

The framework derives each op call's arguments as a moecfg document of the op's kind; the kind's own
analysis (the same rules and formulas as for a YAML document) judges it, and every finding is positioned at
the flag or env entry that fed the failing argument (`OpCall.sources`).
"""
from __future__ import annotations


from moecfg import backends, frameworks
from moecfg.core import launch_rules as L
from moecfg.core.diagnostics import Diagnostic, DocumentResult, Finding
from moecfg.core.diagnose import diagnostic  # one builder: messages clipped alike
from moecfg.core.record import replace
from moecfg.frameworks.op_document import LaunchDocument
from moecfg.sources.budget import Budget
from moecfg.sources.launch import LaunchFile
from moecfg.sources.textmap import Span


# Per-document infos that are launch-wide for a launch (the CANN version is not pinned): said once per launch.
_ONCE_PER_LAUNCH = frozenset({"MC011"})


def context(policy, options) -> frameworks.LaunchContext:
    """The LaunchContext of a file: command line first, then its settings file."""
    given = getattr(options, "product", None) or getattr(options, "device", None)  # --product: Ascend or a GPU
    product = given or (policy.product if policy else None)
    source = "--product" if given else ("settings `product`" if product else "")
    versions = dict(policy.framework_versions if policy else ()) | dict(getattr(options, "framework_versions", ()))
    return frameworks.LaunchContext(
        product=product, product_source=source,
        cann=options.cann or (policy.cann_version if policy else None),
        framework_versions=tuple(sorted(versions.items())),
        models=policy.models if policy else (),
        settings_dir=policy.settings_dir if policy else None,
        device=policy.device if policy else None,
        device_memory_gb=policy.device_memory_gb if policy else None)


def lint_launch_file(lf: LaunchFile, name: str, ctx: frameworks.LaunchContext, options: backends.Options,
                     first_index: int = 0, coverage=None) -> list[DocumentResult]:
    """`coverage` (optional, checking/coverage.Coverage): told each recognised launch's lines and what its
    derivation did not read (issue 30)."""
    results: list[DocumentResult] = []
    # a valueFrom / template-value info is about a launch: said only when one is recognised
    about_launch = [p for p in lf.problems if p.about_launch]
    loose = [diagnostic(p.code, p.message, p.span) for p in lf.problems if not p.about_launch]
    budget = Budget.current()
    if ctx.file is None:
        ctx = replace(ctx, file=name)
    seen_at: list[int] = []  # lines of the launches recognised
    recognised = 0  # the launch's ordinal in this call (`launch.index`; checking/engine.py makes it the file's)
    for launch in lf.launches:
        launch_ctx = _with_hints(ctx, launch)
        module = frameworks.recognise(launch, launch_ctx)
        if module is None:
            continue
        if not budget.launch(launch.span):  # past the file's budget: one MC023 info, the rest is not derived
            loose += [diagnostic(p.code, p.message, p.span) for p in budget.problems()]
            break
        derivation = module.derive(launch, launch_ctx)
        if coverage is not None:
            coverage.recognised(launch, derivation)
        seen_at.append(launch.span.line)
        about = {"framework": derivation.framework, "framework_version": derivation.version, "line": launch.span.line}
        ordinal, recognised = recognised, recognised + 1
        launch_notes = [_with_fix(diagnostic(n.code, n.message, n.span, severity=n.severity), n) for n in derivation.notes]
        said: set[tuple] = set()  # one cause, one finding: a phase repeating another's finding word for word
        for i, call in enumerate(derivation.calls):
            index = first_index + len(results)
            result = _judge(call, index, name, launch.span, options, launch.context == "shell")
            result.launch = {**about, "role": call.role, "index": ordinal}
            notes = launch_notes if i == 0 else []  # launch-wide notes once, on the launch's first op call
            own = result.diagnostics if i == 0 else [d for d in result.diagnostics if d.code not in _ONCE_PER_LAUNCH]
            own = [d for d in own if _said_once(d, said)]
            result.diagnostics = sorted(notes + own, key=lambda d: (d.line, d.column, d.code))
            results.append(result)
        if not derivation.calls:  # recognised, but no op call derivable (the notes, if any, say why)
            result = DocumentResult(file=name, document=first_index + len(results), diagnostics=launch_notes)
            result.launch = {**about, "role": _phase(launch), "index": ordinal}
            results.append(result)
    if results:
        loose += [diagnostic(p.code, p.message, p.span) for p in about_launch
                  if p.within is None or any(p.within[0] <= line <= p.within[1] for line in seen_at)]
    if loose:
        if results:
            results[0].diagnostics = sorted(loose + results[0].diagnostics, key=lambda d: (d.line, d.column, d.code))
        else:
            results.append(DocumentResult(file=name, document=first_index, diagnostics=loose))
    return results


def _said_once(d: Diagnostic, said: set[tuple]) -> bool:
    """False when an earlier op call of the launch reported the same finding at the same place."""
    key = (d.code, d.line, d.column, d.severity, d.message)
    if key in said and d.code != L.NO_EP_OP.code:  # MC041 stays: explain-launch shows it as the phase's reason
        return False
    said.add(key)
    return True


def _phase(launch) -> str:
    """The role of a launch with no op call: its phase when the container / recipe entry names one, else serve."""
    name = (launch.container or "").lower()
    return next((p for p in ("prefill", "decode") if p in name), "serve")


def _with_hints(ctx: frameworks.LaunchContext, launch) -> frameworks.LaunchContext:
    """Settings and --product win; else a hint in the file that names the product (frameworks/hints.py)."""
    if ctx.product:
        return ctx
    from moecfg.frameworks.hints import product_from_env, product_from_hints

    found = product_from_hints(launch.hints) or product_from_env(launch.env)
    if found is None:
        return ctx
    product, text, span = found
    return replace(ctx, product=product, product_source=f"hint {text} (line {span.line})")


def _judge(call: frameworks.OpCall, index: int, name: str, start: Span, options, shell: bool = False) -> DocumentResult:
    result = DocumentResult(file=name, document=index, kind=call.kind if call.kind != "none" else None,
                            op=call.op if call.kind != "none" else "none")
    result.arguments, result.derivation = dict(call.arguments), dict(call.derivation)
    if call.kind == "none":
        if call.derived:  # a training launch's per-rank memory table (no op to judge)
            result.derived = dict(call.derived)
        diags = _note_diagnostics(call)
        if not call.quiet:  # a dense model has no MoE layer to speak of
            diags.append(diagnostic(L.NO_EP_OP.code, call.why_none or "no expert-parallel collective runs", start))
        result.diagnostics = _conditional(diags, call)
        return result
    if _missing_required(call):  # left out because unknown (MC042/MC023 say which): no MC005 for them
        result.diagnostics = _conditional(_note_diagnostics(call), call)
        return result
    doc = LaunchDocument(index, call, start, shell)
    module = backends.load(call.kind)
    analysis = module.analyze(doc, options)
    result.kind, result.op, result.product, result.ruleset = analysis.kind, analysis.op, analysis.product, analysis.ruleset
    result.buffers, result.derived, result.explanations = analysis.buffers, analysis.derived, analysis.explanations
    if _BUFFER_SETTINGS.intersection(call.unknown) and result.buffers:
        result.buffers = _unknown_window(result.buffers)
    if call.derived:  # what only the launch knows (the per-rank memory budget)
        result.derived = {**(result.derived or {}), **call.derived}
    covered = {code for n in call.notes for code in n.covers}  # one cause, one finding: the one naming the flag
    findings, unchecked = _judged(analysis.findings, call.unknown)
    findings = [f for f in findings if f.code not in covered]
    diags = _note_diagnostics(call, unchecked if call.unknown else None)  # after analyze: notes may use its codes
    diags.extend(_position(doc, [_in_launch_terms(f, call.knobs) for f in findings] if call.knobs else findings))
    result.diagnostics = _conditional(diags, call)
    return result


def _note_diagnostics(call: frameworks.OpCall, unchecked: dict[str, list[str]] | None = None) -> list[Diagnostic]:
    return [_with_fix(diagnostic(n.code, _with_unchecked(n, unchecked or {}), n.span, severity=n.severity), n)
            for n in call.notes]


def _with_fix(d: Diagnostic, note) -> Diagnostic:
    """A note's fix: its framework already knows where the value is written (Suggestion.spans)."""
    s = getattr(note, "fix", None)
    if s is not None:
        from moecfg.core.fixes import Pending

        d.fix = Pending(s, tuple(s.spans), s.old, insert=s.insert)
    return d


_BUFFER_SETTINGS = frozenset({"env.HCCL_BUFFSIZE", "env.DEEPEP_HCCL_BUFFSIZE", "hccl_buffer_size"})


def _unknown_window(buffers: dict) -> dict:
    """The compared HCCL buffer is set to a value not known statically: what is required stays, the verdict goes
    (a buffer compared with a setting the launch does know, `hccl_buffer_size.ep`, keeps its verdict)."""
    out = {}
    for domain, b in buffers.items():
        if isinstance(b, dict) and "configured_mb" in b and not str(b.get("configured_from", "")).startswith(
                "hccl_buffer_size"):
            b = {**b, "configured_mb": None, "sufficient": None, "configured_from": "HCCL_BUFFSIZE, not known statically"}
        out[domain] = b
    return out


def _judged(findings: list[Finding], unknown: tuple[str, ...]) -> tuple[list[Finding], dict[str, list[str]]]:
    """Findings at an argument whose value is unknown are dropped: (kept, {argument: codes not checked})."""
    kept, unchecked = [], {}
    for f in findings:
        at = ".".join(str(p) for p in f.path[:2])
        if at in unknown or ".".join(str(p) for p in f.path[:1]) in unknown:
            codes = unchecked.setdefault(at if at in unknown else str(f.path[0]), [])
            if f.code not in codes:
                codes.append(f.code)
        else:
            kept.append(f)
    return kept, unchecked


def _with_unchecked(note: frameworks.Note, unchecked: dict[str, list[str]]) -> str:
    codes = sorted({c for cs in unchecked.values() for c in cs}) if note.about else None
    if not codes:
        return note.message
    return f"{note.message}; not checked against it: {', '.join(codes)} (`moecfg explain-launch` shows " \
           "what the op needs)"


def _in_launch_terms(f: Finding, knobs: dict[str, str]) -> Finding:
    """An op finding names op fields (`num_nvl_bytes`); the user sets a flag or a variable: name it beside the field."""
    import re
    named: set[str] = set()

    def beside(m) -> str:  # one pass over the message: a knob's own text is never rewritten again
        name = m.group(2)
        if name in named:
            return m.group(1)
        named.add(name)
        return f"{m.group(1)} ({knobs[name]})"

    words = "|".join(re.escape(n) for n in sorted(knobs, key=len, reverse=True))
    return replace(f, message=re.sub(rf"(`?\b({words})\b`?)", beside, f.message))


def _conditional(diags: list[Diagnostic], call: frameworks.OpCall) -> list[Diagnostic]:
    """A call that runs only under `call.condition` (two ops possible), or a rule whose error holds only under
    `call.holds_if[code]`: the error holds for it only, so a warning that says under what."""
    for d in diags:
        condition = call.holds_if.get(d.code) or call.condition
        if condition and d.severity == "error":
            d.severity, d.message = "warning", f"if {condition}: {d.message}"
    return diags


def _missing_required(call: frameworks.OpCall) -> list[str]:
    mod = backends.fields_module(call.kind)
    if mod is None:
        return []
    tables = getattr(mod, "OP_FIELDS", None) or {}
    key = getattr(mod, "OP_KEY", "op")
    table = tables.get(call.arguments.get(key) or call.op or getattr(mod, "DEFAULT_OP", None), mod.FIELDS)
    return [f.name for f in table if f.required and f.name not in call.arguments]


def _position(doc: LaunchDocument, findings: list[Finding]) -> list[Diagnostic]:
    out = []
    for f in findings:
        d = diagnostic(f.code, f.message, doc.position(f.path, f.at_key), f.path, f.severity)
        if f.fix is not None:
            d.fix = doc.pending(f.fix)
        out.append(d)
    return out
