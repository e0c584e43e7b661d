"""The shape of the package, read from the source (AST only, nothing is imported): no import cycle anywhere in
moecfg/ (imports inside functions and under TYPE_CHECKING count too: a lazy import is still a dependency), core
imports nothing above it, and every import between the package's top-level parts goes down the table of docs/architecture.md (so no
cycle between parts)."""
from __future__ import annotations

import ast
from pathlib import Path

import part_levels

PACKAGE = Path(__file__).resolve().parents[1] / "moecfg"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules) -> set[str]:
    """The moecfg modules `name` imports: `from a.b import c` is a.b.c when that is a module, else a.b."""
    found = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in modules else base)
    return {m for m in found if m in modules and m != name}


def graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_no_import_cycle_in_the_package():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_relative_and_lazy_imports_are_edges():
    edges = graph()
    assert "moecfg.checking.launch" in edges["moecfg.checking.engine"]  # imported inside a function
    assert "moecfg.sources.shell.arrays" in edges["moecfg.sources.shell.words"]


# core is the ground (records, diagnostics, fields, the rule registry, launch rule metadata, suppressions, output,
# progress): it imports nothing of the package above it, deferred imports included. A core module that needs a reader,
# a framework or an op reaches it through a registry (module names as data), never an import.
def core_imports_above(edges: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(m, t) for m, targets in edges.items() if m.startswith("moecfg.core.") or m == "moecfg.core"
            for t in targets if not (t.startswith("moecfg.core.") or t == "moecfg.core")}


def test_core_imports_nothing_above_it():
    assert core_imports_above(graph()) == set()


def part(module: str) -> str:
    return module.split(".")[1] if "." in module else "moecfg"


def part_cycles(edges: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """Every elementary cycle between the package's top-level parts, each as a tuple starting at its least part."""
    parts: dict[str, set[str]] = {}
    for m, targets in edges.items():
        parts.setdefault(part(m), set()).update(part(t) for t in targets if part(t) != part(m))
    found = set()

    def walk(start, node, path):
        for nxt in sorted(parts.get(node, ())):
            if nxt == start:
                found.add(tuple(path))
            elif nxt > start and nxt not in path:
                walk(start, nxt, path + [nxt])
    for start in sorted(parts):
        walk(start, start, [start])
    return found


# Issue 31 phase 2 removed the 8 cycles between parts left after phase 1 (23 before it): none is allowed.
KNOWN_PART_CYCLES: set[tuple[str, ...]] = set()


def test_no_cycle_between_parts():
    assert part_cycles(graph()) == KNOWN_PART_CYCLES


def test_every_import_between_parts_goes_down_the_declared_table():
    """docs/architecture.md declares each part's level once; an import to the same level or above fails here."""
    assert part_levels.against(graph()) == set()


def test_every_part_has_a_declared_level():
    assert {part(m) for m in graph()} - set(part_levels.LEVELS) == set()


def test_the_table_check_finds_an_import_against_it():
    edges = {"moecfg.sources.x": {"moecfg.checking.engine", "moecfg.core.record"},
             "moecfg.render.y": {"moecfg.models.kinds"}, "moecfg.plan.z": {"moecfg.models.a"},
             "moecfg.newpart.w": {"moecfg.core.record"}, "moecfg.cli.v": {"moecfg.api"}}
    assert part_levels.against(edges) == {("moecfg.sources.x", "moecfg.checking.engine"),
                                          ("moecfg.render.y", "moecfg.models.kinds"),  # up
                                          ("moecfg.plan.z", "moecfg.models.a"),  # same level, other part
                                          ("moecfg.newpart.w", "moecfg.core.record")}  # no level declared
    table = "<!-- part-levels -->\n| level | parts |\n|---|---|\n| 0 | core, version |\n| 3 | cli |\n<!-- /part-levels -->"
    assert part_levels.read_levels(table) == {"core": 0, "version": 0, "cli": 3}


def test_the_part_cycle_finder_finds_cycles():
    edges = {"moecfg.a.x": {"moecfg.b.y"}, "moecfg.b.y": {"moecfg.c.z", "moecfg.a.w"}, "moecfg.c.z": {"moecfg.a.x"},
             "moecfg.a.w": set()}
    assert part_cycles(edges) == {("a", "b"), ("a", "b", "c")}
    assert part_cycles({"moecfg.a.x": {"moecfg.b.y"}, "moecfg.b.y": set()}) == set()


def test_a_core_import_of_a_reader_would_be_found():
    edges = {"moecfg.core.x": {"moecfg.sources.shell.reader", "moecfg.core.record", "moecfg.checking.engine"},
             "moecfg.checking.engine": {"moecfg.core.x"}, "moecfg.core": {"moecfg.version"}}
    assert core_imports_above(edges) == {("moecfg.core.x", "moecfg.sources.shell.reader"),
                                         ("moecfg.core.x", "moecfg.checking.engine"), ("moecfg.core", "moecfg.version")}
