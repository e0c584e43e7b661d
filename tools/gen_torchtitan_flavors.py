"""Generate moecfg/trainers/torchtitan/flavors.json: the MoE shapes of the torchtitan model flavors whose token dispatch
`--parallelism.expert_parallel_comm_backend deepep` switches to DeepEP (torchtitan 0.2.1 / 0.2.2: deepseek_v3 and
llama4, the two models whose parallelize reads the backend).

Reads a local mirror of github:pytorch/torchtitan (no network) at the given tag: the flavor dictionaries
(`deepseekv3_args` in torchtitan/models/deepseek_v3/__init__.py, `llama4_args` in torchtitan/models/llama4/__init__.py)
are parsed with `ast` (never imported nor run). Per flavor: `dim` (the hidden size DeepEP's buffer is sized with), the
router's `num_experts` and `top_k` (MoEArgs keywords, else MoEArgs' own defaults in torchtitan/models/moe/moe.py) and
the line of the flavor's entry.

Usage: python tools/gen_torchtitan_flavors.py /work/.mirror/pytorch+torchtitan/repo v0.2.2 \
           > moecfg/trainers/torchtitan/flavors.json
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys

MODELS = {"deepseek_v3": ("torchtitan/models/deepseek_v3/__init__.py", "deepseekv3_args"),
          "llama4": ("torchtitan/models/llama4/__init__.py", "llama4_args")}
MOE_ARGS = "torchtitan/models/moe/moe.py"


def git_show(repo: str, ref: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", repo if repo.endswith("repo") else repo + "/.git", "show",
                           f"{ref}:{path}"], check=True, capture_output=True, text=True).stdout


def moe_defaults(source: str) -> dict[str, int]:
    """MoEArgs' class defaults for num_experts and top_k."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == "MoEArgs":
            out = {}
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and \
                        item.target.id in ("num_experts", "top_k") and isinstance(item.value, ast.Constant):
                    out[item.target.id] = item.value.value
            return out
    raise SystemExit("MoEArgs not found")


def _keywords(call: ast.Call) -> dict[str, ast.expr]:
    return {k.arg: k.value for k in call.keywords if k.arg}


def flavors(source: str, table: str, defaults: dict[str, int]) -> dict[str, dict]:
    out = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == table for t in node.targets)):
            continue
        for key, value in zip(node.value.keys, node.value.values):
            if not (isinstance(key, ast.Constant) and isinstance(value, ast.Call)):
                continue
            kw = _keywords(value)
            moe = dict(defaults)
            if isinstance(kw.get("moe_args"), ast.Call):
                for name, expr in _keywords(kw["moe_args"]).items():
                    if name in moe and isinstance(expr, ast.Constant):
                        moe[name] = expr.value
            dim = kw.get("dim")
            if isinstance(dim, ast.Constant):
                out[key.value] = {"dim": dim.value, **moe, "line": key.lineno}
    return out


def main(repo: str, ref: str) -> dict:
    defaults = moe_defaults(git_show(repo, ref, MOE_ARGS))
    commit = subprocess.run(["git", "--git-dir", repo, "rev-parse", f"{ref}^{{commit}}"], check=True,
                            capture_output=True, text=True).stdout.strip()
    models = {name: {"file": path, "flavors": flavors(git_show(repo, ref, path), table, defaults)}
              for name, (path, table) in MODELS.items()}
    return {"source": f"pytorch/torchtitan@{commit[:7]} ({ref})", "moe_args_defaults": defaults, "models": models}


if __name__ == "__main__":
    json.dump(main(sys.argv[1], sys.argv[2]), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
