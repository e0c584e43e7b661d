"""A launch that sets HCCL_BUFFSIZE to a value moecfg cannot know (`export HCCL_BUFFSIZE=$BUF`) gets no verdict on
the buffer: no error computed from HCCL's 200 MB default standing in for the unknown value, one MC023 info naming the
rule not checked, and the buffer row keeps what the op needs with the configured value unknown. A script that does
not set the variable at all still runs with HCCL's default, and a known value too small is still an error."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from moecfg.cli import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "launch"
VLLM = (EXAMPLES / "vllm-ascend-dsr1-a3-dp4tp4.sh").read_text().replace("--max-num-seqs 16", "--max-num-seqs 256")
SGLANG = (EXAMPLES / "sglang-ascend-deepseek-pd-decode.sh").read_text()
# (script, the buffer rule that judges it, the MB it needs: vLLM 956 (MC501), SGLang 658 (MC898))
CASES = {"vllm-ascend": (VLLM, "MC501", 956), "sglang": (SGLANG, "MC898", 658)}


def with_buffsize(text: str, value: str | None) -> str:
    line = "" if value is None else f"export HCCL_BUFFSIZE={value}"
    return re.sub(r"(?m)^export HCCL_BUFFSIZE=.*$", line, text)


def run(tmp_path, text: str, fmt: str = "text"):
    path = tmp_path / "launch.sh"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["check", "--product", "A3", "--format", fmt, str(path)])
    return result.exit_code, result.output


@pytest.mark.parametrize("framework", CASES)
def test_an_unknown_buffsize_is_not_judged(tmp_path, framework):
    text, code, needed = CASES[framework]
    status, out = run(tmp_path, with_buffsize(text, "$BUF"))
    assert status == 0, out
    assert f"{code} error" not in out
    info = next(line for line in out.splitlines() if "MC023" in line)
    assert "HCCL_BUFFSIZE" in info and code in info
    row = next(line for line in out.splitlines() if line.strip().startswith("ep "))
    assert row.rstrip().endswith("unknown") and "not known statically" in row and "200" not in row


@pytest.mark.parametrize("framework", CASES)
def test_the_json_buffer_keeps_the_need_and_drops_the_verdict(tmp_path, framework):
    text, _, needed = CASES[framework]
    status, out = run(tmp_path, with_buffsize(text, "${BUF}"), "json")
    docs = [r for r in json.loads(out)["results"] if r.get("buffers")]
    ep = docs[0]["buffers"]["ep"]
    assert ep["required_mb"] == needed and ep["configured_mb"] is None and ep["sufficient"] is None


@pytest.mark.parametrize("framework", CASES)
def test_unset_and_too_small_are_still_errors(tmp_path, framework):
    text, code, needed = CASES[framework]
    for value in (None, str(needed - 1)):
        status, out = run(tmp_path, with_buffsize(text, value))
        assert status == 1 and f"{code} error" in out and f">= {needed}" in out, (value, out)
    status, out = run(tmp_path, with_buffsize(text, str(needed)))
    assert f"{code} error" not in out, out
