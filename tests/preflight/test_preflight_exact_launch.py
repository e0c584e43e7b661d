"""preflight judges exactly the launch it execs (issue 33): the `env` wrapper's assignments, `-u` and `-i`; every
shell option form around `-c`; `bash FILE`; the model's config.json outside the working directory; a huge
process environment; signals reset before exec; nothing but device tools started with --check-only; a FIFO at
the CANN version file; .moecfg.yaml filling what the machine cannot tell."""
from __future__ import annotations

import json
import os
import shlex
import sys

import pytest

from machine_fakes import FakeMachine
from test_preflight import _decode, a3, run  # noqa: F401  (the a3 fixture)


def _verdict(r) -> tuple[int, bool]:
    return r.returncode, "launched" in r.stdout


@pytest.mark.parametrize("wrapper, process, refused", [
    (["env", "HCCL_BUFFSIZE=1024"], "100", False),  # the wrapper's value is what vLLM gets
    (["env", "HCCL_BUFFSIZE=100"], "1024", True),
    (["env", "-u", "HCCL_BUFFSIZE"], "1024", True),  # unset: HCCL's 200 MB default... judged as unset
    (["env", "-i", "PATH=/usr/bin:/bin"], "1024", True),
])
def test_the_env_wrapper_wins_over_the_process_environment(a3, wrapper, process, refused):
    model = a3.model("DeepSeek-R1-W8A8")
    argv = _decode(model)
    argv[argv.index("--max-num-seqs") + 1] = "64"  # 64 tokens per rank need more than HCCL's 200 MB default
    r = run(a3, ["--check-only", "--format", "json", "--", *wrapper, *argv], HCCL_BUFFSIZE=process)
    doc = json.loads(r.stdout)
    assert doc["passed"] is not refused, r.stdout[-2000:]
    assert (r.returncode == 1) is refused


@pytest.mark.parametrize("shell", [["bash", "-o", "pipefail", "-c"], ["bash", "-ce"], ["bash", "--login", "-c"],
                                   ["sh", "-euxc"], ["bash", "-c", "--"]])
def test_every_shell_option_form_is_read(a3, shell):
    model = a3.model("DeepSeek-R1-W8A8")
    script = "export HCCL_BUFFSIZE=100\n" + shlex.join(_decode(model))
    r = run(a3, ["--check-only", "--", *shell, script])
    assert r.returncode == 1 and "MC501 error" in r.stdout, r.stdout[-1500:]


def test_bash_file_reads_the_script_from_this_machine(a3):
    model = a3.model("DeepSeek-R1-W8A8")
    start = a3.root / "start.sh"
    start.write_text("#!/bin/bash\nexport HCCL_BUFFSIZE=100\n" + shlex.join(_decode(model)) + "\n")
    r = run(a3, ["--", "bash", str(start)])
    assert _verdict(r) == (1, False) and "MC501 error" in r.stderr
    start.write_text("#!/bin/bash\nexport HCCL_BUFFSIZE=1024\n" + shlex.join(_decode(model)) + "\n")
    r = run(a3, ["--", "bash", str(start)])
    assert r.returncode == 7 and "launched" in r.stdout  # passed, then bash ran the script unchanged


def test_the_model_config_is_read_outside_the_working_directory(a3, tmp_path):
    model = a3.model("DeepSeek-R1-W8A8")
    r = subprocess_run_from("/", a3, ["--check-only", "--format", "json", "--", *_decode(model)], HCCL_BUFFSIZE="100")
    doc = json.loads(r.stdout)
    assert doc["machine"]["models"] == {model: os.path.join(model, "config.json")}
    assert doc["passed"] is False  # judged with the model's own dimensions: MC501


def subprocess_run_from(cwd, machine, args, **env):
    import subprocess
    return subprocess.run([sys.executable, "-m", "moecfg", "preflight", *args], env={**machine.env, **env},
                          capture_output=True, text=True, timeout=60, cwd=cwd)


def test_a_huge_environment_spends_no_reading_budget(a3):
    model = a3.model("DeepSeek-R1-W8A8")
    many = {f"SVC_{i}_SERVICE_PORT": str(i) for i in range(10050)}  # Kubernetes service links
    r = run(a3, ["--check-only", "--", *_decode(model)], HCCL_BUFFSIZE="100", **many)
    assert r.returncode == 1 and "MC501 error" in r.stdout


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the kernel's signal mask")
def test_signals_ignored_by_python_are_reset_before_exec(tmp_path):
    # the exec'd program's own ignored-signal mask (Python would reset SIGPIPE itself: read the kernel's view)
    m = FakeMachine(tmp_path)
    r = run(m, ["--", "grep", "^SigIgn:", "/proc/self/status"])
    ignored = int(r.stdout.split()[1], 16)
    assert not ignored & (1 << 12), "SIGPIPE still ignored"
    assert not ignored & (1 << 24), "SIGXFSZ still ignored"


def test_check_only_starts_no_bash(tmp_path):
    m = FakeMachine(tmp_path)
    marker = tmp_path / "bash-ran"
    m.tool("bash", f"touch {marker}\nexit 0\n")  # a bash first on PATH that leaves a mark
    broken = "vllm serve m --enable-expert-parallel && ( ) )\n"  # tree-sitter cannot parse: bash -n would be asked
    r = run(m, ["--check-only", "--", "/bin/sh", "-c", broken])
    assert r.returncode in (0, 1) and not marker.exists()


def test_a_fifo_at_the_cann_version_file_does_not_block(tmp_path):
    m = FakeMachine(tmp_path)
    root = tmp_path / "cann"
    (root / "aarch64-linux").mkdir(parents=True)
    os.mkfifo(root / "aarch64-linux" / "ascend_toolkit_install.info")
    r = run(m, ["--check-only", "--", "true"], ASCEND_HOME_PATH=str(root))
    assert r.returncode == 0  # run() times out after 60 s if the FIFO blocked


def test_settings_fill_what_the_machine_cannot_tell_and_say_so(tmp_path):
    m = FakeMachine(tmp_path)  # no device tool, no CANN, no package: nothing read from the machine
    (m.root / ".moecfg.yaml").write_text("product: A3\ncann_version: 9.0.1\nframework_versions:\n  vllm-ascend: 0.13.0\n")
    model = m.model("DeepSeek-R1-W8A8")
    r = run(m, ["--check-only", "--format", "json", "--", *_decode(model)], HCCL_BUFFSIZE="100")
    doc = json.loads(r.stdout)
    assert doc["passed"] is False
    assert set(doc["from_settings"]) == {"product <- .moecfg.yaml", "cann <- .moecfg.yaml",
                                         "framework_versions <- .moecfg.yaml"}


def test_machine_facts_win_over_settings(a3):
    (a3.root / ".moecfg.yaml").write_text("product: A2\ncann_version: 8.5.0\n")
    r = run(a3, ["--check-only", "--format", "json", "--", "true"])
    doc = json.loads(r.stdout)
    assert doc["machine"]["product"] == "A3" and doc["from_settings"] == []


def test_framework_version_option_and_its_errors(tmp_path):
    m = FakeMachine(tmp_path)
    r = run(m, ["--check-only", "--framework-version", "sglang=0.5.8", "--format", "json", "--", "true"])
    assert json.loads(r.stdout)["machine"]["packages"] == {"sglang": "0.5.8"}
    r = run(m, ["--check-only", "--framework-version", "nonsense", "--", "true"])
    assert r.returncode == 2 and "NAME=VERSION" in r.stderr and "Traceback" not in r.stderr
