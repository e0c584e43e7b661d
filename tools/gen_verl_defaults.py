"""Generate moecfg/trainers/verl/defaults.json: the defaults of the verl keys moecfg reads, per config name.

Reads a local mirror of github:volcengine/verl (no network): verl/trainer/config/_generated_ppo_trainer.yaml and
_generated_ppo_megatron_trainer.yaml (verl's own flattened Hydra configs, the defaults `main_ppo` starts from for
--config-name ppo_trainer / ppo_megatron_trainer) at the given ref. Each key keeps its value as verl's YAML holds it
(an interpolation such as `${oc.select:actor_rollout_ref.actor.megatron.tensor_model_parallel_size,1}` stays text:
moecfg resolves the `oc.select` form only) and the line it is on.

Every release that ships the generated configs (v0.5.0 on) is read, each under its version.

Usage: python tools/gen_verl_defaults.py /work/.mirror/volcengine+verl/repo > moecfg/trainers/verl/defaults.json
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import yaml

CONFIGS = {"ppo_trainer": "verl/trainer/config/_generated_ppo_trainer.yaml",
           "ppo_megatron_trainer": "verl/trainer/config/_generated_ppo_megatron_trainer.yaml"}
# the keys moecfg reads (a prefix ending in "." takes every key under it)
KEYS = ("actor_rollout_ref.actor.strategy", "actor_rollout_ref.actor.megatron.",
        "actor_rollout_ref.ref.strategy", "actor_rollout_ref.ref.megatron.",
        "actor_rollout_ref.rollout.name", "actor_rollout_ref.rollout.tensor_model_parallel_size",
        "actor_rollout_ref.rollout.data_parallel_size", "actor_rollout_ref.rollout.expert_parallel_size",
        "actor_rollout_ref.rollout.pipeline_model_parallel_size", "actor_rollout_ref.rollout.engine_kwargs.",
        "actor_rollout_ref.model.path", "trainer.nnodes", "trainer.n_gpus_per_node", "trainer.device")
_LINE = re.compile(r"^(\s*)([A-Za-z_][\w]*):(?:\s+(.*))?$")


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def keyed_lines(text: str) -> dict[str, tuple[object, int]]:
    """dotted key -> (scalar value, line) for every `key: scalar` line (indentation gives the nesting)."""
    stack: list[tuple[int, str]] = []
    out = {}
    for number, line in enumerate(text.splitlines(), 1):
        m = _LINE.match(line)
        if not m or line.lstrip().startswith("-"):
            continue
        indent, name, value = len(m.group(1)), m.group(2), m.group(3)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = ".".join([s[1] for s in stack] + [name])
        stack.append((indent, name))
        if value is not None and value.strip() and not value.strip().startswith("#"):
            out[path] = (yaml.safe_load(value), number)
    return out


def wanted(path: str) -> bool:
    return any(path == k or (k.endswith(".") and path.startswith(k)) for k in KEYS)


def release(repo: str, ref: str) -> dict:
    commit = git(repo, "rev-parse", f"{ref}^{{commit}}").strip()
    configs = {}
    for name, path in CONFIGS.items():
        lines = keyed_lines(git(repo, "show", f"{commit}:{path}"))
        configs[name] = {"file": path, "keys": {k: {"value": v, "line": n}
                                                for k, (v, n) in sorted(lines.items()) if wanted(k)}}
    return {"source": f"volcengine/verl@{commit[:7]}", "configs": configs}


def main(repo: str) -> None:
    tags = [t for t in git(repo, "tag", "--sort=creatordate").split() if re.match(r"^v\d+\.\d+\.\d+$", t)]
    out = {"releases": {}}
    for tag in tags:
        if CONFIGS["ppo_trainer"] in git(repo, "ls-tree", "-r", "--name-only", tag, "verl/trainer/config"):
            out["releases"][tag[1:]] = release(repo, tag)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
