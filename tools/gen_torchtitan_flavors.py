"""Generate moecfg/trainers/torchtitan/flavors.json: the MoE shapes of the torchtitan model flavors whose token dispatch
`--parallelism.expert_parallel_comm_backend deepep` switches to DeepEP (torchtitan 0.2.1 / 0.2.2: deepseek_v3 and
llama4, the two models whose parallelize reads the backend).

Reads a local mirror of github:pytorch/torchtitan (no network) at the given tag: the flavor dictionaries
(`deepseekv3_args` in torchtitan/models/deepseek_v3/__init__.py, `llama4_args` in torchtitan/models/llama4/__init__.py)
are parsed with `ast` (never imported nor run). Per flavor: `dim` (the hidden size DeepEP's buffer is sized with), the
router's `num_experts` and `top_k` (MoEArgs keywords, else MoEArgs' own defaults in torchtitan/models/moe/moe.py) and
the line of the flavor's entry.

The main form (`--module M --config F`, a later ref): `main_modules` lists the modules with a config_registry.py under
torchtitan/models, torchtitan/experiments and torchtitan/experiments/rl/examples (the packages torchtitan's
ConfigManager imports `--module` from, torchtitan/config/manager.py) and whether any of their .py files names MoE at
all (`moe` or `token_dispatcher`, any case) or imports a torchtitan.models package that may: a module that does neither
builds no MoE layer, so no expert all-to-all.

Usage: python tools/gen_torchtitan_flavors.py /work/.mirror/pytorch+torchtitan/repo v0.2.2 b5bcd76 \
           > moecfg/trainers/torchtitan/flavors.json
"""
from __future__ import annotations

import ast
import json
import re
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


# where ConfigManager imports `--module` from (torchtitan/config/manager.py), longest first
PACKAGES = ("torchtitan/experiments/rl/examples/", "torchtitan/experiments/", "torchtitan/models/")


def modules(repo: str, ref: str) -> dict[str, bool]:
    """module name -> whether it may build MoE layers: its package names MoE, or imports a torchtitan.models package
    (other than `common`) that may (see the module docstring)."""
    def run(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", repo, *args], check=False, capture_output=True, text=True).stdout

    packages = {f.rsplit("/", 1)[1] for f in run("ls-tree", "--name-only", "-d", ref, "torchtitan/models/").split()}
    names, uses = {}, {}
    for path in run("ls-tree", "-r", "--name-only", ref, "torchtitan/").split():
        folder = path.rsplit("/", 1)[0]
        package = next((p for p in PACKAGES if folder.startswith(p)), None)
        if not path.endswith("/config_registry.py") or package is None:
            continue
        name = folder[len(package):].replace("/", ".")
        names[name] = bool(run("grep", "-l", "-i", "-e", "moe", "-e", "token_dispatcher", ref, "--",
                               f"{folder}/*.py").strip())
        imported = set(re.findall(r"torchtitan\.models\.(\w+)", run("grep", "-h", "-e", "torchtitan.models.", ref,
                                                                      "--", f"{folder}/*.py")))
        uses[name] = (imported & packages) - {"common", name}
    for _ in names:  # an imported model package that may build MoE makes the importer one too
        for name, imported in uses.items():
            names[name] = names[name] or any(names.get(m, True) for m in imported)
    return names


def main(repo: str, ref: str, main_ref: str) -> dict:
    defaults = moe_defaults(git_show(repo, ref, MOE_ARGS))
    commit = subprocess.run(["git", "--git-dir", repo, "rev-parse", f"{ref}^{{commit}}"], check=True,
                            capture_output=True, text=True).stdout.strip()
    models = {name: {"file": path, "flavors": flavors(git_show(repo, ref, path), table, defaults)}
              for name, (path, table) in MODELS.items()}
    main_commit = subprocess.run(["git", "--git-dir", repo, "rev-parse", f"{main_ref}^{{commit}}"], check=True,
                                 capture_output=True, text=True).stdout.strip()
    return {"source": f"pytorch/torchtitan@{commit[:7]} ({ref})", "moe_args_defaults": defaults, "models": models,
            "main_modules": {"source": f"pytorch/torchtitan@{main_commit[:7]}", "moe": modules(repo, main_ref)}}


if __name__ == "__main__":
    json.dump(main(sys.argv[1], sys.argv[2], sys.argv[3]), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
