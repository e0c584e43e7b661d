"""`moecfg plan FILE` says no less than `moecfg check` on the same file (issue 37, hostile-input review): each
launch's as-written verdict is check's own (a rule plan does not size included), every launch it does not answer is
named with why, and the launches past its cap are counted."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from moecfg.cli.group import cli

FIXTURES = Path(__file__).parent / "fixtures"
VLLM = ("vllm serve /m --quantization ascend --data-parallel-size 4 --tensor-parallel-size 4 "
        "--enable-expert-parallel --max-num-seqs 16 --max-num-batched-tokens 64")


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def tree(tmp_path) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "t")  # its .moecfg.yaml: A3, CANN 9.0.1, vllm-ascend 0.13.0
    return tmp_path / "t"


def edited(tree: Path, old: str, new: str) -> Path:
    path = tree / "serve.sh"
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    return path


def check_errors(path: Path) -> dict[int, list[str]]:
    """The error codes `moecfg check` reports, by the launch's line."""
    got = json.loads(invoke("check", "--format", "json", str(path)).stdout)
    out: dict[int, set] = {}
    for r in got["results"]:
        for d in r["diagnostics"]:
            if d["severity"] == "error":
                out.setdefault(r["launch"]["line"], set()).add(d["code"])
    return {line: sorted(codes) for line, codes in out.items()}


def test_a_rule_plan_does_not_size_fails_the_launch_as_check_does(tree):
    # 2 x 999999999 MB of mc2 buffers exceed a 64 GB die: MC950 (and MC901), neither a sizing rule with a fix
    path = edited(tree, "HCCL_BUFFSIZE=100 ", "HCCL_BUFFSIZE=999999999 ")
    errors = check_errors(path)
    assert "MC950" in errors[8]
    got = invoke("plan", str(path))
    assert got.exit_code == 1
    assert f"{path}:8: vllm-ascend decode (ascend), as written: fails {', '.join(errors[8])} (moecfg check {path} " \
           "says why)" in got.stdout
    # the sizing answers it can give stay
    assert "smallest buffer for this batch: HCCL_BUFFSIZE=120  (set: 999999999; 119 fails)" in got.stdout
    [launch] = json.loads(invoke("plan", "--format", "json", str(path)).stdout)["launches"]
    assert launch["failing"] == errors[8] and "MC950" in launch["unsized"] and not launch["ok"]


def test_a_sizing_failure_alone_needs_no_pointer_to_check(tree):
    got = invoke("plan", str(tree / "serve.sh"))
    assert "as written: fails MC501\n" in got.stdout and got.exit_code == 1


def test_a_launch_with_a_value_not_known_is_named_with_why(tree):
    path = edited(tree, "--max-num-seqs 16", "--max-num-seqs $BS")
    got = invoke("plan", str(path))
    assert (f"{path}:8: vllm-ascend: not planned: MC023: --max-num-seqs: the value is not known statically"
            in got.stdout)
    assert got.exit_code == 1  # nothing planned
    data = json.loads(invoke("plan", "--format", "json", str(path)).stdout)
    assert data["launches"] == [] and [(n["line"], n["framework"]) for n in data["not_planned"]] == [(8, "vllm-ascend")]


def test_a_buffer_not_known_is_not_the_default(tree):
    path = edited(tree, "HCCL_BUFFSIZE=100 ", "HCCL_BUFFSIZE=$BUF ")
    got = invoke("plan", str(path))
    assert "HCCL_BUFFSIZE=120  (set to a value not known statically; 119 fails)" in got.stdout
    assert "largest --max-num-seqs for this buffer: none (HCCL_BUFFSIZE is not known statically; set: 16)" in got.stdout
    assert "not set: the default applies" not in got.stdout


def test_a_launch_seen_but_not_read_is_named(tree):
    path = tree / "here.sh"
    path.write_text(f"#!/bin/bash\nexport HCCL_BUFFSIZE=100\n{VLLM}\ncat > job.yaml <<EOF\n"
                    "args: [\"vllm serve /m --enable-expert-parallel --data-parallel-size 4\"]\nEOF\n")
    got = invoke("plan", str(path))
    assert f"{path}:5: vLLM: not planned: seen, not read: inside a heredoc" in got.stdout


def test_launches_past_the_cap_are_counted(tree):
    # 33 launches, each with its own buffer (HCCL_BUFFSIZE=100 .. 132): the first 32 planned, one line for the rest
    path = tree / "many.sh"
    path.write_text("#!/bin/bash\n" + "".join(f"HCCL_BUFFSIZE={100 + i} {VLLM} &\n" for i in range(33)))
    got = invoke("plan", str(path))
    assert got.stdout.count("as written:") == 32 and f"{path}:33:" in got.stdout and f"{path}:34:" not in got.stdout
    assert f"{path}: 1 more launch past the first 32 not planned (`moecfg check {path}` judges them all)" in got.stdout
    data = json.loads(invoke("plan", "--format", "json", str(path)).stdout)
    assert len(data["launches"]) == 32 and data["not_planned_past_cap"] == 1


def test_an_error_past_the_cap_still_fails_the_plan(tree):
    path = tree / "many.sh"
    launches = [f"HCCL_BUFFSIZE=200 {VLLM} &\n"] * 32 + [f"HCCL_BUFFSIZE=999999999 {VLLM} &\n"]
    path.write_text("#!/bin/bash\n" + "".join(launches))
    assert "MC950" in check_errors(path)[34]
    got = invoke("plan", str(path))
    assert got.exit_code == 1 and "moecfg check also fails" in got.stdout and "MC950" in got.stdout.splitlines()[-1]


def test_two_launches_on_one_line_each_get_their_own_verdict(tree):
    path = tree / "one.sh"
    path.write_text(f"#!/bin/bash\nHCCL_BUFFSIZE=200 {VLLM} & HCCL_BUFFSIZE=999999999 {VLLM}\n")
    got = invoke("plan", str(path))
    verdicts = [line.split("as written: ")[1] for line in got.stdout.splitlines() if "as written" in line]
    assert verdicts == ["passes", f"fails MC950 (moecfg check {path} says why)"] and got.exit_code == 1
