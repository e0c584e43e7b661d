"""Generate moecfg/trainers/megatron_bridge/recipes.json: what each Megatron-Bridge recipe function sets on the model.

Reads a local mirror of github:NVIDIA-NeMo/Megatron-Bridge (no network, no import of its code): every module under
src/megatron/bridge/recipes/ and src/megatron/bridge/perf_recipes/ is parsed with `ast`; for each module-level function
named `*_config` it records, in the order Python runs them:
- `cfg.model = AutoBridge.from_hf_pretrained("<hf id>")...` -> the Hugging Face model the recipe builds;
- `cfg = <other>_config(...)` -> the recipe it starts from (its settings first);
- `cfg.model.<field> = <literal>` -> the field and its value (a statement under if / for / with / try: value unknown);
- a call `helper(cfg, ...)` to a function of the same module or one it imports by name -> that helper's statements;
- `apply_flex_dispatcher_backend(cfg.model, <backend>)` -> the flex dispatcher Megatron-Bridge turns on at that point
  (src/megatron/bridge/training/flex_dispatcher_backend.py: on a GPU that takes the backend).
`from x import a as b` re-exports are kept as aliases. Each value keeps its file:line.

Usage: python tools/gen_bridge_recipes.py /work/.mirror/NVIDIA-NeMo+Megatron-Bridge/repo > \
    moecfg/trainers/megatron_bridge/recipes.json
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys

ROOTS = ("src/megatron/bridge/recipes/", "src/megatron/bridge/perf_recipes/")
# the model fields moecfg reads (the rest of a recipe is not kept)
FIELDS = ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size",
          "expert_model_parallel_size", "expert_tensor_parallel_size", "sequence_parallel", "num_moe_experts",
          "moe_router_topk", "hidden_size", "moe_token_dispatcher_type", "moe_flex_dispatcher_backend",
          "moe_enable_deepep", "moe_hybridep_num_sms", "moe_deepep_num_sms")
_COND = (ast.If, ast.For, ast.While, ast.With, ast.Try)


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True, text=True).stdout


def literal(node):
    """(True, value) for a literal the table can hold, else (False, None)."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None
    return (True, value) if value is None or isinstance(value, (bool, int, float, str)) else (False, None)


def model_field(target) -> str | None:
    """`cfg.model.<field>` -> field."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Attribute) and \
            target.value.attr == "model" and isinstance(target.value.value, ast.Name):
        return target.attr
    return None


def callee(node) -> str | None:
    f = node.func if isinstance(node, ast.Call) else None
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def strings(body) -> dict[str, str]:
    """`NAME = "text"` statements of a body (module constants, a function's locals)."""
    out = {}
    for node in body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update({t.id: node.value.value for t in targets if isinstance(t, ast.Name)})
    return out


def defaults(fn: ast.FunctionDef) -> dict[str, str]:
    """A function's parameters with a string default (`hf_path: str = "Qwen/Qwen3-30B-A3B"`)."""
    args = fn.args.args[len(fn.args.args) - len(fn.args.defaults):]
    out = {a.arg: d.value for a, d in zip(args, fn.args.defaults) if isinstance(d, ast.Constant) and
           isinstance(d.value, str)}
    out.update({a.arg: d.value for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if
                isinstance(d, ast.Constant) and isinstance(d.value, str)})
    return out


def hf_model(value, names: dict[str, str]):
    """The first argument of from_hf_pretrained: its text, or {"ref": NAME} for a name defined elsewhere."""
    for c in ast.walk(value):
        if callee(c) == "from_hf_pretrained" and c.args:
            a = c.args[0]
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                return a.value
            if isinstance(a, ast.Name):
                return names.get(a.id, {"ref": a.id})
    return None


def steps(body, path: str, cond: bool = False, names: dict | None = None):
    """The statements a function runs, flattened: (kind, data, line, conditional)."""
    names = names or {}
    for node in body:
        if isinstance(node, _COND):
            for part in ("body", "orelse", "finalbody"):
                yield from steps(getattr(node, part, []) or [], path, True, names)
            for handler in getattr(node, "handlers", []) or []:
                yield from steps(handler.body, path, True, names)
            continue
        line = node.lineno
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            field = model_field(target)
            if field in FIELDS:
                ok, v = literal(value)
                yield ("set", [field, v if ok and not cond else None, ok and not cond], line, cond)
            elif isinstance(target, ast.Attribute) and target.attr == "model":
                yield ("model", hf_model(value, names), line, cond)
            elif isinstance(target, ast.Name) and isinstance(value, ast.Call) and callee(value):
                yield ("base", callee(value), line, cond)
        for call in (c for c in ast.walk(node) if isinstance(c, ast.Call)) if isinstance(node, ast.Expr) else ():
            name = callee(call)
            if name == "apply_flex_dispatcher_backend" and len(call.args) >= 2:
                ok, v = literal(call.args[1])
                arg = v if ok else "field" if model_field(call.args[1]) == "moe_flex_dispatcher_backend" else None
                yield ("flex", arg, line, cond)
            elif name and call.args and isinstance(call.args[0], ast.Name) and call.args[0].id == "cfg":
                yield ("call", name, line, cond)


def const(modules: dict, path: str, name: str, depth: int) -> str | None:
    m = modules.get(path)
    if m is None or depth > 8:
        return None
    if name in m["consts"]:
        return m["consts"][name]
    target = m["imports"].get(name)
    return const(modules, target[0], target[1], depth + 1) if target else None


def module_path(module: str, files: set[str]) -> str | None:
    """`megatron.bridge.recipes.x.y` -> src/megatron/bridge/recipes/x/y.py (or its package __init__.py)."""
    base = "src/" + module.replace(".", "/")
    return next((p for p in (base + ".py", base + "/__init__.py") if p in files), None)


def main(repo: str) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    files = {p for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
             if p.startswith(ROOTS) and p.endswith(".py")}
    modules = {}
    for path in sorted(files):
        tree = ast.parse(git(repo, "show", f"HEAD:{path}"))
        defs, imports, consts = {}, {}, strings(tree.body)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                names = {**consts, **defaults(node), **strings(node.body)}
                kept = [list(s) for s in steps(node.body, path, names=names)]
                if kept or node.name.endswith("_config"):
                    defs[node.name] = {"line": node.lineno, "steps": kept}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                target = module_path(node.module, files)
                for a in node.names:
                    if target:
                        imports[a.asname or a.name] = [target, a.name]
        if defs or imports or consts:
            modules[path] = {"defs": defs, "imports": imports, "consts": consts}
    for path, m in modules.items():  # `from_hf_pretrained(MODEL_ID)` with MODEL_ID imported from another module
        for d in m["defs"].values():
            for step in d["steps"]:
                if step[0] == "model" and isinstance(step[1], dict):
                    step[1] = const(modules, path, step[1]["ref"], 0)
    for m in modules.values():
        del m["consts"]
    kept = {(p, n) for p, m in modules.items() for n in m["defs"]}
    for m in modules.values():  # an import of nothing kept (a helper that sets no field moecfg reads) is dropped
        m["imports"] = {a: t for a, t in m["imports"].items() if tuple(t) in kept or t[0] in modules and
                        t[1] in modules[t[0]]["imports"]}
    json.dump({"source": f"NVIDIA-NeMo/Megatron-Bridge@{head[:7]}", "commit": head, "modules": modules},
              sys.stdout, indent=None, separators=(",", ":"), sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
