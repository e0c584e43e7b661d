#!/usr/bin/env python3
"""Generate moecfg's LMDeploy `serve api_server` flag table from LMDeploy's released CLI code.

For each release the script reads `lmdeploy/cli/serve.py` and `lmdeploy/cli/utils.py` (never imports them) and
walks `SubCliServe.add_parser_api_server`: every `*.add_argument(...)` it calls, and every
`ArgumentHelper.<name>(...)` it calls (that method's own `add_argument` calls, with its keyword defaults resolved,
e.g. `device(parser, default='cuda')`). Each argument becomes a row: option strings, kind, default.

    python tools/gen_lmdeploy_flags.py --git /work/.mirror/InternLM+lmdeploy/repo --tags v0.12.1 v0.16.0 \
        --wheels lmdeploy-0.17.0-...whl lmdeploy-0.18.0-...whl

Writes moecfg/frameworks/lmdeploy/flags.json: {"releases": [...], "sources": {...}, "rows": [[names, kind, default,
"0-4,7"], ...]}; the last field lists the releases (indexes) whose parser has the row. Kinds: flag (store_true),
value, list (nargs + / *). Nothing is downloaded here, at run time or in tests.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import zipfile

OUT = os.path.join(os.path.dirname(__file__), "..", "moecfg", "frameworks", "lmdeploy", "flags.json")
FILES = ("lmdeploy/cli/serve.py", "lmdeploy/cli/utils.py")


def from_git(repo: str, tag: str) -> tuple[dict, str]:
    commit = subprocess.run(["git", "-C", repo, "rev-parse", f"refs/tags/{tag}^{{commit}}"], capture_output=True,
                            text=True, check=True).stdout.strip()
    texts = {f: subprocess.run(["git", "-C", repo, "show", f"{commit}:{f}"], capture_output=True, text=True,
                               check=True).stdout for f in FILES}
    return texts, f"InternLM/lmdeploy@{commit[:7]} (tag {tag})"


def from_wheel(path: str) -> tuple[dict, str]:
    with zipfile.ZipFile(path) as z:
        texts = {f: z.read(f).decode("utf-8") for f in FILES}
    return texts, f"PyPI wheel {os.path.basename(path)}"


def _literal(node, env: dict):
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _row(call: ast.Call, env: dict) -> tuple:
    names = tuple(a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    action = _literal(kw["action"], env) if "action" in kw else None
    nargs = _literal(kw["nargs"], env) if "nargs" in kw else None
    kind = "flag" if action in ("store_true", "store_false") else "list" if nargs in ("+", "*") else "value"
    default = _literal(kw["default"], env) if "default" in kw else (False if kind == "flag" else None)
    return names, kind, default


def _helpers(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "ArgumentHelper":
            return {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}
    return {}


def _defaults(fn: ast.FunctionDef, call: ast.Call) -> dict:
    """The helper's parameters bound as the call binds them (keyword defaults, then the call's own keywords)."""
    params = fn.args.args
    env = {p.arg: _literal(d, {}) for p, d in zip(params[len(params) - len(fn.args.defaults):], fn.args.defaults)}
    for p, a in zip(params[1:], call.args[1:]):
        env[p.arg] = _literal(a, {})
    env.update({k.arg: _literal(k.value, {}) for k in call.keywords if k.arg})
    return env


def _add_argument_calls(node) -> list[ast.Call]:
    return [c for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and c.func.attr == "add_argument"]


def api_server_rows(texts: dict) -> list[tuple]:
    helpers = _helpers(ast.parse(texts["lmdeploy/cli/utils.py"]))
    serve = ast.parse(texts["lmdeploy/cli/serve.py"])
    entry = next(f for f in ast.walk(serve) if isinstance(f, ast.FunctionDef) and f.name == "add_parser_api_server")
    rows = [_row(c, {}) for c in _add_argument_calls(entry)]
    for call in (c for c in ast.walk(entry) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)):
        owner = call.func.value
        if isinstance(owner, ast.Name) and owner.id == "ArgumentHelper" and call.func.attr in helpers:
            fn = helpers[call.func.attr]
            rows += [_row(c, _defaults(fn, call)) for c in _add_argument_calls(fn)]
    return [r for r in rows if r[0]]


def _ranges(indexes: list[int]) -> str:
    out, start = [], None
    for i, n in enumerate(indexes):
        if start is None:
            start = n
        if i + 1 == len(indexes) or indexes[i + 1] != n + 1:
            out.append(f"{start}-{n}" if n != start else str(n))
            start = None
    return ",".join(out)


def table(releases: list[tuple[str, dict, str]]) -> dict:
    where: dict[str, list[int]] = {}
    for i, (_, texts, _) in enumerate(releases):
        for names, kind, default in api_server_rows(texts):
            key = json.dumps([list(names), kind, default])
            where.setdefault(key, [])
            if i not in where[key]:
                where[key].append(i)
    rows = [json.loads(k) + [_ranges(v)] for k, v in sorted(where.items())]
    return {"releases": [r[0] for r in releases], "sources": {r[0]: r[2] for r in releases}, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git", help="a clone of InternLM/lmdeploy")
    ap.add_argument("--tags", nargs="*", default=[])
    ap.add_argument("--wheels", nargs="*", default=[], help="released wheels, e.g. lmdeploy-0.18.0-*.whl")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    releases = []
    for tag in args.tags:
        texts, src = from_git(args.git, tag)
        releases.append((tag.lstrip("v"), texts, src))
    for wheel in args.wheels:
        texts, src = from_wheel(wheel)
        releases.append((os.path.basename(wheel).split("-")[1], texts, src))
    releases.sort(key=lambda r: tuple(int(x) for x in r[0].split(".")))
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(table(releases), fh, indent=0, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
