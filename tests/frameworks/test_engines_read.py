"""Engines read but not derived (TensorRT-LLM, FastDeploy) and SGLang forks (ktransformers' sglang-kt, whose wheel's
flag table is flag_tables/sglang-kt.json): launches read without false notices."""
from __future__ import annotations

import pytest

from tests.frameworks.gpu_helpers import codes, derive, lint


def test_trtllm_serve_read_not_derived():
    der = derive("trtllm-serve deepseek-ai/DeepSeek-R1 --tp_size 16 --ep_size 8 --extra_llm_api_options x.yaml\n")
    (call,) = der.calls
    assert der.framework == "trtllm" and call.kind == "none" and call.quiet
    assert call.arguments == {"tp": 16, "ep": 8} and "--ep_size 8" in call.derivation["ep"]
    assert "TensorRT-LLM" in call.why_none and codes(lint("trtllm-serve serve m --tp_size 16 --ep_size 8\n")) == []


def test_fastdeploy_read_not_derived():
    der = derive("python -m fastdeploy.entrypoints.openai.api_server --model baidu/ERNIE-4.5-300B-A47B-Paddle "
                 "--tensor-parallel-size 8 --data-parallel-size 2 --enable-expert-parallel --splitwise-role decode\n")
    (call,) = der.calls
    assert call.arguments == {"tp": 8, "dp": 2, "expert_parallel": True, "splitwise_role": "decode"}
    assert der.framework == "fastdeploy" and call.kind == "none"


def test_sglang_fork_flags_are_not_unknown():
    text = ("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --kt-method AMXINT4 "
            "--kt-cpuinfer 64 --kt-num-gpu-experts 32{}\n")
    assert "MC022" not in codes(lint(text.format("")))
    assert "MC022" in codes(lint(text.format(" --bogus-flag 1")))  # a word no fork defines stays unknown


def test_sglang_without_fork_flags_reads_upstream_only():
    assert "MC022" in codes(lint("python -m sglang.launch_server --model-path m --tp-size 8 --kt-methd X\n"))


@pytest.mark.parametrize("text, code", [
    ("python -m lightllm.server.api_server --model_dir /m/DeepSeek-R1 --tp 0 --dp 8 --enable_ep_moe", "MC025"),
    ("python -m lightllm.server.api_server --model_dir /m/DeepSeek-R1 --tp abc --enable_ep_moe", "MC023"),
    ("TP_SIZE=0 python3 -m rtp_llm.start_server --checkpoint_path /m/DeepSeek-V3 --use_deepep_moe 1", "MC025"),
    ("python3 -m rtp_llm.start_server --checkpoint_path /m/DeepSeek-V3 --use_deepep_moe maybe --dp_size 8", "MC023"),
    ("python3 -m rtp_llm.start_server --checkpoint_path /m/DeepSeek-V3 --use_deepep_moe 1 --dp_size 8 "
     "--concurrency_limit 99999999999999999999999", "MC023"),
])
def test_bad_values_are_said_and_nothing_is_derived(text, code):
    der = derive(text + "\n")
    assert code in [n.code for n in der.notes] and not [c for c in der.calls if c.kind == "deepep"]


# ---- published launches (fixtures/engines/, each citing its source on its first line) ----

def _check(name: str, settings: str = ""):
    import json
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    src = Path(__file__).parent / "fixtures" / "engines" / name
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / name).write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
        if settings:
            (Path(tmp) / ".moecfg.yaml").write_text(settings, encoding="utf-8")
        run = subprocess.run([sys.executable, "-m", "moecfg", "check", "--markdown", "--format", "json", name],
                             cwd=tmp, capture_output=True, text=True, check=False)
    return json.loads(run.stdout)["results"]


def test_lightllm_pd_decode_with_moe_mode_runs_without_ep():
    results = _check("lightllm_pd_decode.sh")
    (d,) = [d for r in results for d in r["diagnostics"] if d["code"] == "MC753"]
    assert d["severity"] == "warning" and d["line"] == 5 and "--enable_ep_moe" in d["message"]
    assert all(r["op"] not in ("v2", "low_latency", "auto") for r in results)


def test_lightllm_single_node_ep_builds_both_buffers_within_limits():
    results = _check("lightllm_single_node_ep.sh")
    assert sorted(r["op"] for r in results) == ["low_latency", "v2"]
    assert not [d for r in results for d in r["diagnostics"] if d["severity"] in ("error", "warning")]


def test_rtp_llm_guide_untagged_fences_read_and_the_decode_command_ends_at_its_comment():
    results = _check("rtp_llm_deepseek_deploy.md", "models:\n  XXXX: deepseek-v3\n")
    ops = {r["launch"]["line"]: r["op"] for r in results}
    assert ops[18] == "normal"  # the prefill fence: --use_deepep_internode 1 --use_deepep_low_latency 0
    decode = [d for r in results for d in r["diagnostics"] if d["code"] == "MC023" and "WORLD_SIZE" in d["message"]]
    assert len(decode) == 1  # `--cache_store_rdma_mode 1 \ # delete` ends the decode command before its switches
    assert not [d for r in results for d in r["diagnostics"] if d["severity"] == "error"]
