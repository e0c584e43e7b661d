"""`moecfg check` and `moecfg explain-launch` on trainer launches: the phases, with the trainer's keys named."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from integration_helpers import run  # noqa: F401  (pytest fixture)

FIXTURES = Path(__file__).resolve().parents[1] / "trainers" / "fixtures"


def test_explain_launch_shows_both_phases_with_the_trainer_keys(run, tmp_path):
    tree = tmp_path / "slime"
    shutil.copytree(FIXTURES / "slime", tree)
    (tree / ".moecfg.yaml").write_text("models: {'*': deepseek-r1}\n")
    out = run("explain-launch", tree / "run-deepseek-r1.sh").stdout
    assert "slime 0.3.1 train): deepep normal" in out and "slime 0.3.1 rollout): deepep auto" in out
    assert "--tp-size [--rollout-num-gpus-per-engine] 64" in out
    assert "total                   552.4 MiB" in out  # 360.2 NVL + 160.2 RDMA + 32 workspace


def test_check_json_names_the_trainer_and_the_phase(run, tmp_path):
    tree = tmp_path / "verl"
    shutil.copytree(FIXTURES / "verl", tree)
    (tree / ".moecfg.yaml").write_text("models: {'*': qwen3-30b-a3b}\n")
    res = run("check", "--format", "json", tree)
    report = json.loads(res.stdout)
    script = [r for r in report["results"] if r["file"].endswith(".sh")]
    phases = sorted((r["launch"]["framework"], r["launch"]["role"], r["kind"] or "") for r in script)
    assert phases == [("verl", "rollout", ""), ("verl", "train", "deepep")]
    config = [r for r in report["results"] if r["file"].endswith(".yaml")]
    assert {r["launch"]["framework"] for r in config} == {"verl"}  # the config file beside it: a launch too
    assert res.exit_code == 0
