#!/usr/bin/env python3
"""Generate the flag tables of the DeepEP serving engines (LightLLM, rtp-llm, FastDeploy) from their own argparse code.

For each release the script reads the engine's argument files (never imports them) and takes every
`*.add_argument(...)` call: option strings, kind (flag for store_true / store_false, list for nargs + / *, else
value) and default (a literal, else null). Sources:

- LightLLM: `lightllm/server/api_cli.py` at the repository's release tags (ModelTC/LightLLM; the package registry's
  `lightllm` 0.0.1 of 2024-08 is an unrelated early upload without the server):
      python tools/gen_engine_flags.py lightllm --git /work/.mirror/ModelTC+LightLLM/repo --tags v1.1.0 v1.2.0
- rtp-llm: `rtp_llm/server/server_args/*_args.py` at a commit of alibaba/rtp-llm (not on the package registry):
      python tools/gen_engine_flags.py rtp-llm --git /work/.mirror/alibaba+rtp-llm/repo \\
          --tags v0.2.0 4b8d39cd5=main-2026-08
- FastDeploy: `fastdeploy/engine/args_utils.py` of a source tree given as a folder (`--dirs PATH=RELEASE`; the
  package is published on PaddlePaddle's own index, not on the registry this project uses).

Writes moecfg/frameworks/<engine>/flags.json: {"releases": [...], "sources": {...}, "rows": [[names, kind, default,
"0-1"], ...]}; the last field lists the releases (indexes) whose parser has the row. Nothing is downloaded here, at
run time or in tests.
"""
from __future__ import annotations

import argparse
import ast
import glob
import json
import os
import subprocess

ROOT = os.path.join(os.path.dirname(__file__), "..", "moecfg", "frameworks")
ENGINES = {  # engine -> (package folder, repository, argument files (globs))
    "lightllm": ("lightllm", "ModelTC/LightLLM", ("lightllm/server/api_cli.py",)),
    "rtp-llm": ("rtp_llm", "alibaba/rtp-llm", ("rtp_llm/server/server_args/*_args.py",)),
    "fastdeploy": ("fastdeploy", "PaddlePaddle/FastDeploy", ("fastdeploy/engine/args_utils.py",)),
}


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def from_git(repo: str, ref: str, patterns) -> tuple[dict, str]:
    commit = _git(repo, "rev-parse", f"{ref}^{{commit}}").strip()
    names = _git(repo, "ls-tree", "-r", "--name-only", commit).splitlines()
    files = [n for n in names if any(_glob_match(n, p) for p in patterns)]
    return {f: _git(repo, "show", f"{commit}:{f}") for f in files}, commit


def from_dir(path: str, patterns) -> dict:
    out = {}
    for p in patterns:
        for f in sorted(glob.glob(os.path.join(path, p))):
            with open(f, encoding="utf-8") as fh:
                out[os.path.relpath(f, path)] = fh.read()
    return out


def _glob_match(name: str, pattern: str) -> bool:
    import fnmatch

    return fnmatch.fnmatch(name, pattern) and name.count("/") == pattern.count("/")


def _literal(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _row(call: ast.Call) -> tuple:
    names = tuple(a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    action = _literal(kw["action"]) if "action" in kw else None
    nargs = _literal(kw["nargs"]) if "nargs" in kw else None
    kind = "flag" if action in ("store_true", "store_false") else "list" if nargs in ("+", "*") else "value"
    default = _literal(kw["default"]) if "default" in kw else (action == "store_false" if kind == "flag" else None)
    if isinstance(default, (tuple, set)):
        default = list(default)
    return names, kind, default


def _calls(texts: dict):
    for text in texts.values():
        for c in ast.walk(ast.parse(text)):
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "add_argument":
                yield c


def rows_of(texts: dict) -> list[tuple]:
    return [row for row in map(_row, _calls(texts)) if row[0] and row[0][0].startswith("-")]


def env_names(texts: dict) -> dict[str, str]:
    """rtp-llm's EnvArgumentParser: every option is also read from a variable, `env_name=` upper-cased or else the
    first `--` option upper-cased with `-` as `_` (rtp_llm/server/server_args/server_args.py
    _register_env_mapping)."""
    out = {}
    for c in _calls(texts):
        names = [a.value for a in c.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        long = [n for n in names if n.startswith("--")]
        if not long:
            continue
        kw = {k.arg: _literal(k.value) for k in c.keywords if k.arg == "env_name"}
        env = kw.get("env_name") or long[0][2:]
        out[long[0]] = str(env).upper().replace("-", "_")
    return out


def _ranges(indexes: list[int]) -> str:
    out, start = [], None
    for i, n in enumerate(indexes):
        if start is None:
            start = n
        if i + 1 == len(indexes) or indexes[i + 1] != n + 1:
            out.append(f"{start}-{n}" if n != start else str(n))
            start = None
    return ",".join(out)


def table(releases: list[tuple[str, dict, str]], env: bool = False) -> dict:
    where: dict[str, list[int]] = {}
    for i, (_, texts, _) in enumerate(releases):
        for names, kind, default in rows_of(texts):
            key = json.dumps([list(names), kind, default], default=str)
            where.setdefault(key, [])
            if i not in where[key]:
                where[key].append(i)
    rows = [json.loads(k) + [_ranges(v)] for k, v in sorted(where.items())]
    out = {"releases": [r[0] for r in releases], "sources": {r[0]: r[2] for r in releases}, "rows": rows}
    if env:
        out["env"] = {}
        for _, texts, _ in releases:  # the newest release's name wins
            out["env"].update(env_names(texts))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine", choices=sorted(ENGINES))
    ap.add_argument("--git", help="a clone (or git dir) of the engine's repository")
    ap.add_argument("--tags", nargs="*", default=[], help="tags or commits, `ref` or `ref=RELEASE`")
    ap.add_argument("--dirs", nargs="*", default=[], help="source trees, `PATH=RELEASE=SOURCE-TEXT`")
    args = ap.parse_args()
    folder, repo, patterns = ENGINES[args.engine]
    releases = []
    for ref in args.tags:
        ref, _, name = ref.partition("=")
        texts, commit = from_git(args.git, ref, patterns)
        releases.append((name or ref.lstrip("v"), texts, f"{repo}@{commit[:9]} ({ref})"))
    for spec in args.dirs:
        path, name, source = (spec.split("=", 2) + ["", ""])[:3]
        releases.append((name, from_dir(path, patterns), source or path))
    with open(os.path.join(ROOT, folder, "flags.json"), "w", encoding="utf-8") as fh:
        json.dump(table(releases, env=args.engine == "rtp-llm"), fh, indent=0, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
