"""Which stage reads a file or document: moecfg's own YAML documents go to the kinds; shell scripts, Kubernetes
manifests, compose files and YAML holding a launch command go to the launch readers; anything else is skipped
(a `deploy/` folder of ordinary manifests checks clean). The launch readers are imported only when needed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from moecfg import backends
from moecfg.core.diagnostics import DocumentResult

if TYPE_CHECKING:  # the launch stage loads only when a file holds a launch: plain YAML checks stay light
    from moecfg.sources.launch import LaunchFile

# Keys too generic to make a foreign YAML file a moecfg document on their own.
_GENERIC = frozenset({"env", "model", "device", "mode", "dtype", "scales", "k", "h", "name", "op"})
_FIELD_NAMES: frozenset | None = None
SKIPPED: list[tuple[str, str]] = []  # (file, why) of documents skipped in this process (--verbose lists them)


def is_shell(name: str, text: str) -> bool:
    if name.endswith((".yaml", ".yml")):  # the common case decides without loading the launch readers
        return False
    readers = _readers()
    return bool(readers and readers.looks_like_shell(name, text))


def is_markdown(name: str) -> bool:
    return name.lower().endswith((".md", ".mdx", ".markdown", ".rst"))


def lint_markdown(text: str, name: str, options, policy) -> list[DocumentResult]:
    """Documentation: only launches recognised in its code blocks give results (sources/markdown.py)."""
    readers = _readers()
    return _run(readers.read_markdown(text, name), name, options, policy, 0) if readers else []


def directive_text(text: str | None, name: str) -> str | None:
    """Where suppression directives are read: in documentation only its launch blocks (sources/markdown.py)."""
    if text is None or not is_markdown(name):
        return text
    from moecfg.sources.markdown import directive_text as code_only
    return code_only(text, name)


def _field_names() -> frozenset:
    global _FIELD_NAMES
    if _FIELD_NAMES is None:
        names = set()
        for kind in backends.FIELD_MODULES:
            mod = backends.fields_module(kind)
            if mod is None:
                continue
            names.update(f.name for f in mod.FIELDS)
            for table in getattr(mod, "OP_FIELDS", {}).values():
                names.update(f.name for f in table)
        _FIELD_NAMES = frozenset(names - _GENERIC)
    return _FIELD_NAMES


def is_moecfg_document(doc) -> bool:
    """A document moecfg owns: `kind` names a moecfg kind, or (no `apiVersion`, no pod/compose shape) at least half
    of its keys are moecfg fields or near misses of them (`bss: 128` is a typo to report, not a foreign file; a
    Helm values file that happens to have a `bs:` among its own keys is foreign: skipped, never an error)."""
    data = doc.data
    if not isinstance(data, dict):
        return False
    kind = data.get("kind")
    if isinstance(kind, str) and kind in backends.KIND_MODULES:
        return True
    if "apiVersion" in data or "services" in data:
        return False
    if "kind" in data:
        return True  # an unknown kind without apiVersion: report it (MC006 with did-you-mean)
    names = _field_names()
    keys = [k for k in list(data)[:50] if isinstance(k, str) and k not in _GENERIC]  # generic keys are neutral
    ours = sum(k in names for k in keys)
    if ours and 2 * ours >= len(keys):
        return True
    import difflib  # only for documents with keys moecfg does not know

    ours += sum(1 for k in keys if k not in names and len(k) > 3 and difflib.get_close_matches(k, names, n=1, cutoff=0.85))
    return bool(ours) and 2 * ours >= len(keys)


def _readers():
    from moecfg.optional import optional_module

    return optional_module("moecfg.sources.readers")


def context(policy, options):
    """The LaunchContext of a file: command line first, then its settings file."""
    from moecfg.frameworks import LaunchContext

    product = getattr(options, "product", None) or (policy.product if policy else None)
    source = "--product" if getattr(options, "product", None) else ("settings `product`" if product else "")
    return LaunchContext(
        product=product, product_source=source,
        cann=options.cann or (policy.cann_version if policy else None),
        framework_versions=policy.framework_versions if policy else (),
        models=policy.models if policy else (),
        settings_dir=policy.settings_dir if policy else None,
        device=policy.device if policy else None, device_memory_gb=policy.device_memory_gb if policy else None)


def _run(lf: LaunchFile | None, name: str, options, policy, first: int) -> list[DocumentResult]:
    if lf is None:
        return []
    if lf.skipped and not lf.launches and not lf.problems:
        SKIPPED.append((name, lf.skipped))
        return []
    from moecfg.core.launch import lint_launch_file

    results = lint_launch_file(lf, name, context(policy, options), options, first)
    if not results:
        SKIPPED.append((name, lf.skipped or "no framework launch recognised"))
    return results


def lint_shell(text: str, name: str, options, policy, root: str | None = None) -> list[DocumentResult]:
    readers = _readers()
    if readers is None:
        return []
    from moecfg.sources.sourced import Includes
    return _run(readers.read_shell(text, Includes.for_script(name, root)), name, options, policy, 0)


def lint_yaml_launch(doc, text: str, name: str, options, policy, first: int) -> list[DocumentResult]:
    readers = _readers()
    lf = readers.read_yaml_document(doc, text) if readers else None
    if lf is None:
        SKIPPED.append((name, f"document {doc.index}: not a moecfg document and no launch command"))
        return []
    results = _run(lf, name, options, policy, first)
    for r in results:
        r.document = doc.index
    return results


def template_result(text: str, name: str) -> DocumentResult | None:
    """A file that is not YAML because it is a template (Helm `{{ }}`): MC024 instead of MC001."""
    readers = _readers()
    problem = readers.template_problem(text) if readers else None
    if problem is None:
        return None
    from moecfg.core.launch import diagnostic

    return DocumentResult(file=name, document=0, diagnostics=[diagnostic(problem.code, problem.message, problem.span)])


__all__ = ["is_markdown", "lint_markdown", "is_shell", "is_moecfg_document", "lint_shell", "lint_yaml_launch", "template_result"]
