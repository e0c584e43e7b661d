"""benchmarks/wild.py sums `moecfg check .` per folder (run on a folder of fixtures, nothing fetched)."""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

from wildkit import FIXTURES

ROOT = Path(__file__).resolve().parents[2]


def wild():
    spec = importlib.util.spec_from_file_location("wild_benchmark", ROOT / "benchmarks" / "wild.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_measure_counts_files_launches_and_codes(tmp_path):
    for name in ("va-dp-template-ep.sh", "va-dp-template-ep-copy.sh", "lws-certificate-template.yaml"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    f = wild().measure(str(tmp_path), [sys.executable, "-m", "moecfg"])
    assert (f["exit"], f["files"], f["launches"], f["ops"]) == (0, 3, 2, 0)
    # the product question and the version assumed once for the run (the second launch keeps no note, still
    # counted); the template of a certificate says nothing
    assert (f["error"], f["warning"], f["info"]) == ({}, {"MC042": 1}, {"MC040": 1})


def test_compare_table_lists_exit_and_errors():
    before = [{"repo": "r", "exit": 1, "error": {"MC020": 3}, "warning": {}}]
    after = [{"repo": "r", "exit": 0, "error": {}, "warning": {"MC042": 1}}]
    assert wild().compare(before, after).splitlines()[-1] == "| r | 1 | 0 | 3 | 0 | 0 | 1 |"


# one launch per file unless said: an MC023-only launch (no op call), a launch with an op call, two launches in one
# script, and a YAML file whose two documents hold one launch each (the file's launches counted on: index 0, 1)
_TREE = {
    "unknown.sh": "torchrun ${DISTRIBUTED_ARGS} pretrain_gpt.py \\\n    --load $CHECKPOINT_PATH\n",
    "moe.sh": "HCCL_BUFFSIZE=400 torchrun --nproc_per_node 8 pretrain_gpt.py --hidden-size 7168 --seq-length 4096 "
              "--micro-batch-size 1 --num-experts 256 --moe-router-topk 8 --moe-token-dispatcher-type alltoall "
              "--expert-model-parallel-size 8\n",
    "two.sh": "torchrun $A pretrain_gpt.py --load $X\ntorchrun $B pretrain_gpt.py --load $Y\n",
    "two.yaml": "".join(f"---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: t{i}}}\nspec:\n  template:\n    spec:\n"
                        f"      containers:\n      - name: c\n        image: x\n        command: [torchrun, $(A{i}), "
                        f"pretrain_gpt.py, --load, $(X)]\n" for i in range(2)),
}


def test_launches_counted_exactly_also_without_an_op_call(tmp_path):
    for name, text in _TREE.items():
        (tmp_path / name).write_text(text)
    f = wild().measure(str(tmp_path), [sys.executable, "-m", "moecfg"])
    assert f["launches"] == 6  # 1 + 1 + 2 + 2


def test_ep_launch_files_by_grep_and_their_states(tmp_path):
    # an EP launch read, an EP flag in prose-free YAML that is no launch (skipped), a file without EP (not counted)
    (tmp_path / "serve.sh").write_text("vllm serve org/m --data-parallel-size 4 --enable-expert-parallel\n")
    (tmp_path / "values.yaml").write_text("engine:\n  ep_size: 8\n")
    (tmp_path / "plain.sh").write_text("echo deepep\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    f = wild().measure(str(tmp_path), [sys.executable, "-m", "moecfg"], ep=True)
    assert (f["ep_files"], f["ep_states"], f["ep_missed"]) == (2, {"read": 1, "skipped": 1}, ["values.yaml"])


def test_table_shows_before_and_after():
    before = [{"repo": "r", "files": 3, "launches": 1, "unread": 4, "ep_states": {"read": 1}, "error": {},
               "warning": {}}]
    after = [{"repo": "r", "files": 3, "launches": 2, "unread": 3, "ep_files": 2, "ep_states": {"read": 2},
              "error": {}, "warning": {"MC042": 1}}]
    assert wild().table(before, after).splitlines()[-1] == "| r | 3 | 1 -> 2 | 4 -> 3 | 2 | 1 -> 2 | 0 | 0 | 0 -> 1 |"
