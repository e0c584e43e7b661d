"""The shape of the tree (issue 19): one op is one folder, and imports go one way.

Every op a backend registers (its ops/__init__.py) resolves to a folder backends/<backend>/ops/<op>/ holding
its analysis and fields; every backend rule family lives in an op folder or in the backend's shared/ package;
no op folder imports another one. Over the whole package (read with `ast`, nothing imported; an import inside a
function counts too): no import cycle, and no module imports a stage above its own.
"""
from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

import pytest

import part_levels
from moecfg.core import registry

PACKAGE = Path(__file__).resolve().parents[1] / "moecfg"
BACKENDS = PACKAGE / "backends"
# backend -> (registry module, its dict attribute, the kind's name for its op -> module table)
REGISTRIES = {"ascend": ("moecfg.backends.ascend.ops", "OPS", "OP_MODULES"),
              "deepep": ("moecfg.backends.deepep.ops", "APIS", "API_MODULES")}
# The modules a backend may keep beside ops/ and shared/: the kind entry, the field-table index every
# command reads, and what spans all ops (Ascend's rule-set diff; DeepEP's framework-facing argument helpers).
KIND_LEVEL = {"__init__.py", "kind.py", "fields.py", "ruleset_diff.py", "arguments.py"}


# ---- one op, one folder ----------------------------------------------------------------------------------------

def _ops():
    for backend, (module, attr, _) in REGISTRIES.items():
        reg = importlib.import_module(module)
        for op in getattr(reg, attr):
            yield backend, reg, op


@pytest.mark.parametrize("backend,reg,op", list(_ops()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_registered_op_is_a_folder_with_its_pieces(backend, reg, op):
    module = reg.analysis_module(op)
    folder = reg.folder_package(op)
    assert module.startswith(folder + "."), module
    assert folder.startswith(f"moecfg.backends.{backend}.ops."), folder
    path = PACKAGE.parent / folder.replace(".", "/")
    assert (path / "__init__.py").is_file() and (path / "analysis.py").is_file() and (path / "fields.py").is_file()
    assert callable(importlib.import_module(module).analyze)
    fields = importlib.import_module(folder + ".fields")
    table = fields.OP_FIELDS[op] if hasattr(fields, "OP_FIELDS") else fields.FIELDS
    assert importlib.import_module(f"moecfg.backends.{backend}.fields").OP_FIELDS[op] is table


@pytest.mark.parametrize("backend", sorted(REGISTRIES))
def test_the_kind_and_the_field_index_read_the_one_registry(backend):
    module, attr, table = REGISTRIES[backend]
    ops = importlib.import_module(module)
    names = list(getattr(ops, attr))
    kind = importlib.import_module(f"moecfg.backends.{backend}.kind")
    assert getattr(kind, table) == {op: ops.analysis_module(op) for op in names}
    fields = importlib.import_module(f"moecfg.backends.{backend}.fields")
    assert list(fields.OP_FIELDS) == names


def test_tutel_has_the_same_shape():
    from moecfg.backends import load
    from moecfg.backends.tutel.ops.moe_layer import analysis

    assert load("tutel").analyze is analysis.analyze
    assert {"analysis.py", "fields.py", "formulas.py", "model.py", "rules.py"} <= _files(BACKENDS / "tutel/ops/moe_layer")


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


@pytest.mark.parametrize("backend", ["ascend", "deepep", "tutel"])
def test_a_backend_keeps_only_kind_level_modules_beside_ops_and_shared(backend):
    root = BACKENDS / backend
    loose = {p.name for p in root.glob("*.py")} - KIND_LEVEL
    # a folder holding no module (left behind by the move with only __pycache__ in it) is not part of the tree
    folders = {p.name for p in root.iterdir() if p.is_dir() and any(p.rglob("*.py"))}
    assert loose == set() and folders <= {"ops", "shared"}


def test_every_backend_rule_family_is_in_an_op_folder_or_shared():
    registry.all_rules()
    declared = {r.module for r in registry.RULES.values() if r.module.startswith("moecfg.backends.")}
    assert declared == set(registry.backend_rule_modules())  # found by place, and nothing declares rules elsewhere
    for name in declared:
        parts = name.split(".")
        assert parts[3] in ("ops", "shared") or parts[2] == "device", name


def test_no_op_folder_imports_another():
    edges = graph()
    wrong = {(m, t) for m, targets in edges.items() if _op_folder(m)
             for t in targets if _op_folder(t) and _op_folder(t) != _op_folder(m)}
    assert wrong == set()


def _op_folder(module: str) -> str | None:
    parts = module.split(".")
    return ".".join(parts[:5]) if len(parts) > 4 and parts[1] == "backends" and parts[3] == "ops" else None


# ---- imports go one way ----------------------------------------------------------------------------------------

# Stages, lowest first, as the code depends on them: the one table of docs/architecture.md (tests/part_levels.py
# reads it). core is the ground (findings, field specs, the rule registry, records, typed values); a reader knows
# nothing of ops; presets fill documents; backends judge op calls; frameworks derive op calls (with the backends'
# formulas); checking runs the check; the rest presents it. Issue 31 phase 2 removed the last upward imports
# (frameworks/vllm_ascend/memory.py -> checking.launch, presets/hf_config.py -> frameworks.values).
STAGES = dict(part_levels.LEVELS)
KNOWN_UPWARD: set[tuple[str, str]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict) -> set[str]:
    """The moecfg modules `name` imports anywhere in its text: `from a.b import c` is a.b.c when that is a module."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
    return {m for m in found if m in modules and m != name}


@functools.cache
def graph() -> dict[str, set[str]]:
    """module -> the moecfg modules it imports (read once per run; callers do not change it)."""
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while not component or member != node:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                    if len(component) > 1:
                        out.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return out


def stage(module: str) -> int | None:
    return STAGES.get(part_levels.part(module))


def upward(edges: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(m, t) for m, targets in edges.items() for t in targets
            if stage(m) is not None and stage(t) is not None and stage(t) > stage(m)}


def test_the_checks_find_what_they_look_for():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []
    edges = {"moecfg.sources.x": {"moecfg.checking.engine", "moecfg.core.diagnostics"}, "moecfg.cli.y": {"moecfg.sources.x"}}
    assert upward(edges) == {("moecfg.sources.x", "moecfg.checking.engine")}
    edges = graph()
    assert "moecfg.backends.ascend.ops.mega_moe.model" in edges["moecfg.backends.ascend.ops.mega_moe.rules"]
    assert "moecfg.backends.deepep.ops.v1.rules.buffers" in edges["moecfg.backends.deepep.shared.rules.usage"]  # lazy


def test_every_top_level_module_has_a_stage():
    tops = {name.split(".")[1] for name in graph() if name.count(".") >= 1}
    assert {t for t in tops if stage(f"moecfg.{t}") is None} == set()


def test_no_module_imports_a_higher_stage():
    assert upward(graph()) - KNOWN_UPWARD == set()


def test_no_import_cycle():
    assert cycles(graph()) == []


def test_every_known_upward_import_still_exists():  # else drop it from KNOWN_UPWARD
    edges = graph()
    assert {(m, t) for m, t in KNOWN_UPWARD if t not in edges.get(m, ())} == set()
