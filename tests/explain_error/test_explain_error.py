"""`moecfg explain-error LOG` on real log excerpts from public issues (logs/*.log, the issue cited in each first
line): each maps to the right rule, the values in the text, the cause where the log shows it, and the fix."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from moecfg.cli import cli
from moecfg.core.registry import all_rules
from moecfg.explain_error.match import MAX_BYTES, explain, read_log
from moecfg.explain_error.patterns import PATTERNS

LOGS = Path(__file__).parent / "logs"

# file -> (pattern key, rule codes that must be named, values read, causes found ("KNOB = value"), text in the fix)
EXPECTED = {
    "vllm-ascend-16835-hierarchy.log": ("hccl-buffsize-hierarchy", {"MC501", "MC505"},
                                        {"maxBs": "64", "h": "6144", "needed MB": "600", "HCCL_BUFFSIZE MB": "256"},
                                        set(), "HCCL_BUFFSIZE >= 600"),
    "vllm-ascend-5947-qp.log": ("hccl-qp-exhausted", set(), {"send_cq_depth": "32768"}, set(), "vllm-ascend#9005"),
    "vllm-ascend-2754-qp.log": ("hccl-qp-exhausted", set(), {"send_cq_depth": "32768"}, set(), "driver"),
    "vllm-ascend-8568-ret4.log": ("hccl-alloc-by-tiling", set(), {"ret": "4"}, set(), "ret = 4"),
    "vllm-ascend-9447-ret9.log": ("hccl-alloc-by-tiling", set(), {"ret": "9"}, set(), "HCCL_CONNECT_TIMEOUT"),
    "vllm-ascend-4051-a3-tiling.log": ("hccl-buffsize", {"MC501"},
                                       {"maxBs": "64", "h": "2048", "needed MB": "294", "HCCL_BUFFSIZE MB": "200"},
                                       set(), "HCCL_BUFFSIZE >= 294"),
    "vllm-ascend-2674-mte.log": ("mte-out-of-range", {"MC503", "MC880"}, {}, set(), "moecfg check"),
    "vllm-ascend-2858-561002.log": ("acl-561002", set(), {}, set(), "moecfg check"),
    "sgl-kernel-npu-239-commalg.log": ("sgl-comm-alg", {"MC896"}, {"commAlg": "fullmesh"}, set(), "build"),
    "sgl-kernel-npu-185-fused-bs.log": ("sgl-fused-bs", set(), {"limit": "256"},
                                        {"--cuda-graph-max-bs = 80", "--moe-a2a-backend = ascend_fuseep"}, "256"),
    "sgl-kernel-npu-716-capacity.log": ("sgl-capacity", {"MC894", "MC897"}, {"num_tokens": "2561"},
                                        {"DEEPEP_NORMAL_LONG_SEQ_ROUND = 5",
                                         "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS = 512"}, "--chunked-prefill-size"),
    "deepep-165-ll-tokens.log": ("deepep-ll-tokens", {"MC975", "MC976"}, {}, set(),
                                 "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"),
    "srt-slurm-44-ll-tokens.log": ("deepep-ll-tokens", {"MC975"}, {},
                                   {'SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK = "1024"'}, "<= 1024"),
    "deepep-114-nvl-chunks.log": ("deepep-nvl-chunks", {"MC612"}, {}, set(), "--deepep-config"),
    "megatron-3999-tx-depth.log": ("hybridep-tx-depth", {"MC674"}, {}, set(), "tokens per rank"),
}


def _explained(name: str):
    lines, _ = read_log((LOGS / name).read_bytes())
    return explain(lines)


def test_every_fixture_cites_a_public_issue_and_is_expected():
    files = sorted(p.name for p in LOGS.glob("*.log"))
    assert files == sorted(EXPECTED)
    issues = set()
    for name in files:
        first = (LOGS / name).read_text().splitlines()[0]
        m = re.match(r"# source: https://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)", first)
        assert m, name
        issues.add(m.groups())
    assert len(issues) >= 10


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_log_maps_to_rule_values_cause_and_fix(name):
    key, codes, values, causes, fix = EXPECTED[name]
    found = _explained(name)
    assert [e.pattern.key for e in found] == [key]
    e = found[0]
    assert codes <= set(e.pattern.codes)
    assert e.values == values
    assert {what for _, what in e.causes} == causes
    assert fix in e.render(e.pattern.fix) + e.render(e.pattern.means)


def test_no_static_cause_is_said_so():
    out = CliRunner().invoke(cli, ["explain-error", str(LOGS / "vllm-ascend-8568-ret4.log")]).output
    assert "no static cause known" in out and "workarounds:" in out and "vllm-ascend#9005" in out


def test_every_code_in_the_table_is_a_registered_rule():
    registered = {r.code for r in all_rules()}
    for p in PATTERNS:
        assert set(p.codes) <= registered, p.key
        assert p.static or not p.codes or p.generic, p.key


def test_same_error_on_every_rank_is_one_explanation():
    line = "HCCL_BUFFSIZE_EP is too SMALL, maxBs = 8, h = 7168, NEEDED_HCCL_BUFFSIZE(x) = 300MB, HCCL_BUFFSIZE=200MB."
    found = explain([f"(Worker rank={i}) {line}" for i in range(16)] + ["export HCCL_BUFFSIZE=200"])
    assert len(found) == 1 and found[0].count == 16
    assert found[0].values["needed MB"] == "300"
    assert found[0].causes == [(17, "HCCL_BUFFSIZE = 200")]


def test_flags_are_read_from_vllm_and_sglang_argument_dumps():
    found = explain(["non-default args: {'model': '/m', 'max_num_seqs': 256, 'tensor_parallel_size': 16}",
                     "server_args=ServerArgs(model_path='/m', cuda_graph_max_bs=512, tp_size=16)",
                     "RuntimeError: Failed: Assertion error deep_ep.cpp:1233 'x.size(0) <= num_max_dispatch_tokens_per_rank'"])
    assert {w for _, w in found[0].causes} == {"--cuda-graph-max-bs = 512"}
    found = explain(["non-default args: {'max_num_seqs': 256}", "HCCL_BUFFSIZE is too SMALL"])
    assert (1, "--max-num-seqs = 256") in found[0].causes


def test_unknown_log_exits_1_and_missing_file_2(tmp_path):
    log = tmp_path / "ok.log"
    log.write_text("INFO all good\n")
    assert CliRunner().invoke(cli, ["explain-error", str(log)]).exit_code == 1
    assert CliRunner().invoke(cli, ["explain-error", str(tmp_path / "none.log")]).exit_code == 2


def test_stdin_and_json():
    text = (LOGS / "vllm-ascend-16835-hierarchy.log").read_text()
    r = CliRunner().invoke(cli, ["explain-error", "-", "--format", "json"], input=text)
    assert r.exit_code == 0
    doc = json.loads(r.output)
    assert doc["log"] == "<stdin>" and doc["explanations"][0]["values"]["needed MB"] == "600"


def test_log_text_is_escaped():
    log = "\x1b]0;owned\x07::error file=x::forged\nRuntimeError: \x1b[2J x.size(0) <= num_max_dispatch_tokens_per_rank \u202e\n"
    out = CliRunner().invoke(cli, ["explain-error", "-"], input=log).output
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert not any(line.lstrip().startswith("::") for line in out.splitlines())


def test_input_is_bounded_and_regexes_do_not_backtrack():
    lines, cut = read_log(b"x" * (MAX_BYTES + 10))
    assert cut and sum(map(len, lines)) <= MAX_BYTES
    hostile = ["HCCL_BUFFSIZE is too SMALL" + " NEEDED_HCCL_BUFFSIZE" * 400 + "(" * 3000,
               "Failed to allocate resource[qp]" + " " * 8000, "HcclAllocComResourceByTiling" + " ret" * 2000,
               "--max-num-seqs " + "'" * 8000, "a" * 8192] * 50
    start = time.process_time()
    explain(hostile)
    assert time.process_time() - start < 5


DECODE_LOG = """\
export HCCL_BUFFSIZE=100
vllm serve vllm-ascend/DeepSeek-R1-W8A8 --quantization ascend --data-parallel-size 4 --tensor-parallel-size 4 \
--enable-expert-parallel --max-num-seqs 16 --speculative-config '{"num_speculative_tokens": 3, "method": "deepseek_mtp"}'
INFO loading weights
  HCCL_BUFFSIZE_EP is too SMALL, maxBs = 16, h = 7168, NEEDED_HCCL_BUFFSIZE(x) = 120MB, HCCL_BUFFSIZE=100MB.
"""


def test_command_in_the_log_is_checked_for_the_same_rule():
    # the README's decode launch, as a log would show it: moecfg's own MC501 finding (120 MB) is the cause
    r = CliRunner().invoke(cli, ["explain-error", "-", "--product", "A3", "--cann", "9.0.1", "--format", "json"],
                           input=DECODE_LOG)
    doc = json.loads(r.output)
    assert doc["command"]["line"] == 2
    check = doc["explanations"][0]["check"]
    assert [c["code"] for c in check] == ["MC501"] and "set HCCL_BUFFSIZE >= 120" in check[0]["message"]
    assert doc["explanations"][0]["values"]["needed MB"] == "120"


def test_without_a_command_nothing_is_checked():
    r = CliRunner().invoke(cli, ["explain-error", str(LOGS / "deepep-165-ll-tokens.log"), "--format", "json"])
    assert json.loads(r.output)["command"] is None
