"""`moecfg check` on RLinf, rLLM and LLaMA-Factory launches (fixtures: tests/trainers/fixtures/{rlinf,rllm,
llamafactory}, each citing its source): every file read, RLinf's own refusal an error at its key with exit 1."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from integration_helpers import run  # noqa: F401  (pytest fixture)

FIXTURES = Path(__file__).resolve().parents[1] / "trainers" / "fixtures"


def _check(run, tree: Path):
    res = run("check", "--format", "json", tree)
    return res, json.loads(res.stdout)


def test_the_three_trainers_are_read(run, tmp_path):
    for name in ("rlinf", "rllm", "llamafactory"):
        shutil.copytree(FIXTURES / name, tmp_path / name)
    (tmp_path / ".moecfg.yaml").write_text("models: {'*': qwen3-30b-a3b}\n")
    res, report = _check(run, tmp_path)
    states = {Path(f["file"]).name: f["state"] for f in report["files"]}
    assert {states[n] for n in ("qwen3-30b-grpo-megatron.yaml", "moonlight-16b-grpo-mbridge-sgl.yaml",
                                "train_agentcore_migrationbench_verl.sh", "qwen3_moe_full.yaml",
                                "train_full_qwen3_moe_fsdpturbo_ep_fsdp.yaml")} == {"read"}
    frameworks = {r["launch"]["framework"] for r in report["results"] if r.get("launch")}
    assert {"rlinf", "rllm", "llamafactory"} <= frameworks
    assert res.exit_code == 0


def test_rlinf_expert_tp_refusal_is_an_error_at_its_key(run, tmp_path):
    text = (FIXTURES / "rlinf" / "qwen3-30b-grpo-megatron.yaml").read_text()
    bad = text.replace("expert_tensor_parallel_size: 1", "expert_tensor_parallel_size: 8")
    (tmp_path / "x.yaml").write_text(bad)
    res, report = _check(run, tmp_path)
    errors = [d for r in report["results"] for d in r.get("diagnostics", []) if d["severity"] == "error"]
    assert [d["code"] for d in errors] == ["MC729"]
    line = next(i for i, t in enumerate(bad.splitlines(), 1) if "expert_tensor_parallel_size: 8" in t)
    assert errors[0]["line"] == line and res.exit_code == 1
