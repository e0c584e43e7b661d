"""`moecfg buffer` and `moecfg check` for the GPU kinds, through the command line."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from moecfg.cli import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DSV3 = ["--mode", "normal", "--num-ranks", "16", "--hidden", "7168", "--num-experts", "256", "--num-topk", "8",
        "--num-sms", "24"]


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_buffer_kind_deepep_flags_show_formula_terms():
    res = run("buffer", "--kind", "deepep", *DSV3)
    assert res.exit_code == 0, res.output
    assert "[nvl]" in res.output and "[rdma]" in res.output
    assert "hidden_bytes = 14336" in res.output and "nvl_hint(dispatch) = 453208704" in res.output
    assert "= 105.2 MiB (110265216 B)" in res.output  # RDMA hint, hand-computed in test_deepep_buffers.py


def test_buffer_set_too_small_buffer_reports_but_exits_0():
    res = run("buffer", "--kind", "deepep", *DSV3, "--set", "num_nvl_bytes=453208576")
    assert res.exit_code == 0, res.output  # buffer sufficiency is the answer, not an invalid input
    assert "MC650 error" in res.output and "short by 128 bytes" in res.output and "shortfall_bytes = 128" in res.output


def test_buffer_invalid_input_exits_1():
    res = run("buffer", "--kind", "deepep", *DSV3, "--set", "num_ranks=12")
    assert res.exit_code == 1 and "MC602" in res.output


def test_buffer_json_low_latency():
    res = run("buffer", "--kind", "deepep", "--mode", "low_latency", "--num-ranks", "16", "--hidden", "7168",
              "--num-experts", "256", "--num-topk", "8", "--num-max-dispatch-tokens-per-rank", "128", "--format", "json")
    assert res.exit_code == 0, res.output
    rdma = json.loads(res.output)["results"][0]["buffers"]["rdma"]
    assert rdma["required_bytes"] == 1_908_410_496


def test_buffer_file_with_set_override():
    res = run("buffer", str(EXAMPLES / "deepep-deepseek-v3-4x8-h800-normal.yaml"), "--set", "num_ranks=16",
              "--set", "num_experts=256", "--format", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["results"][0]["buffers"]["nvl"]["required_bytes"] == 453_208_704


def test_buffer_tutel_shows_communication_and_recommended_degree():
    res = run("buffer", "--kind", "tutel", "--world-size", "16", "--num-global-experts", "4", "--tokens-per-device",
              "400", "--model-dim", "2048", "--hidden-size-per-expert", "8192", "--capacity-factor", "1.15")
    assert res.exit_code == 0, res.output
    assert "capacity = 228" in res.output and "recommended adaptive_degree = 4" in res.output
    assert "r=2 (DP+MP+EP): 63449088 B" in res.output


def test_gpu_examples_check_clean():
    paths = sorted(str(p) for p in EXAMPLES.glob("deepep-*.yaml")) + sorted(str(p) for p in EXAMPLES.glob("tutel-*.yaml"))
    assert len(paths) >= 4
    res = run("check", "--fail-on", "info", *paths)
    assert res.exit_code == 0, res.output
