"""Issue 20 items 1, 2, 7: every value a launch can hold (size flags, environment, JSON flags, shell arithmetic)
is read by one typed layer (frameworks/values.py) into a value or a diagnostic: generated launches of the five
frameworks never raise, never take seconds, and their diagnostics carry no raw control character."""
from __future__ import annotations

import json
import re
import time
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from launches import ASCEND, launch_script, settings_for

from moecfg.backends import Options
from moecfg.core.diagnostics import Report
from moecfg.checking.engine import lint_text
from moecfg.frameworks import values
from moecfg.render import load

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)


def lint(text: str, name: str = "a.sh", framework: str = "vllm-ascend"):
    """No guard: an exception fails the test."""
    ascend = framework in ASCEND
    return lint_text(text, name, Options(product="A3" if ascend else None), settings_for(framework))


def codes(results) -> list[str]:
    return sorted(d.code for r in results for d in r.diagnostics)


@FAST
@given(launch_script())
def test_generated_launches_never_raise(generated):
    framework, text = generated
    start = time.process_time()
    results = lint(text, "a\n::error::x\x1b.sh", framework)  # a hostile file name too
    assert time.process_time() - start < 5, (framework, text[:300])
    assert "MC019" not in codes(results)
    assert all(len(d.message) <= 2000 for r in results for d in r.diagnostics)
    assert_safe_outputs(Report(results=results, files=1))


def assert_safe_outputs(report) -> None:
    """Every output format (and explain-launch): no raw control character, no line a CI runner would execute."""
    from moecfg.render import launch_view

    for fmt in ("text", "github", "junit", "json", "sarif"):
        out = load(fmt).render(report)
        if fmt == "junit":
            ET.fromstring(out.split("\n", 1)[1])
        if fmt in ("json", "sarif"):
            json.loads(out)
        for line in out.splitlines():
            assert not CONTROL.search(line), (fmt, line[:200])
            if fmt == "github":
                assert re.match(r"::(error|warning|notice) ", line) or not line.lstrip().startswith("::"), line[:200]
            else:
                assert not line.lstrip().startswith("::"), (fmt, line[:200])
    for line in launch_view.render(report).splitlines():
        assert not CONTROL.search(line) and not line.lstrip().startswith("::"), line[:200]


VA = "export HCCL_BUFFSIZE={buf}\nvllm serve /models/DeepSeek-R1-W8A8 --quantization ascend --data-parallel-size 4 " \
     "--tensor-parallel-size {tp} --enable-expert-parallel --max-num-seqs {seqs} {extra}\n"
SG = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp {tp} --dp 16 --enable-dp-attention " \
     "--moe-a2a-backend deepep --deepep-mode low_latency {extra}\n"
MG = "torchrun pretrain_gpt.py --hidden-size 7168 --num-experts 256 --moe-router-topk {k} --seq-length 4096 " \
     "--moe-token-dispatcher-type flex --expert-model-parallel-size {ep}\n"
VG = "vllm serve deepseek-ai/DeepSeek-V3 --data-parallel-size {dp} --tensor-parallel-size 1 --enable-expert-parallel " \
     "--all2all-backend deepep_low_latency {extra}\n"
LWS = """apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {{name: x}}
spec:
  leaderWorkerTemplate:
    size: {size}
    workerTemplate:
      spec:
        containers:
          - name: vllm
            image: quay.io/ascend/vllm-ascend:v0.13.0
            command: ["vllm", "serve", "/models/DeepSeek-R1-W8A8", "--quantization", "ascend", "-dp", "4", "-tp", "4",
                      "--enable-expert-parallel"]
"""


def va(buf="1024", tp="4", seqs="16", extra=""):
    return VA.format(buf=buf, tp=tp, seqs=seqs, extra=extra)


@pytest.mark.parametrize("text, code", [
    (va(tp="0"), "MC025"), (va(tp="-2"), "MC025"), (SG.format(tp="0", extra=""), "MC025"),
    (SG.format(tp="0", extra="").replace("--tp ", "--tp-size "), "MC025"), (MG.format(k="8", ep="0"), "MC025"),
    (MG.format(k="0", ep="8"), "MC025"), (VG.format(dp="0", extra=""), "MC025"),
    # vLLM's default all2all backend derives no DeepEP buffer, yet vLLM still refuses TP 0 at start-up
    ("vllm serve m --tensor-parallel-size 0 --enable-expert-parallel\n", "MC025"),
])
def test_the_frameworks_refusals_are_errors_naming_the_flag(text, code):
    gpu = "--device npu" not in text and "ascend" not in text
    d = next(d for r in lint(text, framework="vllm" if gpu else "vllm-ascend") for d in r.diagnostics if d.code == code)
    assert d.severity == "error" and "refuses a value below 1" in d.message and "`--" in d.message


@pytest.mark.parametrize("text", [
    va(tp="10000000000000000000"), VG.format(dp="10000000000000000000", extra=""), va(seqs="1" * 20),
    va(seqs="1" * 5000), va(buf="1" * 5000), va(seqs="1e400"), va(seqs="nan"),
    VG.format(dp="8", extra="--gpu-memory-utilization nan"), VG.format(dp="8", extra="--gpu-memory-utilization 1e400"),
    VG.format(dp="8", extra="--gpu-memory-utilization inf"), SG.format(tp="16", extra="--mem-fraction-static nan"),
    va(extra="--speculative-config '{\"num_speculative_tokens\": 9999999999999999}'"),
    va(extra="--speculative-config '{\"num_speculative_tokens\": " + "9" * 5000 + "}'"),
    va(extra="--speculative-config '{\"num_speculative_tokens\": 1e400, \"method\": []}'"),
    va(extra="--kv-transfer-config '{\"kv_role\": []}'"), VG.format(dp="8", extra="--kv-transfer-config '{\"kv_role\": []}'"),
    SG.format(tp="16", extra="--deepep-config '{\"normal_dispatch\": {\"num_sms\": \"x\"}}'"),
    SG.format(tp="16", extra="--deepep-config '" + '{"a":' * 50000 + "1" + "}" * 50000 + "'"),
    va(extra="--additional-config '" + '{"a":' * 50000 + "1" + "}" * 50000 + "'"),
    "A=(1 2 3)\nexport HCCL_BUFFSIZE=${A[²]}\n" + va(), "A=(1 2)\nexport HCCL_BUFFSIZE=${A[" + "1" * 5000 + "]}\n" + va(),
    "export HCCL_BUFFSIZE=$((1 << 10))\n" + va(), "export HCCL_BUFFSIZE=$((2 ** 100000000))\n" + va(),
    "export HCCL_BUFFSIZE=$((1 << 100000000))\n" + va(), "export HCCL_BUFFSIZE=$((" + "1" * 5000 + " * 2))\n" + va(),
    va(seqs="$'1\\x002'"), MG.format(k="1" * 20, ep="8"), MG.format(k="$TOPK", ep="8"), MG.format(k="8", ep="$EP"),
    "export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=" + "9" * 5000 + "\n" + SG.format(tp="16", extra=""),
], ids=lambda t: t[:60])
def test_values_the_issue_found_crashing_are_read_or_unknown(text):
    for context in ("vllm-ascend", "vllm"):  # Ascend settings (product A3), GPU settings (device H100)
        assert "MC019" not in codes(lint(text, framework=context))


def test_lws_size_zero_and_huge():
    for size in ("0", "1" * 20, "1" * 5000):
        assert "MC019" not in codes(lint(LWS.format(size=size), "lws.yaml"))


def test_an_unreadable_integer_is_unknown_not_a_default():
    # SGLang reads SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK with int(): 5,000 digits is no cap moecfg assumes
    text = "export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=" + "9" * 5000 + "\n" + SG.format(tp="16", extra="")
    found = codes(lint(text))
    assert "MC023" in found and not any(c.startswith("MC6") or c.startswith("MC8") for c in found)
    d = next(d for r in lint(text) for d in r.diagnostics if d.code == "MC023")
    assert "more than 19 digits" in d.message and len(d.message) < 400  # the value is clipped, not quoted whole


def test_api_check_launch_with_oversized_environment():
    from moecfg.api import check_launch

    for env in ({"HCCL_BUFFSIZE": "1" * 5000}, {"SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "9" * 5000}):
        for command in ("vllm serve /models/DeepSeek-R1-W8A8 --quantization ascend -tp 4 -dp 4 --enable-expert-parallel",
                        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --device npu "
                        "--moe-a2a-backend deepep --tp 16 --deepep-mode low_latency"):
            report = check_launch(command, env, product="A3")
            assert "MC019" not in [d.code for r in report.results for d in r.diagnostics]


# ---- the typed layer itself --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, value", [("16", 16), (" 16 ", 16), ("-3", -3), ("1_0", 10), ("\u0661\u0662", 12),
                                         ("9" * 18, int("9" * 18)), ("9" * 19, None), ("1" * 5000, None), ("1e3", None),
                                         ("²", None), ("nan", None), ("", None), ("1\x002", None), (True, None),
                                         (1 << 63, None), (-(1 << 63), -(1 << 63)), (None, None), ([1], None)])
def test_integer_reads_as_int_does_with_a_digit_cap(text, value):
    assert values.integer(text) == value


@pytest.mark.parametrize("text, value", [("0.9", 0.9), ("1e3", 1000.0), ("nan", None), ("inf", None), ("1e400", None),
                                         ("-1e400", None), ("x", None), (10 ** 400, None), (3, 3.0), (True, None)])
def test_finite_refuses_nan_and_overflow(text, value):
    assert values.finite(text) == value


def test_load_json_keeps_only_computable_numbers():
    data = values.load_json('{"a": 99999999999999999999, "b": 1e400, "c": NaN, "d": 7, "e": 0.5}')
    assert data["d"] == 7 and data["e"] == 0.5
    for key in "abc":
        assert isinstance(data[key], values.OddNumber)
        with pytest.raises(TypeError):
            data[key] * 2  # no arithmetic on them: a rule sees no number
    assert "characters" in repr(values.load_json('{"a": ' + "9" * 3000 + "}")["a"])
    for bad in ('{"a":' * 5000 + "1" + "}" * 5000, "x" * (values.MAX_JSON + 1), "{"):
        with pytest.raises(values.JsonValueError):
            values.load_json(bad)
