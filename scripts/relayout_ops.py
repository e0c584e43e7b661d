"""One op, one folder (issue 19 part 1): `git mv` every backend module to its op folder or its backend's shared
package, then rewrite every reference (imports, module-name strings, file paths) in moecfg/, tests/,
benchmarks/, docs/ and README.md.

    python scripts/relayout_ops.py          # run once from the repository root, on a clean tree

The moves are whole files (git follows them as renames); only import lines and names change. A
`from package import a, b` whose submodules land in different packages is split into one line per package,
keeping the local names (`import ... as old`). Refuses to run when a source is already gone.

This is step one (commit 4351337, run on the tree before it). Step two was done by hand in the commits after
it: the modules that held several ops (ascend fields.py, catalog_ops.py, fused_fields.py, fused_formulas.py,
formulas.py; the mega_moe catalog with dispatch_ffn_combine's; deepep fields.py; the v2 / v1 analysis inside
the kinds) were split into the op folders, and ops/__init__.py became each backend's one registry.
benchmarks/layout_parity.py showed every command's output unchanged after each step.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

A, D, T = "moecfg/backends/ascend", "moecfg/backends/deepep", "moecfg/backends/tutel"

MOVES = {
    # ---- Ascend: what several ops share (dispatch/combine v2 model, limits, rule-set resolution, v2 families)
    f"{A}/products.py": f"{A}/shared/products.py",
    f"{A}/formulas.py": f"{A}/shared/formulas.py",
    f"{A}/model.py": f"{A}/shared/model.py",
    f"{A}/catalog.py": f"{A}/shared/catalog.py",
    f"{A}/rulesets.py": f"{A}/shared/rulesets.py",
    f"{A}/fused_formulas.py": f"{A}/shared/fused_formulas.py",
    f"{A}/fused_fields.py": f"{A}/shared/fused_fields.py",
    f"{A}/catalog_ops.py": f"{A}/shared/catalog_ops.py",
    f"{A}/rules/__init__.py": f"{A}/shared/rules/__init__.py",
    **{f"{A}/rules/{m}.py": f"{A}/shared/rules/{m}.py"
       for m in ("attrs", "experts", "comm_alg", "inputs", "buffers", "examples_base")},
    # ---- Ascend: one folder per op
    f"{A}/ops/combine_add_rms_norm.py": f"{A}/ops/combine_add_rms_norm/analysis.py",
    f"{A}/rules/add_rms_norm.py": f"{A}/ops/combine_add_rms_norm/rules.py",
    f"{A}/ops/dispatch_combine_v1.py": f"{A}/ops/dispatch_combine_v1/analysis.py",
    f"{A}/rules/v1.py": f"{A}/ops/dispatch_combine_v1/rules.py",
    f"{A}/ops/ffn_worker_batching.py": f"{A}/ops/ffn_worker_batching/analysis.py",
    f"{A}/rules/ffn.py": f"{A}/ops/ffn_worker_batching/rules.py",
    f"{A}/ops/mega_moe.py": f"{A}/ops/mega_moe/analysis.py",
    f"{A}/rules/mega_moe.py": f"{A}/ops/mega_moe/rules.py",
    f"{A}/mega_moe_model.py": f"{A}/ops/mega_moe/model.py",
    f"{A}/mega_moe_catalog.py": f"{A}/ops/mega_moe/catalog.py",
    f"{A}/ops/dispatch_ffn_combine.py": f"{A}/ops/dispatch_ffn_combine/analysis.py",
    f"{A}/rules/dispatch_ffn_combine.py": f"{A}/ops/dispatch_ffn_combine/rules.py",
    f"{A}/ops/sgl_deepep.py": f"{A}/ops/sgl_deepep/analysis.py",
    f"{A}/ops/sgl_deepep_normal.py": f"{A}/ops/sgl_deepep/normal.py",
    f"{A}/ops/sgl_deepep_low_latency.py": f"{A}/ops/sgl_deepep/low_latency.py",
    f"{A}/rules/sgl_deepep.py": f"{A}/ops/sgl_deepep/rules.py",
    f"{A}/sgl_fields.py": f"{A}/ops/sgl_deepep/fields.py",
    f"{A}/sgl_formulas.py": f"{A}/ops/sgl_deepep/formulas.py",
    # ---- DeepEP: rule helpers and the family V1 and V2 share; one folder per `api:`
    f"{D}/rules/__init__.py": f"{D}/shared/rules/__init__.py",
    f"{D}/rules/usage.py": f"{D}/shared/rules/usage.py",
    f"{D}/formulas.py": f"{D}/ops/v1/formulas.py",
    f"{D}/model.py": f"{D}/ops/v1/model.py",
    f"{D}/config_forms.py": f"{D}/ops/v1/config_forms.py",
    **{f"{D}/rules/{m}.py": f"{D}/ops/v1/rules/{m}.py"
       for m in ("buffers", "configs", "cross", "experts", "hidden", "low_latency", "topology", "values",
                 "examples_base")},
    f"{D}/kind_v2.py": f"{D}/ops/v2/analysis.py",
    f"{D}/formulas_v2.py": f"{D}/ops/v2/formulas.py",
    f"{D}/rules/v2.py": f"{D}/ops/v2/rules.py",
    f"{D}/kind_hybridep.py": f"{D}/ops/hybridep/analysis.py",
    f"{D}/formulas_hybridep.py": f"{D}/ops/hybridep/formulas.py",
    f"{D}/rules/hybridep.py": f"{D}/ops/hybridep/rules.py",
    # ---- Tutel: one op (tutel.moe.moe_layer)
    **{f"{T}/{m}.py": f"{T}/ops/moe_layer/{m}.py" for m in ("fields", "formulas", "model", "rules", "examples_base")},
}

# New package markers: (path, docstring). An op folder's docstring names its pieces.
PACKAGES = {
    f"{A}/shared/__init__.py": "What several Ascend ops share: the dispatch/combine v2 model, formulas and limits "
                               "(v1, combine_add_rms_norm\nand the fused ops build on them), rule-set resolution, "
                               "and the v2 rule families (shared/rules/).",
    f"{D}/shared/__init__.py": "What several DeepEP APIs share: rule helpers and the wasted-memory family "
                               "(shared/rules/).",
    f"{D}/ops/__init__.py": "The DeepEP APIs, one folder per `api:` value (v1 Buffer with its normal / "
                            "low-latency / auto modes,\nv2 ElasticBuffer, hybridep HybridEPBuffer).",
    f"{D}/ops/v1/rules/__init__.py": "DeepEP V1 (`Buffer`) rule families; the helpers they use are in "
                                     "deepep/shared/rules.",
    f"{T}/ops/__init__.py": "The Tutel ops: one, the MoE layer (tutel.moe.moe_layer).",
}
OP_DOCS = {
    f"{A}/ops/combine_add_rms_norm": "`op: combine_add_rms_norm` (dispatch v2 + npu_moe_distribute_combine_add_rms_norm)",
    f"{A}/ops/dispatch_combine_v1": "`op: dispatch_combine_v1` (npu_moe_distribute_dispatch / combine)",
    f"{A}/ops/ffn_worker_batching": "`op: ffn_worker_batching` (FfnWorkerBatching, attention/FFN disaggregation)",
    f"{A}/ops/mega_moe": "`op: mega_moe` (CANN MegaMoE)",
    f"{A}/ops/dispatch_ffn_combine": "`op: dispatch_ffn_combine` (vllm-ascend's fused op)",
    f"{A}/ops/sgl_deepep": "`op: sgl_deepep_normal` / `op: sgl_deepep_low_latency` (sgl-kernel-npu deep_ep.Buffer)",
    f"{D}/ops/v1": "`api: v1` (DeepEP Buffer: modes normal, low_latency, auto)",
    f"{D}/ops/v2": "`api: v2` (DeepEP ElasticBuffer)",
    f"{D}/ops/hybridep": "`api: hybridep` (HybridEPBuffer)",
    f"{T}/ops/moe_layer": "Tutel's MoE layer (`kind: tutel`)",
}
GONE_PACKAGES = (f"{A}/rules", f"{D}/rules")
REWRITE_GLOBS = ("moecfg/**/*.py", "tests/**/*.py", "benchmarks/**/*.py", "docs/**/*.md", "README.md", "scripts/*.py")


def module(path: str) -> str:
    mod = path[:-3].replace("/", ".")
    return mod[: -len(".__init__")] if mod.endswith(".__init__") else mod


MODULES = {module(old): module(new) for old, new in MOVES.items()}
PATHS = {old.removeprefix("moecfg/"): new.removeprefix("moecfg/") for old, new in MOVES.items()}
_DOTTED = re.compile(r"\bmoecfg(?:\.\w+)+")
_PATH = re.compile(r"\b(?:moecfg/)?backends/[\w/]+\.py\b")
_DONE = "\x00moecfg\x00"  # marks a name already rewritten
_FROM = re.compile(r"^(?P<indent>[ \t]*)from (?P<pkg>moecfg(?:\.\w+)+) import (?P<names>\([^)]*\)|[^\n]*)", re.M)


def new_module(dotted: str) -> str:
    """`dotted` with its longest moved prefix renamed (module names, and attributes of modules)."""
    parts = dotted.split(".")
    for i in range(len(parts), 1, -1):
        prefix = ".".join(parts[:i])
        if prefix in MODULES:
            return ".".join([MODULES[prefix], *parts[i:]])
    return dotted


def _names(text: str) -> tuple[list[tuple[str, str]], str]:
    """The (name, alias) pairs of an import list, and its trailing comment."""
    comment = ""
    if not text.startswith("(") and "#" in text:
        text, comment = text.split("#", 1)
        comment = "  #" + comment
    text = re.sub(r"#[^\n]*", "", text.strip("()"))
    pairs = []
    for item in (i.strip() for i in text.replace("\n", " ").split(",")):
        if item:
            name, _, alias = item.partition(" as ")
            pairs.append((name.strip(), alias.strip() or name.strip()))
    return pairs, comment


def _from_import(m: re.Match) -> str:
    """Rewrite one `from pkg import ...`: submodules that moved go to their new package."""
    indent, pkg = m["indent"], m["pkg"]
    pairs, comment = _names(m["names"])
    if not any(f"{pkg}.{name}" in MODULES for name, _ in pairs):
        return m.group(0).replace(pkg, new_module(pkg), 1).replace("moecfg.", _DONE)
    groups: dict[str, list[str]] = {}
    for name, alias in pairs:
        target = MODULES.get(f"{pkg}.{name}")
        if target is None:  # a name defined in pkg itself
            parent, leaf = new_module(pkg), name
        else:
            parent, _, leaf = target.rpartition(".")
        groups.setdefault(parent, []).append(leaf if leaf == alias else f"{leaf} as {alias}")
    lines = [f"{indent}from {parent} import {', '.join(items)}" for parent, items in groups.items()]
    return ("\n".join(lines) + comment).replace("moecfg.", _DONE)


def rewrite(text: str) -> str:
    """Every reference in `text` renamed once (an old op module is also its new package's name)."""
    text = _FROM.sub(_from_import, text)
    text = _DOTTED.sub(lambda m: new_module(m.group(0)).replace("moecfg.", _DONE), text)
    text = _PATH.sub(lambda m: _new_path(m.group(0)), text)
    return text.replace(_DONE, "moecfg.")


def _new_path(path: str) -> str:
    prefix = "moecfg/" if path.startswith("moecfg/") else ""
    return prefix + PATHS.get(path.removeprefix("moecfg/"), path.removeprefix("moecfg/"))


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True)


def main() -> int:
    missing = [old for old in MOVES if not Path(old).exists()]
    if missing:
        print(f"already moved (or missing): {missing[:3]}...", file=sys.stderr)
        return 2
    for old, new in MOVES.items():
        Path(new).parent.mkdir(parents=True, exist_ok=True)
        _git("mv", old, new)
    for path, doc in PACKAGES.items():
        Path(path).write_text(f'"""{doc}"""\n')
    for folder, what in OP_DOCS.items():
        init = Path(folder) / "__init__.py"
        if not init.exists():
            pieces = ", ".join(sorted(p.name for p in Path(folder).glob("*.py")))
            init.write_text(f'"""{what}: everything of this op is in this folder ({pieces})."""\n')
    for gone in GONE_PACKAGES:
        if Path(gone).exists() and not any(Path(gone).glob("*.py")):
            for left in Path(gone).rglob("*"):
                if left.is_file():
                    left.unlink()
            for left in sorted(Path(gone).rglob("*"), reverse=True):
                left.rmdir()
            Path(gone).rmdir()
    changed = 0
    files = sorted({p for g in REWRITE_GLOBS for p in Path(".").glob(g)} - {Path(__file__).resolve().relative_to(Path.cwd())})
    for path in files:
        text = path.read_text()
        new = rewrite(text)
        if new != text:
            path.write_text(new)
            changed += 1
    _git("add", "-A", "moecfg", "tests", "benchmarks", "docs", "README.md")
    print(f"moved {len(MOVES)} modules, added {len(PACKAGES) + len(OP_DOCS)} package markers, "
          f"rewrote {changed} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
