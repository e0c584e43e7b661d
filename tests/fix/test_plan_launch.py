"""`moecfg plan FILE` answers in the launch's own knobs (issue 37): each answer, written into the file's text, passes
`moecfg check`, and the value just past it fails."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from moecfg.cli.group import cli

FIXTURES = Path(__file__).parent / "fixtures"


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def tree(tmp_path) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "t")
    return tmp_path / "t"


def codes_after(path: Path, old: str, new: str) -> set[str]:
    """The codes `moecfg check` reports once `old` is replaced by `new` in the file (once, exactly)."""
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    try:
        got = json.loads(invoke("check", "--format", "json", str(path)).stdout)
    finally:
        path.write_text(text)
    return {d["code"] for r in got["results"] for d in r["diagnostics"]}


def test_plan_serve_sh_in_its_own_flags(tree):
    got = invoke("plan", str(tree / "serve.sh"))
    assert got.exit_code == 1  # as written the launch fails MC501
    # bs 16 per rank (--max-num-seqs 16 x (1 + 3 MTP) = 64 tokens / TP 4) needs 125304832 B = 119.5 MiB -> 120 MB;
    # 100 MB holds 13 per rank: --max-num-seqs 13 x 4 / 4 = 13
    assert "smallest buffer for this batch: HCCL_BUFFSIZE=120  (set: 100; 119 fails)" in got.stdout
    assert "largest --max-num-seqs for this buffer: --max-num-seqs 13  (set: 16; 14 fails)" in got.stdout
    assert "device memory left at HCCL_BUFFSIZE=120: " in got.stdout
    serve = tree / "serve.sh"
    assert "MC501" not in codes_after(serve, "HCCL_BUFFSIZE=100", "HCCL_BUFFSIZE=120")
    assert "MC501" in codes_after(serve, "HCCL_BUFFSIZE=100", "HCCL_BUFFSIZE=119")
    assert "MC501" not in codes_after(serve, "--max-num-seqs 16", "--max-num-seqs 13")
    assert "MC501" in codes_after(serve, "--max-num-seqs 16", "--max-num-seqs 14")


def test_plan_sglang_each_batch_flag_against_the_cap(tree):
    data = json.loads(invoke("plan", "--format", "json", str(tree / "sglang-decode.sh")).stdout)
    [launch] = data["launches"]
    # as `moecfg check` judges it: MC975 is an error, MC976 a warning (both sized below)
    assert launch["failing"] == ["MC975"] and launch["unsized"] == []
    assert launch["buffer"] | {} == {"knob": "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "set": "64",
                                     "answer": 128, "past": 127}
    # T 64 over 2 draft tokens: 32 graph requests; 32 requests per DP rank x dp 16 = 512 .. 527 (SGLang floors)
    assert [(b["knob"], b["answer"], b["past"]) for b in launch["batches"]] == [
        ("--cuda-graph-max-bs", 32, 33), ("--max-running-requests", 527, 528)]
    assert launch["headroom_bytes"] > 0
    sgl = tree / "sglang-decode.sh"
    assert {"MC975", "MC976"} & codes_after(sgl, "--cuda-graph-max-bs 64", "--cuda-graph-max-bs 32") == {"MC976"}
    assert "MC975" in codes_after(sgl, "--cuda-graph-max-bs 64", "--cuda-graph-max-bs 33")
    # SGLang 0.5.4 does not clamp the graph batch to the request pool: MC975 stays, from --cuda-graph-max-bs
    assert "MC976" not in codes_after(sgl, "--max-running-requests 1024", "--max-running-requests 527")
    assert "MC976" in codes_after(sgl, "--max-running-requests 1024", "--max-running-requests 528")


def test_plan_manifest_and_emit(tree):
    got = invoke("plan", str(tree / "decode-k8s.yaml"))
    assert "HCCL_BUFFSIZE=120" in got.stdout and "--max-num-seqs 13" in got.stdout
    emit = invoke("plan", "--emit", "launch", str(tree / "serve.sh"))
    assert "export HCCL_BUFFSIZE=120\n# or keep HCCL_BUFFSIZE=100 and set --max-num-seqs 13\n" in emit.stdout


def test_plan_file_after_fix_passes(tree):
    assert invoke("check", "--fix", str(tree / "serve.sh")).exit_code == 0
    got = invoke("plan", str(tree / "serve.sh"))
    assert got.exit_code == 0 and "as written: passes" in got.stdout
    assert "HCCL_BUFFSIZE=120  (set: 120; 119 fails)" in got.stdout


@pytest.mark.parametrize("args, said", [
    (["--ep", "16"], "--ep does not apply with FILE"),
    (["--emit", "yaml"], "--emit yaml is for --ep plans"),
])
def test_plan_file_usage_errors(tree, args, said):
    got = invoke("plan", *args, str(tree / "serve.sh"))
    assert got.exit_code == 2 and said in got.output


def test_plan_missing_file_and_emit_launch_without_file(tree):
    assert invoke("plan", str(tree / "missing.sh")).exit_code == 2
    got = invoke("plan", "--emit", "launch", "--ep", "16", "--bs", "16", "--product", "A3", "--model", "deepseek-v3")
    assert got.exit_code == 2 and "--emit launch needs a FILE" in got.output


def test_plan_lmdeploy_in_its_own_flag(tmp_path):
    (tmp_path / ".moecfg.yaml").write_text("product: A3\ncann_version: 9.0.1\n")
    path = tmp_path / "a.sh"
    path.write_text("export HCCL_BUFFSIZE=100\nlmdeploy serve api_server deepseek-ai/DeepSeek-V3 --backend pytorch "
                    "--device ascend --tp 1 --dp 16 --ep 16 --max-batch-size 256\n")
    got = invoke("plan", str(path))
    # 256 tokens per rank, EP 16, 16 experts per rank, k 8: 2 x (256 x 14848 x 16 x 16 + 256 x 14336 x 8) B = 1912 MB
    assert "HCCL_BUFFSIZE=1912  (set: 100; 1911 fails)" in got.stdout
    assert "--max-batch-size 13  (set: 256; 14 fails)" in got.stdout
    assert "MC501" not in codes_after(path, "HCCL_BUFFSIZE=100", "HCCL_BUFFSIZE=1912")
    assert "MC501" in codes_after(path, "--max-batch-size 256", "--max-batch-size 14")
    assert "MC501" not in codes_after(path, "--max-batch-size 256", "--max-batch-size 13")


def test_a_batch_the_buffer_does_not_limit_says_any():
    # examples/launch: HCCL_BUFFSIZE 1024 holds the most tokens per rank --max-num-batched-tokens 4096 and the
    # 512-token graph cap leave (512 / TP 4 = 128 per rank: 956 MB)
    got = invoke("plan", "--format", "json", str(FIXTURES.parents[2] / "examples/launch/vllm-ascend-dsr1-a3-dp4tp4.sh"))
    [launch] = json.loads(got.stdout)["launches"]
    [batch] = launch["batches"]
    assert batch["unlimited"] and batch["answer"] is None and launch["ok"] and got.exit_code == 0


def test_plan_a_folder_is_a_usage_error(tree):
    got = invoke("plan", str(tree))
    assert got.exit_code == 2 and "plan reads one launch file, not a folder" in got.output


def test_plan_a_moecfg_document_in_its_own_keys(tree):
    got = invoke("plan", str(tree / "op.yaml"))
    # per token 2 x (14848 x EP 16 x 16 experts per rank + 14336 x k 8) = 7831552 B: bs 64 -> 501219328 B = 478 MB;
    # 400 MB holds 53 (415064064 B = 395.8 MiB), not 54 (422903808 B = 403.3 MiB)
    assert got.exit_code == 1
    assert "smallest buffer for this batch: env.HCCL_BUFFSIZE: 478  (set: 400; 477 fails)" in got.stdout
    assert "largest bs for this buffer: bs: 53  (set: 64; 54 fails)" in got.stdout
    op = tree / "op.yaml"
    assert "MC501" not in codes_after(op, "bs: &batch 64", "bs: &batch 53")
    assert "MC501" in codes_after(op, "bs: &batch 64", "bs: &batch 54")
    emit = invoke("plan", "--emit", "launch", str(op)).stdout
    assert "env:\n  HCCL_BUFFSIZE: 478\n# or keep env.HCCL_BUFFSIZE: 400 and set bs: 53\n" in emit
