"""`moecfg preflight -- CMD` on a fake machine: facts read from fake npu-smi / nvidia-smi, a fake CANN tree and
fake package metadata; the launch is refused on an error and exec'd unchanged when it passes."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from machine_fakes import NPU_SMI_A2, NPU_SMI_A3, FakeMachine

SPEC = '{"num_speculative_tokens": 3, "method": "deepseek_mtp"}'


def _decode(model: str) -> list[str]:
    # the README's decode launch: 16 tokens per rank need 120 MB in the EP communicator (CANN 9.0.1, A3)
    return ["vllm", "serve", model, "--quantization", "ascend", "--data-parallel-size", "4", "--tensor-parallel-size",
            "4", "--enable-expert-parallel", "--max-num-seqs", "16", "--speculative-config", SPEC]


def run(machine: FakeMachine, args: list[str], **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "moecfg", "preflight", *args], env={**machine.env, **env},
                          capture_output=True, text=True, timeout=60, cwd=machine.root)


@pytest.fixture
def a3(tmp_path) -> FakeMachine:
    m = FakeMachine(tmp_path)
    m.npu_smi(NPU_SMI_A3)
    m.cann("9.0.1")
    m.package("vllm-ascend", "0.13.0")
    m.package("vllm", "0.13.0")
    m.tool("vllm", 'echo "launched $* HCCL_BUFFSIZE=$HCCL_BUFFSIZE"\nexit 7\n')
    return m


def test_refuses_a_launch_whose_buffer_is_too_small(a3):
    model = a3.model("DeepSeek-R1-W8A8")
    r = run(a3, ["--", *_decode(model)], HCCL_BUFFSIZE="100")
    assert r.returncode == 1
    assert "launched" not in r.stdout + r.stderr
    assert "MC501 error" in r.stderr and "set HCCL_BUFFSIZE >= 120" in r.stderr
    assert "product A3 <- npu-smi info" in r.stderr
    assert "CANN 9.0.1 <- " in r.stderr and "vllm-ascend 0.13.0" in r.stderr
    assert f"model {model} <- {model}/config.json" in r.stderr
    assert "MC040" not in r.stderr  # the version was read, not assumed
    assert "refused" in r.stderr


def test_runs_a_correct_launch_unchanged(a3):
    model = a3.model("DeepSeek-R1-W8A8")
    r = run(a3, ["--", *_decode(model)], HCCL_BUFFSIZE="1024")
    assert r.returncode == 7  # the command's own exit status: moecfg was replaced by it
    assert r.stdout == f"launched serve {model} " + " ".join(_decode(model)[3:]) + " HCCL_BUFFSIZE=1024\n"
    assert "passed" in r.stderr and "starting vllm unchanged" in r.stderr


def test_bash_c_script_is_read_as_a_script(a3):
    model = a3.model("DeepSeek-R1-W8A8")
    script = "export HCCL_BUFFSIZE=100\n" + " ".join(_decode(model)[:-1]) + f" '{SPEC}'"
    r = run(a3, ["--", "bash", "-c", script])
    assert r.returncode == 1 and "MC501 error" in r.stderr and "launched" not in r.stdout
    assert f"model {model} <- " in r.stderr


def test_exec_of_a_plain_command(tmp_path):
    m = FakeMachine(tmp_path)
    r = run(m, ["--", sys.executable, "-c", "print('launched')"])
    assert (r.returncode, r.stdout) == (0, "launched\n")
    assert "not a launch moecfg recognises" in r.stderr


def test_check_only_reports_and_does_not_start(a3):
    model = a3.model("DeepSeek-R1-W8A8")
    r = run(a3, ["--check-only", "--format", "json", "--", *_decode(model)], HCCL_BUFFSIZE="1024")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["passed"] is True and "launched" not in r.stdout
    assert doc["machine"]["product"] == "A3" and doc["machine"]["cann"] == "9.0.1"
    assert doc["machine"]["device_memory_gb"] == 64
    assert doc["machine"]["packages"] == {"vllm": "0.13.0", "vllm-ascend": "0.13.0"}
    launch = [r for r in doc["report"]["results"] if r.get("buffers")][0]
    assert launch["launch"]["framework_version"] == "0.13.0"
    assert launch["buffers"]["ep"]["required_mb"] == 120
    assert launch["derivation"]["cann_version"].endswith("aarch64-linux/ascend_toolkit_install.info")
    assert "in the settings" not in json.dumps(launch["derivation"])


def test_a2_table_is_read_as_a2(tmp_path):
    m = FakeMachine(tmp_path)
    m.npu_smi(NPU_SMI_A2)
    r = run(m, ["--check-only", "--format", "json", "--", "true"])
    doc = json.loads(r.stdout)
    assert doc["machine"]["product"] == "A2" and doc["machine"]["product_from"] == "npu-smi info: 910B3"


def test_gpu_from_nvidia_smi(tmp_path):
    m = FakeMachine(tmp_path)
    m.tool("nvidia-smi", 'echo "NVIDIA H200, 143771 MiB"\necho "NVIDIA H200, 143771 MiB"\n')
    r = run(m, ["--check-only", "--format", "json", "--", "true"])
    doc = json.loads(r.stdout)
    assert doc["machine"]["product"] == "H200"
    assert doc["machine"]["device_memory_gb"] == pytest.approx(143771 / 1024)


def test_gpu_sglang_launch_refused_on_the_machine_it_would_fail(tmp_path):
    m = FakeMachine(tmp_path)
    m.tool("nvidia-smi", 'echo "NVIDIA H100 80GB HBM3, 81559 MiB"\n')
    m.package("sglang", "0.5.4")
    model = m.model("DeepSeek-R1")
    launch = ["python3", "-m", "sglang.launch_server", "--model-path", model, "--tp", "16", "--dp", "16",
              "--enable-dp-attention", "--moe-a2a-backend", "deepep", "--deepep-mode", "low_latency",
              "--cuda-graph-max-bs", "256", "--nnodes", "2"]
    r = run(m, ["--", *launch], SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK="128")
    assert r.returncode == 1 and "MC975 error" in r.stderr and "GPU H100 <- nvidia-smi" in r.stderr
    r = run(m, ["--check-only", "--", *launch], SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK="256")
    assert r.returncode == 0 and "MC975" not in r.stdout


def test_says_once_what_it_could_not_read_and_what_it_assumed(tmp_path):
    m = FakeMachine(tmp_path)
    r = run(m, ["--check-only", "--", "vllm", "serve", "deepseek-ai/DeepSeek-V3", "--tensor-parallel-size", "8",
                "--enable-expert-parallel"])
    not_read = [line for line in r.stdout.splitlines() if line.startswith("not read:")]
    assumed = [line for line in r.stdout.splitlines() if line.startswith("assumed:")]
    assert len(not_read) == 1 and "npu-smi is not on PATH" in not_read[0] and "nvidia-smi" in not_read[0]
    assert len(assumed) == 1 and "product unknown" in assumed[0] and "newest supported" in assumed[0]


@pytest.mark.parametrize("script, why", [
    ("exec sleep 30\n", "did not answer within"),
    ("head -c 400000 /dev/zero | tr '\\0' x\n", "printed more than"),
    ("echo garbage; exit 3\n", "exited with status 3"),
])
def test_a_misbehaving_tool_is_reported_not_fatal(tmp_path, script, why):
    m = FakeMachine(tmp_path)
    m.tool("npu-smi", script)
    start = time.monotonic()
    r = run(m, ["--check-only", "--tool-timeout", "0.5", "--", "true"])
    assert r.returncode == 0, r.stderr
    assert why in r.stdout
    assert time.monotonic() - start < 20


def test_unparseable_npu_smi_names_nothing(tmp_path):
    m = FakeMachine(tmp_path)
    m.npu_smi("| 0     Ascend310P3         | OK            | 93.7        36                0    / 0             |\n")
    r = run(m, ["--check-only", "--format", "json", "--", "true"])
    doc = json.loads(r.stdout)
    assert doc["machine"]["product"] is None
    assert any("Ascend310P3" in u for u in doc["not_read"])


def test_tool_text_is_escaped(tmp_path):
    m = FakeMachine(tmp_path)
    m.npu_smi("| 0     \x1b[31mEvil\u202e | OK | 1 |\n")
    r = run(m, ["--check-only", "--", "true"])
    assert "Evil" in r.stdout
    assert "\x1b" not in r.stdout and "\u202e" not in r.stdout


def test_command_line_overrides_win(a3):
    model = a3.model("DeepSeek-R1-W8A8")
    r = run(a3, ["--check-only", "--format", "json", "--cann", "9.1", "--", *_decode(model)], HCCL_BUFFSIZE="1024")
    doc = json.loads(r.stdout)
    assert doc["machine"]["cann"] == "9.0.1"  # what was read stays visible
    assert {res["ruleset"] for res in doc["report"]["results"] if res.get("ruleset")} == {"9.1"}


def test_command_is_required(tmp_path):
    r = run(FakeMachine(tmp_path), ["--check-only"])
    assert r.returncode == 2 and "after --" in r.stderr


def test_unknown_option_is_a_usage_error_not_a_command(tmp_path):
    r = run(FakeMachine(tmp_path), ["--chek-only", "--", "true"])
    assert r.returncode == 2 and "no such option: --chek-only" in r.stderr


def test_missing_command_is_127(tmp_path):
    r = run(FakeMachine(tmp_path), ["--", "no-such-command-here"])
    assert r.returncode == 127 and "cannot start no-such-command-here" in r.stderr


def test_model_configs_only_names_directories_with_a_config(tmp_path):
    from moecfg.preflight.launch import model_configs

    m = FakeMachine(tmp_path)
    model = m.model("X")
    assert model_configs(["vllm", "serve", model, f"--model={model}", str(tmp_path), "--x"]) == {
        model: f"{model}/config.json"}
