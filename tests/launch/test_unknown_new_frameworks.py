"""Unknown stays unknown in the frameworks added after issue 20 (harden2 audit), checked as a user runs moecfg:
a launch that sets HCCL_BUFFSIZE to a value moecfg cannot know (`export HCCL_BUFFSIZE=$BUF`, or `"$BUF"` in MindIE's
env file) gets no buffer verdict computed from HCCL's 200 MB default (nor MindIE set_env.sh's 120), and one MC023
names the rule not checked; not setting it still runs with the default, and a known value too small is still an
error. A size flag set to an unknown value never falls back to the framework's default.

The MB each op needs is the op's own formula (tests/test_formulas_ascend.py tests it), read here from the error a
too small value gets: vllm-mindspore 1152 (A3, EP 16, bs 512 fixed by global_bs 512 x EP), LMDeploy 239 (bs 32 =
capacity min(256 x (1 + 1), 512) / TP 16), xLLM 1112 (bs 256, EP 16), MindIE 1912 (bs 256, EP 64)."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from moecfg.cli import cli

SETTINGS = "product: A3\ncann_version: 9.0.1\nframework_versions: {vllm-mindspore: 0.6.0rc1, lmdeploy: 0.16.0, " \
    "xllm: main}\n"
VMS = "export VLLM_MS_MODEL_BACKEND=Native\n{env}vllm-mindspore serve Qwen/Qwen3-235B-A22B --enable-expert-parallel " \
    "--tensor-parallel-size 16 --max-num-batched-tokens 512\n"
LMD = "{env}lmdeploy serve api_server deepseek-ai/DeepSeek-V3 --backend pytorch --device ascend --tp 16 --dp 2 " \
    "--ep 32 --max-batch-size 256 --speculative-algorithm eagle --speculative-num-draft-tokens 1{extra}\n"
XLLM = "{env}xllm --model /models/deepseek-ai/DeepSeek-V4-Flash --devices=npu:0 --nnodes=16 " \
    "--npu_kernel_backend=TORCH --ep_size=16 --expert_parallel_degree=2 --enable_fused_mc2=0 " \
    "--max_seqs_per_batch=256{extra}\n"
SCRIPTS = {"vllm-mindspore": (VMS, 1152), "lmdeploy": (LMD, 239), "xllm": (XLLM, 1112)}


def check(tmp_path, files: dict[str, str], fmt: str = "text", command: str = "check"):
    (tmp_path / ".moecfg.yaml").write_text(SETTINGS)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    args = [command, str(tmp_path)] if command == "explain-launch" else [command, "--format", fmt, str(tmp_path)]
    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.output


def script(framework: str, env: str | None, extra: str = "") -> str:
    text, _ = SCRIPTS[framework]
    return text.format(env="" if env is None else f"export HCCL_BUFFSIZE={env}\n", extra=extra)


@pytest.mark.parametrize("framework", SCRIPTS)
@pytest.mark.parametrize("value", ["$BUF", "${BUF}", "$(cat buf)", "abc"])
def test_an_unknown_buffsize_gets_no_verdict_from_the_default(tmp_path, framework, value):
    status, out = check(tmp_path, {"run.sh": script(framework, value)})
    assert status == 0, out
    assert "MC501 error" not in out
    info = next(line for line in out.splitlines() if "MC023" in line and "HCCL_BUFFSIZE" in line)
    assert "not checked against it: MC501" in info


@pytest.mark.parametrize("framework", SCRIPTS)
def test_unset_and_too_small_are_still_errors(tmp_path, framework):
    _, needed = SCRIPTS[framework]
    for value in (None, str(needed - 1)):  # unset: HCCL's 200 MB default runs, below every need here
        status, out = check(tmp_path, {"run.sh": script(framework, value)})
        assert status == 1 and "MC501 error" in out and f">= {needed}" in out, (value, out)
    status, out = check(tmp_path, {"run.sh": script(framework, str(needed))})
    assert "MC501 error" not in out, out


def test_vllm_mindspore_json_keeps_the_need_and_drops_the_verdict(tmp_path):
    _, out = check(tmp_path, {"run.sh": script("vllm-mindspore", "$BUF")}, "json")
    ep = [r for r in json.loads(out)["results"] if r.get("buffers")][0]["buffers"]["ep"]
    assert ep["configured_mb"] is None and ep["sufficient"] is None and ep["required_mb"] == 1152


def test_lmdeploy_batch_size_unknown_is_not_the_default(tmp_path):
    # LMDeploy's own default (256 on Ascend) must not stand in for `--max-batch-size $BS`
    status, out = check(tmp_path, {"run.sh": script("lmdeploy", "4096").replace("--max-batch-size 256",
                                                                                "--max-batch-size $BS")}, "json")
    results = json.loads(out)["results"]
    assert not [r for r in results if r.get("op") == "dispatch_combine_v2"]
    notes = [d["message"] for r in results for d in r["diagnostics"] if d["code"] == "MC023"]
    assert any(m.startswith("--max-batch-size: the value is not known statically") for m in notes)


@pytest.mark.parametrize("extra, code", [(" --max-prefill-token-num -1", "MC025"), (" --max-batch-size -5", "MC023")])
def test_lmdeploy_negative_sizes_are_said_not_computed(tmp_path, extra, code):
    # before: capacity min(-5 x 2, 512) = -10 -> bs -1 and an MC103 on a value no launch has
    status, out = check(tmp_path, {"run.sh": script("lmdeploy", "4096", extra)})
    assert f"{code} " in out and "MC103" not in out, out


def test_xllm_dp_unknown_leaves_global_bs_underived(tmp_path):
    # xLLM passes 0 under DP > 1 and rows x EP at DP 1 (fused_moe.cpp:1413-1420): no default DP 1 decides it
    status, out = check(tmp_path, {"run.sh": script("xllm", "4096", " --dp_size=$DP")}, "json")
    results = json.loads(out)["results"]
    call = next(r for r in results if r.get("op") == "dispatch_combine_v2")
    assert "global_bs" not in call["arguments"] and call["arguments"]["bs"] == 256
    assert any(d["message"].startswith("--dp_size: the value is not known statically") for d in call["diagnostics"])
    status, out = check(tmp_path, {"run.sh": script("xllm", "4096", " --dp_size=1")}, "json")
    call = next(r for r in json.loads(out)["results"] if r.get("op") == "dispatch_combine_v2")
    assert call["arguments"]["global_bs"] == 256 * 16  # rows 256 x EP 16


@pytest.mark.parametrize("flag", ["--max_seqs_per_batch=$S", "--num_speculative_tokens $N"])
def test_xllm_decode_rows_unknown_are_said(tmp_path, flag):
    status, out = check(tmp_path, {"run.sh": script("xllm", "4096", " " + flag)}, "json")
    results = json.loads(out)["results"]
    call = next(r for r in results if r.get("op") == "dispatch_combine_v2")
    assert "bs" not in call["arguments"]  # not the default 1024 sequences
    name = flag.split("=")[0].split()[0]
    assert any(d["code"] == "MC023" and d["message"].startswith(f"{name}: the value is not known statically")
               for r in results for d in r["diagnostics"])


# ---- MindIE: conf/mindie_env.json ----------------------------------------------------------------------------------
MINDIE = {"BackendConfig": {"npuDeviceIds": [list(range(16))], "ModelDeployConfig": {"ModelConfig": [
    {"modelName": "DeepSeek-V3", "worldSize": 64, "backendType": "torch", "dp": 64, "tp": 1, "moe_tp": 1,
     "moe_ep": 64}]}, "ScheduleConfig": {"maxBatchSize": 256, "maxPrefillTokens": 8192}}}


def mindie(value) -> dict[str, str]:
    files = {"conf/config.json": json.dumps(MINDIE, indent=1)}
    if value is not None:
        files["conf/mindie_env.json"] = json.dumps({"mindie_common_env": {"HCCL_BUFFSIZE": value}})
    return files


@pytest.mark.parametrize("value", ["$BUF", "${HCCL_BUFFSIZE_MB}", "`cat f`"])
def test_mindie_env_file_value_left_to_the_shell_is_unknown(tmp_path, value):
    status, out = check(tmp_path, mindie(value))
    assert status == 0 and "MC501 error" not in out and "MC992" not in out, out
    info = next(line for line in out.splitlines() if "MC023" in line and "HCCL_BUFFSIZE" in line)
    assert "not checked against it: MC501" in info


def test_mindie_known_values_are_still_judged(tmp_path):
    status, out = check(tmp_path, mindie(1911))
    assert status == 1 and "MC501 error" in out and ">= 1912" in out
    status, out = check(tmp_path, mindie("12abc"))  # int() refuses it at start-up: MindIE's ValueError
    assert status == 1 and "MC992 error" in out


# ---- MindSpeed: HCCL_BUFFSIZE and --hccl-group-buffer ----------------------------------------------------------------
MS = "{env}msrun --worker_num 16 --local_worker_num 16 pretrain_gpt.py --num-experts 256 --moe-token-dispatcher-type " \
    "alltoall --hidden-size 7168 --seq-length 4096 --moe-router-topk 8 --tensor-model-parallel-size 2 " \
    "--expert-model-parallel-size 8 --hccl-group-buffer-adaptive{extra}\n"


@pytest.mark.parametrize("env, extra, said", [
    ("export HCCL_BUFFSIZE=$BUF\n", "", "HCCL_BUFFSIZE=(not known statically)"),
    ("export HCCL_BUFFSIZE=0\n", "", "HCCL_BUFFSIZE=0"),
    ("", " --hccl-group-buffer $GROUPS", "--hccl-group-buffer: the value is not known statically"),
])
def test_mindspeed_unknown_buffers_build_no_memory_table(tmp_path, env, extra, said):
    status, out = check(tmp_path, {"train.sh": MS.format(env=env, extra=extra)}, "json")
    results = json.loads(out)["results"]
    assert not any((r.get("derived") or {}).get("memory_budget") for r in results)
    notes = [d["message"] for r in results for d in r["diagnostics"] if d["code"] == "MC023"]
    assert any(m.startswith(said) and "MC928" in m for m in notes), notes


def test_mindspeed_known_buffsize_is_still_judged(tmp_path):
    # dp_cp and ep keep HCCL_BUFFSIZE: 2 x 99999999 MB each is far above a 64 GB die (MC928)
    status, out = check(tmp_path, {"train.sh": MS.format(env="export HCCL_BUFFSIZE=99999999\n", extra="")})
    assert status == 1 and "MC928 error" in out


@pytest.mark.parametrize("workers", ["0", "-1", "$WORKERS", "1" * 30])
def test_mindspeed_worker_count_not_usable_is_said(tmp_path, workers):
    text = MS.format(env="", extra="").replace("--worker_num 16", f"--worker_num {workers}")
    status, out = check(tmp_path, {"train.sh": text})
    assert re.search(r"MC023 info: (msrun )?--worker_num .*no positive process count known statically", out), out


def test_vllm_mindspore_unknown_additional_config_makes_pure_ep_an_if(tmp_path):
    # additional_config expert_parallel below tp x dp makes it TP + EP (no MC2): with the config not known, the pure-EP
    # verdicts (MC922 here: 2048 default tokens > 512) are warnings saying so, never errors from its absence
    text = VMS.format(env="export HCCL_BUFFSIZE=4096\n").replace(" --max-num-batched-tokens 512", "")
    status, out = check(tmp_path, {"run.sh": text})
    assert status == 1 and "MC922 error" in out
    unknown_config = text.replace(" --tensor-parallel-size 16", " --tensor-parallel-size 16 --additional-config \"$CFG\"")
    assert unknown_config != text
    status, out = check(tmp_path, {"run.sh": unknown_config})
    assert "MC922 error" not in out and "MC922 warning: if the --additional-config not known statically sets no " \
        "expert_parallel" in out, out
