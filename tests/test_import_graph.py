"""The shape of the package, read from the source (AST only, nothing is imported): no import cycle anywhere in
moecfg/ (imports inside functions and under TYPE_CHECKING count too: a lazy import is still a dependency), and
core reaches readers and frameworks only through their registries."""
from __future__ import annotations

import ast
from pathlib import Path

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
    assert "moecfg.core.launch" in edges["moecfg.core.engine"]  # imported inside a function
    assert "moecfg.sources.shell_arrays" in edges["moecfg.sources.shell_words"]


# What core may use of sources/ and frameworks/: registries and shared data types, never a reader or a framework.
CORE_MAY_USE = {"moecfg.sources", "moecfg.sources.documents", "moecfg.sources.files", "moecfg.sources.yaml_source",
                "moecfg.sources.launch", "moecfg.sources.budget", "moecfg.sources.contained", "moecfg.frameworks",
                "moecfg.frameworks.hints"}


def test_core_reaches_readers_and_frameworks_only_through_registries():
    edges = graph()
    wrong = {(m, t) for m, targets in edges.items() if m.startswith("moecfg.core")
             for t in targets if t.startswith(("moecfg.sources", "moecfg.frameworks")) and t not in CORE_MAY_USE}
    assert wrong == set()
