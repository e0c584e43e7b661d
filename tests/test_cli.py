"""Command line: exit codes (contract §4), the JSON report shape (§3), --output, stdin, `buffer`, the installed
console script and the internal-error path."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from moecfg.cli import main

ROOT = Path(__file__).resolve().parents[1]
GOOD = """\
product: A3
cann_version: 9.0.1
bs: 128
h: 7168
k: 8
ep_world_size: 32
moe_expert_num: 256
quant_mode: 2
env:
  HCCL_BUFFSIZE: 1024
"""
BAD = GOOD.replace("moe_expert_num: 256", "moe_expert_num: 250")  # MC201 at 7:17
A2_WARN = """\
product: A2
cann_version: 9.0
bs: 64
h: 4096
k: 8
ep_world_size: 16
moe_expert_num: 128
comm_alg: fullmesh
env:
  HCCL_BUFFSIZE: 100
"""  # MC503 warning only: needs 132 MB
INFO_ONLY = GOOD.replace("cann_version: 9.0.1\n", "")  # MC011 info only


def run(argv, capsys):
    """(exit code, stdout, stderr) of an in-process run."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out = capsys.readouterr()
    code = exc.value.code
    return (0 if code is None else code), out.out, out.err


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


def proc(args, **kw):
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=60, **kw)


# ---- exit codes ----------------------------------------------------------------------------------------------
def test_valid_file_exits_0(tmp_path, capsys):
    code, out, _ = run(["check", write(tmp_path, "a.yaml", GOOD)], capsys)
    assert code == 0 and "0 errors" in out


def test_invalid_file_exits_1_with_position(tmp_path, capsys):
    path = write(tmp_path, "a.yaml", BAD)
    code, out, _ = run(["check", path], capsys)
    assert code == 1
    assert f"{path}:7:17: MC201 error:" in out and "[moe-expert-divisibility]" in out
    assert "Checked 1 file (1 document): 1 error, 0 warnings, 0 infos." in out


def test_examples_pass(capsys):
    code, out, _ = run(["check", str(ROOT / "examples")], capsys)
    assert code == 0 and " 0 errors" in out


@pytest.mark.parametrize("argv_tail", [["does-not-exist.yaml"], ["--fail-on", "sometimes", "x.yaml"],
                                       ["--format", "xml", "x.yaml"]])  # no path: `.` (issue 36)
def test_usage_errors_exit_2(tmp_path, capsys, argv_tail, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "x.yaml", GOOD)
    code, _, err = run(["check", *argv_tail], capsys)
    assert code == 2 and "Traceback" not in err


def test_directory_with_nothing_to_check_is_not_a_usage_error(tmp_path, capsys):
    (tmp_path / "d").mkdir()
    write(tmp_path, "d/notes.txt", "hello")  # issue 24: a folder with nothing to check is not a usage error
    code, out, err = run(["check", str(tmp_path / "d")], capsys)
    assert code == 0 and "Checked 0 files" in out


def test_directory_is_walked_recursively(tmp_path, capsys):
    write(tmp_path, "d/a.yaml", GOOD)
    write(tmp_path, "d/sub/b.yml", BAD)
    write(tmp_path, "d/sub/c.txt", "not: linted")
    code, out, _ = run(["check", "--format", "json", str(tmp_path / "d")], capsys)
    report = json.loads(out)
    assert code == 1 and report["summary"]["files"] == 2
    assert sorted(Path(r["file"]).name for r in report["results"]) == ["a.yaml", "b.yml"]


@pytest.mark.parametrize("text,fail_on,expected", [
    (A2_WARN, None, 0), (A2_WARN, "error", 0), (A2_WARN, "warning", 1), (A2_WARN, "info", 1), (A2_WARN, "never", 0),
    (INFO_ONLY, None, 0), (INFO_ONLY, "warning", 0), (INFO_ONLY, "info", 1),
    (BAD, "never", 0), (BAD, "warning", 1),
])
def test_fail_on(tmp_path, capsys, text, fail_on, expected):
    argv = ["check", write(tmp_path, "a.yaml", text)] + (["--fail-on", fail_on] if fail_on else [])
    assert run(argv, capsys)[0] == expected


def test_broken_yaml_exits_1(tmp_path, capsys):
    code, out, _ = run(["check", "--format", "json", write(tmp_path, "a.yaml", "bs: [1\n")], capsys)
    result = json.loads(out)["results"][0]
    assert code == 1 and result["kind"] is None and result["valid"] is False and result["document"] == 0
    d = result["diagnostics"][0]
    assert d["code"] == "MC001" and d["line"] >= 1 and d["column"] >= 1


def test_binary_and_empty_files(tmp_path, capsys):
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\x00\x01\x02\xff")
    code, out, err = run(["check", str(binary)], capsys)
    assert code == 1 and "MC008" in out and "Traceback" not in err
    code, out, _ = run(["check", write(tmp_path, "e.yaml", "")], capsys)
    assert code == 0 and "MC007" in out  # a warning


# ---- JSON report (contract §3) ---------------------------------------------------------------------------------
RESULT_KEYS = {"file", "document", "kind", "op", "product", "ruleset", "valid", "diagnostics", "buffers", "derived"}
DIAG_TYPES = {"code": str, "name": str, "severity": str, "message": str, "path": str, "line": int, "column": int}


def check_report_shape(report: dict):
    assert {"schema_version", "moecfg_version", "results", "summary"} <= set(report)
    assert report["schema_version"] == 1 and isinstance(report["moecfg_version"], str)
    assert set(report["summary"]) == {"files", "documents", "errors", "warnings", "infos"}
    assert all(type(v) is int for v in report["summary"].values())
    counts = {"error": 0, "warning": 0, "info": 0}
    for r in report["results"]:
        assert RESULT_KEYS <= set(r)
        assert type(r["document"]) is int and type(r["valid"]) is bool
        assert isinstance(r["buffers"], dict) and isinstance(r["derived"], dict)
        for d in r["diagnostics"]:
            for key, typ in DIAG_TYPES.items():
                assert type(d[key]) is typ, (key, d)
            assert d["severity"] in counts and d["line"] >= 1 and d["column"] >= 1
            assert d["path"] == "" or d["path"].startswith("/")
            counts[d["severity"]] += 1
        assert r["valid"] is (not any(d["severity"] == "error" for d in r["diagnostics"]))
        for b in r["buffers"].values():
            assert type(b["required_bytes"]) is int and type(b["required_mb"]) is int
            assert b["sufficient"] in (True, False, None)
    assert report["summary"]["documents"] == len(report["results"])
    assert (report["summary"]["errors"], report["summary"]["warnings"], report["summary"]["infos"]) == \
        (counts["error"], counts["warning"], counts["info"])


def test_json_report_shape(tmp_path, capsys):
    good, bad = write(tmp_path, "good.yaml", GOOD), write(tmp_path, "bad.yaml", BAD + "---\n" + A2_WARN)
    code, out, _ = run(["check", "--format", "json", good, bad], capsys)
    report = json.loads(out)
    check_report_shape(report)
    assert code == 1 and report["summary"] == {"files": 2, "documents": 3, "errors": 1, "warnings": 1, "infos": 0}
    first = report["results"][0]
    assert (first["file"], first["kind"], first["op"], first["product"], first["ruleset"], first["valid"]) == \
        (good, "ascend", "dispatch_combine_v2", "A3", "9.0", True)
    # DeepSeek-V3 ep 32, bs 128: 956 MB needed (see test_formulas_ascend.py), 1024 configured
    assert {k: first["buffers"]["ep"][k] for k in ("required_bytes", "required_mb", "configured_mb", "sufficient")} \
        == {"required_bytes": 1002438656, "required_mb": 956, "configured_mb": 1024, "sufficient": True}
    assert (first["derived"]["local_expert_num"], first["derived"]["max_bs"], first["derived"]["A"]) == (8, 128, 32768)
    d = report["results"][1]["diagnostics"][0]
    assert {k: d[k] for k in DIAG_TYPES if k != "message"} == {
        "code": "MC201", "name": "moe-expert-divisibility", "severity": "error", "path": "/moe_expert_num",
        "line": 7, "column": 17}
    assert report["results"][2]["document"] == 1 and report["results"][2]["product"] == "A2"


def test_output_file(tmp_path, capsys):
    target = tmp_path / "report.json"
    code, out, _ = run(["check", "--format", "json", "--output", str(target), write(tmp_path, "a.yaml", BAD)], capsys)
    assert code == 1 and out == ""
    check_report_shape(json.loads(target.read_text()))


def test_output_to_unwritable_place_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(["check", "--output", str(tmp_path / "no" / "dir" / "r.txt"), write(tmp_path, "a.yaml", GOOD)],
                       capsys)
    assert code == 2 and "cannot write" in err


def test_cann_option_overrides(tmp_path, capsys):
    code, out, _ = run(["check", "--format", "json", "--cann", "8.5", write(tmp_path, "a.yaml", GOOD)], capsys)
    assert json.loads(out)["results"][0]["ruleset"] == "8.5"


# ---- buffer --------------------------------------------------------------------------------------------------
DSV3_FLAGS = ["--product", "A3", "--cann", "9.0", "--bs", "128", "--h", "7168", "--k", "8",
              "--ep-world-size", "32", "--moe-expert-num", "256"]


def test_buffer_flags_text(capsys):
    code, out, _ = run(["buffer", *DSV3_FLAGS], capsys)
    # too small for the 200 MB default, but `buffer` only fails on invalid input
    assert code == 0
    for line in ("tok_dispatch = 14848", "tok_combine = 14336", "local_expert_num = 8", "956 MiB (1002438656 B)",
                 "set HCCL_BUFFSIZE >= 956"):
        assert line in out


def test_buffer_set_and_json(capsys):
    code, out, _ = run(["buffer", *DSV3_FLAGS, "--set", "env.HCCL_BUFFSIZE=956", "--format", "json"], capsys)
    report = json.loads(out)
    check_report_shape(report)
    ep = report["results"][0]["buffers"]["ep"]
    assert code == 0 and ep["configured_mb"] == 956 and ep["sufficient"] is True
    assert ep["terms"]["tok_dispatch"] == 14848  # moecfg's extension of the contract's buffer entry


def test_buffer_file_with_overrides(tmp_path, capsys):
    path = write(tmp_path, "a.yaml", GOOD)
    code, out, _ = run(["buffer", path, "--set", "comm_alg=fullmesh_v2", "--format", "json"], capsys)
    ep = json.loads(out)["results"][0]["buffers"]["ep"]
    assert code == 0 and ep["required_mb"] == 988  # fullmesh_v2: 480Align512 dispatch slot
    code, out, _ = run(["buffer", path, "--hccl-buffsize", "955", "--format", "json"], capsys)
    assert json.loads(out)["results"][0]["buffers"]["ep"]["sufficient"] is False


def test_buffer_fail_on(capsys):
    assert run(["buffer", *DSV3_FLAGS, "--fail-on", "error"], capsys)[0] == 1


def test_buffer_invalid_input_exits_1(capsys):
    code, out, _ = run(["buffer", *DSV3_FLAGS[:-2], "--moe-expert-num", "250"], capsys)
    assert code == 1 and "MC201" in out


@pytest.mark.parametrize("argv", [["buffer"], ["buffer", "--set", "novalue"], ["buffer", "missing.yaml"]])
def test_buffer_usage_errors(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    assert run(argv, capsys)[0] == 2


# ---- internal error: exit 3, a short message, no traceback ------------------------------------------------------
def test_internal_error_exit_3(tmp_path, capsys, monkeypatch):
    # a bug while checking one file is MC019 on that file (tests/hardening/test_one_file.py); exit 3 is for the
    # run's own failures: here rendering the report
    from moecfg.render import text as text_render

    def boom(*args, **kwargs):
        raise ZeroDivisionError("synthetic bug")

    monkeypatch.setattr(text_render, "render", boom)
    monkeypatch.delenv("MOECFG_DEBUG", raising=False)
    code, out, err = run(["check", write(tmp_path, "a.yaml", GOOD)], capsys)
    assert code == 3 and "internal error" in err and "synthetic bug" in err and "Traceback" not in err
    # the version and "please report" suffice: no link to a repository that may not exist (issue 14, item 11)
    assert "moecfg 0.1.0" in err and "please report" in err and "http" not in err


# ---- the real processes: python -m moecfg, stdin, the console script ---------------------------------------------
def test_python_dash_m_and_stdin():
    r = proc([sys.executable, "-m", "moecfg", "check", "--format", "json", "-"], input=BAD, cwd=ROOT)
    report = json.loads(r.stdout)
    assert r.returncode == 1 and report["results"][0]["file"] == "<stdin>"
    assert report["results"][0]["diagnostics"][0]["line"] == 7
    r = proc([sys.executable, "-m", "moecfg", "--version"], cwd=ROOT)
    assert r.returncode == 0 and "0.1.0" in r.stdout


def test_installed_console_script(tmp_path):
    exe = shutil.which("moecfg")
    if exe is None:
        pytest.skip("the moecfg console script is not installed (pip install -e . or .ci/run installs it)")
    r = proc([exe, "check", str(ROOT / "examples")])
    assert r.returncode == 0, r.stdout + r.stderr
    r = proc([exe, "check", write(tmp_path, "bad.yaml", BAD)])
    assert r.returncode == 1 and ":7:17: MC201 error:" in r.stdout
    r = proc([exe, "check", str(tmp_path / "missing.yaml")])
    assert r.returncode == 2 and "Traceback" not in r.stderr
