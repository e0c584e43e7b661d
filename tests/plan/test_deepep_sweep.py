"""sweep --kind deepep: JSON against direct formula calls, limit lines, chart, usage errors; buffer --model-config."""
from __future__ import annotations

import importlib.util
import json

import pytest
from click.testing import CliRunner

from moecfg.cli import cli
from moecfg.backends.deepep.ops.v1 import formulas as fx

LL = ("sweep", "--kind", "deepep", "--mode", "low_latency", "--model", "deepseek-v3")
NORMAL = ("sweep", "--kind", "deepep", "--mode", "normal", "--model", "deepseek-v3")
MB = 1 << 20


def invoke(*args):
    return CliRunner().invoke(cli, list(args))


def test_low_latency_json_equals_the_formula():
    out = invoke(*LL, "--num-ranks", "16", "--tokens", "1:512:7", "--format", "json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["kind"] == "deepep" and data["vs"] == "num_max_dispatch_tokens_per_rank"
    assert data["x"] == list(range(1, 513, 7)) and data["fixed"] == {"num_ranks": 16}
    [rdma] = data["series"]  # low-latency kernels use no NVL buffer
    assert rdma["domain"] == "rdma"
    for i, t in enumerate(data["x"]):
        assert rdma["required_bytes"][i] == fx.low_latency_rdma_size_hint(t, 7168, 16, 256)
        assert rdma["required_mb"][i] == -(-rdma["required_bytes"][i] // MB)
    # T = 1: 14909440 + 2048 = 14911488 = 116496 * 128 -> +128 = 14911616 (the "+128" rounding)
    assert rdma["required_bytes"][0] == 14911616


def test_normal_json_vs_num_ranks_equals_the_readme_sizing():
    out = invoke(*NORMAL, "--num-ranks", "8:160:8", "--num-sms", "20,24", "--format", "json")
    data = json.loads(out.output)
    assert data["vs"] == "num_ranks" and data["fixed"] == {}
    labels = [s["label"] for s in data["series"]]
    assert labels == ["nvl @ 20 SMs", "rdma @ 20 SMs", "nvl @ 24 SMs", "rdma @ 24 SMs"]
    for s in data["series"]:
        for r, got in zip(data["x"], s["required_bytes"]):
            d, c = fx.default_dispatch_config(r, s["num_sms"]), fx.default_combine_config(r, s["num_sms"])
            if d is None:
                assert got is None  # 40, 56, ...: no default config, DeepEP cannot size the buffers
                continue
            nvl, rdma = fx.normal_mode_buffer_bytes(fx.hidden_bytes(7168, 2), r, d, c)
            assert got == (nvl if s["domain"] == "nvl" else rdma)
    nvl20 = dict(zip(data["x"], data["series"][0]["required_bytes"]))
    rdma20 = dict(zip(data["x"], data["series"][1]["required_bytes"]))
    # gpu-rules.md section 4, vLLM's 20 SMs: R=144 NVL 944,191,744 / RDMA 779,734,144; R=128 NVL 734,372,864
    assert (nvl20[144], rdma20[144], nvl20[128]) == (944191744, 779734144, 734372864)
    assert rdma20[8] == 0  # one node: no RDMA buffer


def test_limit_lines_configured_device_and_deepep_ceiling():
    data = json.loads(invoke(*LL, "--num-ranks", "16", "--tokens", "8,16", "--num-rdma-bytes", "2GiB", "--device", "H800",
                             "--format", "json").output)
    limits = data["limits_bytes"]
    assert limits["configured num_rdma_bytes"] == 2 << 30
    [(name, dev)] = [(k, v) for k, v in limits.items() if k.startswith("device memory")]
    assert dev == 80 * (1 << 30) - 32 * MB and "H800" in name  # 80 GB HBM less DeepEP's 32 MiB workspace
    assert limits["DeepEP 32 GiB wall (B3)"] == 16 * (2**31 - 1) - 1
    assert data["limits_mb"]["configured num_rdma_bytes"] == 2048
    normal = json.loads(invoke(*NORMAL, "--num-ranks", "16", "--format", "json").output)
    assert normal["limits_bytes"] == {"INT_MAX (normal-mode RDMA, B2)": 2**31 - 1}


def test_device_memory_override_from_set():
    data = json.loads(invoke(*LL, "--num-ranks", "16", "--tokens", "8", "--set", "device_memory_gb=4",
                             "--format", "json").output)
    assert data["limits_bytes"]["device memory (4 GB (device_memory_gb)) - 32 MiB workspace"] == 4 * (1 << 30) - 32 * MB


def test_low_latency_vs_num_ranks_is_flat():
    # the LL hint takes num_ranks but does not use it (gpu-rules.md 1.6 quirk 1)
    data = json.loads(invoke(*LL, "--num-ranks", "8:64:8", "--tokens", "128", "--format", "json").output)
    assert data["fixed"] == {"num_max_dispatch_tokens_per_rank": 128}
    assert set(data["series"][0]["required_bytes"]) == {1908410496}


def test_text_chart_draws_the_configured_line():
    out = invoke(*LL, "--num-ranks", "16", "--tokens", "1:512", "--num-rdma-bytes", "2GiB")
    assert out.exit_code == 0
    assert "required DeepEP buffer (MB) vs tokens/rank (num_ranks 16)" in out.output
    assert "| configured num_rdma_bytes = 2048 MB" in out.output
    assert "DeepEP 32 GiB wall (B3) = 32767 MB (off the scale)" in out.output
    assert [line for line in out.output.splitlines() if "|" in line and "█" in line]


def test_zero_byte_buffer_draws_no_bar():
    out = invoke(*NORMAL, "--num-ranks", "8")
    rdma_row = [line for line in out.output.splitlines() if line.rstrip().endswith(" 0")]
    assert rdma_row and not any(g in rdma_row[0] for g in "█▓")


@pytest.mark.parametrize("args, message", [
    (LL + ("--num-ranks", "8:16", "--tokens", "1:8"), "one axis"),
    (LL + ("--num-ranks", "16",), "give --tokens"),
    (LL + ("--num-ranks", "16", "--tokens", "8", "--num-sms", "24"), "only normal-mode"),
    (NORMAL + ("--num-ranks", "16", "--tokens", "8"), "only low_latency"),
    (NORMAL + ("--num-ranks", "16", "--rulesets", "9.0"), "--rulesets is an option of --kind ascend"),
    (("sweep", "--product", "A3", "--model", "deepseek-v3", "--ep", "32", "--bs", "8", "--num-sms", "24"),
     "--num-sms is an option of --kind deepep"),
])
def test_usage_errors(args, message):
    out = invoke(*args)
    assert out.exit_code == 2 and message in out.output, out.output


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is not None, reason="matplotlib installed")
def test_plot_without_matplotlib_is_a_clear_usage_error(tmp_path):
    out = invoke(*LL, "--num-ranks", "16", "--tokens", "1:8", "--plot", str(tmp_path / "x.svg"))
    assert out.exit_code == 2 and "pip install 'moecfg[plot]'" in out.output


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib not installed")
def test_plot_writes_svg(tmp_path):
    path = tmp_path / "x.svg"
    assert invoke(*NORMAL, "--num-ranks", "8:64:8", "--num-nvl-bytes", "1GiB", "--plot", str(path)).exit_code == 0
    text = path.read_text()
    assert text.lstrip().startswith("<?xml") and "num_ranks" in text


# --- buffer --model-config / --model for deepep ------------------------------------------------------------------

def _config_json(tmp_path) -> str:
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 7168, "n_routed_experts": 256,
                                                      "num_experts_per_tok": 8, "n_shared_experts": 1}))
    return str(tmp_path)


def test_buffer_model_config_fills_a_deepep_document(tmp_path):
    out = invoke("buffer", "--kind", "deepep", "--mode", "low_latency", "--num-ranks", "16",
                 "--num-max-dispatch-tokens-per-rank", "128", "--model-config", _config_json(tmp_path), "--format", "json")
    assert out.exit_code == 0, out.output
    [res] = json.loads(out.output)["results"]
    assert res["buffers"]["rdma"]["required_bytes"] == 1908410496 and res["derived"]["local_experts"] == 16


def test_buffer_model_config_keys_in_the_file_win(tmp_path):
    # the example writes num_experts 256 itself; --set num_experts=128 beats both: 8 local experts
    out = invoke("buffer", "examples/deepep-deepseek-v3-ll-decode-128.yaml", "--model-config", _config_json(tmp_path),
                 "--set", "num_experts=128", "--format", "json")
    [res] = json.loads(out.output)["results"]
    assert res["derived"]["local_experts"] == 8


def test_buffer_model_config_for_ascend_too(tmp_path):
    out = invoke("buffer", "--product", "A3", "--cann", "9.0.1", "--bs", "96", "--ep-world-size", "32",
                 "--model-config", _config_json(tmp_path), "--format", "json")
    [res] = json.loads(out.output)["results"]
    assert res["buffers"]["ep"]["required_bytes"] == 751828992  # as tests/plan/test_plan_presets.py (h 7168, k 8, 256)


def test_buffer_model_flag_and_redundant_experts_for_deepep():
    # 256 + 32 experts: 4*288*128*14560 + 2*1152 = 2146961664 -> "+128" -> 2146961792
    out = invoke("buffer", "--kind", "deepep", "--mode", "low_latency", "--num-ranks", "16",
                 "--num-max-dispatch-tokens-per-rank", "128", "--model", "deepseek-v3", "--redundant-experts", "32",
                 "--format", "json")
    [res] = json.loads(out.output)["results"]
    assert res["buffers"]["rdma"]["required_bytes"] == 2146961792


def test_buffer_model_config_unreadable_is_a_usage_error(tmp_path):
    out = invoke("buffer", "--kind", "deepep", "--model-config", str(tmp_path / "missing.json"))
    assert out.exit_code == 2 and "cannot read" in out.output
