"""Count the expert-parallel trainer launch files of a tree and how many `moecfg check --format json` read.

A file is an EP trainer launch when it holds a trainer command (slime `train.py` with `--rollout-`/`--sglang-` flags,
verl `verl.trainer.main_*` / a recipe's `main_*`, ms-swift `megatron sft|pt|rlhf`) and an expert-parallel size that
is not written as 1 (`expert_model_parallel_size`, `--expert-model-parallel-size`, `expert_parallel_size`,
`--sglang-ep-size`, `--ep-size`). Read: moecfg has a result for it from that trainer; derived: a result of kind deepep.

Usage: python tools/count_trainer_launches.py TREE REPORT.json
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

TRAINERS = {
    "slime": re.compile(r"(?=[\s\S]*--(?:sglang|rollout)-[a-z])[\s\S]*\bpython[0-9.]*\s+\S*train(?:_async)?\.py\b"),
    "verl": re.compile(r"-m\s+(?:verl\.trainer\.main_\w+|recipe\.\w+\.main_\w+)"),
    "ms-swift": re.compile(r"(?m)^\s*(?:[A-Z_]+=\S*\s*\\?\s*)*megatron\s+(?:sft|pt|rlhf)\b"),
}
EP = re.compile(r"(?:expert[-_]model[-_]parallel[-_]size|(?<![\w-])expert_parallel_size|--sglang-ep-size|"
                r"(?<![\w-])--ep-size)[=\s]+[\"']?([^\s\"'\\]+)")


def ep_files(tree: Path) -> dict[str, str]:
    out = {}
    for path in sorted(tree.rglob("*.sh")):
        text = path.read_text(encoding="utf-8", errors="replace")
        trainer = next((n for n, p in TRAINERS.items() if p.search(text)), None)
        if trainer and any(m.group(1) != "1" for m in EP.finditer(text)):
            out["./" + str(path.relative_to(tree))] = trainer
    return out


def main(tree: str, report: str) -> None:
    files = ep_files(Path(tree))
    results = json.load(open(report, encoding="utf-8"))["results"]
    read = {r["file"] for r in results if (r.get("launch") or {}).get("framework") in TRAINERS}
    derived = {r["file"] for r in results if (r.get("launch") or {}).get("framework") in TRAINERS
               and r.get("kind") == "deepep"}
    errors = [(r["file"], d["code"]) for r in results for d in r["diagnostics"] if d["severity"] == "error"]
    ep_read = [f for f in files if f in read]
    print(json.dumps({"ep_launch_files": len(files), "read": len(ep_read),
                      "with_deepep_buffer": len([f for f in files if f in derived]),
                      "trainer_files_read_total": len(read), "errors": errors,
                      "not_read": sorted(set(files) - read)}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
