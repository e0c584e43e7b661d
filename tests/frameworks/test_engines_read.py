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
