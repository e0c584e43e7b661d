"""What a user reads from the new frameworks' findings (LMDeploy, xLLM, vllm-mindspore, MindSpeed, MindIE): one
finding per cause, a fix in the user's own knobs with the value, positions at the key, derivations with a source,
no Python reprs, and `explain` naming whose error it quotes. Properties, not wording."""
from __future__ import annotations

import json
from pathlib import Path

from moecfg.checking.engine import check_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy
from integration_helpers import run  # noqa: F401  (pytest fixture)


def check(tmp_path: Path, files: dict[str, str], **settings):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    first = tmp_path / next(iter(files))
    policy = FilePolicy(Config(product="A3", cann_version="9.0.1", **settings), Cli())
    results = check_bytes(first.read_bytes(), str(first), policy=policy).results
    return results, [d for r in results for d in r.diagnostics]


def at(text: str, diag) -> str:
    """The text at the finding's line:col."""
    return text.splitlines()[diag.line - 1][diag.column - 1:]


def test_lmdeploy_dist_fix_names_the_tp_to_set_and_what_it_must_divide(tmp_path):
    text = "lmdeploy serve api_server m --device ascend --tp 8 --dp 2 --ep 32\n"
    _, diags = check(tmp_path, {"a.sh": text})
    [hit] = [d for d in diags if d.code == "MC911"]
    fix = hit.message.split(";", 1)[1]  # after the cause: the fix
    # --ep 32 / --dp 2 = 16 ranks per DP group: --tp 16, a divisor of 32 and a multiple of 16
    assert "--tp 16" in fix and "--ep 32" in fix and "multiple of 16" in fix and "of it" not in fix
    assert at(text, hit).startswith("--tp 8")


def test_xllm_launch_info_does_not_repeat_the_no_mc2_reason(tmp_path):
    text = "xllm --model deepseek-ai/DeepSeek-V3 --devices npu:0 --nnodes 16 --ep_size 16 --node_rank 0\n"
    _, diags = check(tmp_path, {"a.sh": text})
    [no_op] = [d.message for d in diags if d.code == "MC041"]
    [summary] = [d.message for d in diags if d.code == "MC918"]
    assert no_op not in summary and "MC041" in summary  # the summary points at the finding that says why


def test_explain_launch_shows_booleans_as_written_in_yaml(run, tmp_path):
    script = tmp_path / "x.sh"
    script.write_text("export HCCL_BUFFSIZE=2048\nxllm --model deepseek-ai/DeepSeek-V4-Flash --devices npu:0 "
                      "--nnodes 16 --ep_size 16 --dp_size 16 --expert_parallel_degree 2 --npu_kernel_backend TORCH "
                      "--enable_fused_mc2 0 --node_rank 0\n")
    out = run("explain-launch", "--product", "A3", script).stdout
    [line] = [x for x in out.splitlines() if x.strip().startswith("expert_scales =")]
    assert line.split("=", 1)[1].split()[0] == "true" and "True" not in line


def test_ep_size_derivations_cite_the_framework_source(tmp_path):
    vms, _ = check(tmp_path / "v", {"a.sh": "export HCCL_BUFFSIZE=2048\nvllm-mindspore serve Qwen/Qwen3-235B-A22B "
                                    "--tensor-parallel-size 16 --enable-expert-parallel\n"})
    lmd, _ = check(tmp_path / "l", {"a.sh": "export HCCL_BUFFSIZE=1024\nlmdeploy serve api_server "
                                    "deepseek-ai/DeepSeek-V3 --device ascend --tp 16 --dp 2 --ep 32 --nnodes 2 "
                                    "--node-rank 0\n"})
    for results in (vms, lmd):
        how = [r.derivation["ep_world_size"] for r in results if r.derivation and "ep_world_size" in r.derivation]
        assert how and all(".py:" in h for h in how), how


def test_a_finding_repeated_by_every_phase_is_reported_once(tmp_path):
    # 128 experts over EP 6 (MC921) and a 100 MB buffer (MC501): the same cause in the prefill and decode calls
    text = ("export HCCL_BUFFSIZE=100\nvllm-mindspore serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 6 "
            "--enable-expert-parallel --max-num-batched-tokens 512\n")
    results, diags = check(tmp_path, {"a.sh": text})
    assert len([r for r in results if r.op not in (None, "none")]) == 2  # both phases are still derived
    for code in ("MC921", "MC501"):
        said = [(d.line, d.column, d.message) for d in diags if d.code == code]
        assert said and len(said) == len(set(said)), (code, said)
    assert [at(text, d) for d in diags if d.code == "MC921"][0].startswith("--tensor-parallel-size 6")


def mindie(tmp_path: Path, entry: dict, schedule: dict, env: dict | None = None):
    backend = {"npuDeviceIds": [list(range(16))], "ModelDeployConfig": {"ModelConfig": [
        {"modelName": "DeepSeek-V3", **entry}]}, "ScheduleConfig": schedule}
    files = {"conf/config.json": json.dumps({"BackendConfig": backend}, indent=2)}
    files["conf/mindie_env.json"] = json.dumps({"mindie_common_env": env or {"HCCL_BUFFSIZE": 2048}})
    _, diags = check(tmp_path, files)
    return files["conf/config.json"], diags


def test_mindie_moe_tp_strategy_failure_is_one_finding_at_moe_tp(tmp_path):
    text, diags = mindie(tmp_path, {"worldSize": 16, "backendType": "torch", "dp": 2, "tp": 8, "moe_tp": 2,
                                    "moe_ep": 8}, {"maxBatchSize": 16, "maxPrefillTokens": 4096})
    [hit] = [d for d in diags if d.code == "MC995"]  # decode and prefill fail for the same moe_tp
    assert at(text, hit).startswith("2") and '"moe_tp"' in text.splitlines()[hit.line - 1]
    assert '"moe_tp": 1' in hit.message and '"moe_ep": 16' in hit.message  # 1 x 16 = worldSize 16


def test_mindie_atb_refusal_names_the_key_and_floor_and_the_summary_says_refused(tmp_path):
    text, diags = mindie(tmp_path, {"worldSize": 16, "backendType": "atb", "dp": 1, "tp": 16, "moe_tp": 1,
                                    "moe_ep": 16, "models": {"deepseekv2": {"parallel_options": {
                                        "hccl_moe_ep_buffer": 256}}}}, {"maxBatchSize": 16})
    [hit] = [d for d in diags if d.code == "MC996"]
    fix = hit.message.rsplit(";", 1)[1]
    assert "hccl_moe_ep_buffer" in fix and "2048" in fix  # floor max(512, HCCL_BUFFSIZE 2048)
    assert '"hccl_moe_ep_buffer"' in text.splitlines()[hit.line - 1]
    [summary] = [d.message for d in diags if d.code == "MC993"]
    assert "refused MB" not in summary and "MC996" in summary


MSP = ("torchrun --nproc_per_node 16 --nnodes 1 pretrain_gpt.py --tensor-model-parallel-size {tp} "
       "--expert-model-parallel-size {ep} --num-experts 64 --moe-router-topk 4 --moe-token-dispatcher-type alltoall "
       "{more}\n")


def test_mindspeed_group_buffer_refusal_shows_the_text_as_written_and_the_ep_group(tmp_path):
    text = MSP.format(tp=2, ep=8, more='--hccl-group-buffer "dp:200;moe:400" --hccl-group-buffer-adaptive')
    _, diags = check(tmp_path, {"a.sh": text})
    [hit] = [d for d in diags if d.code == "MC925"]
    assert '"dp:200;moe:400"' in hit.message and "'dp:200;moe:400'" not in hit.message  # no Python repr
    groups = hit.message.split("groups from", 1)[1].split("...", 1)[0]
    assert "ep" in [g.strip() for g in groups.split(",")] and "exp" not in groups.split(",")
    assert at(text, hit).startswith("--hccl-group-buffer")


def test_mindspeed_world_size_fix_names_the_flag_and_a_value_that_divides(tmp_path):
    # world 16, expert-TP 8 (= TP) x EP 8 x PP 1 = 64: EP 2 gives 8 x 2 = 16
    text = "export HCCL_BUFFSIZE=1000\n" + MSP.format(tp=8, ep=8, more="")
    _, diags = check(tmp_path, {"a.sh": text})
    [hit] = [d for d in diags if d.code == "MC927"]
    assert "--expert-model-parallel-size 2" in hit.message and "64" in hit.message
    assert at(text, hit).startswith("--expert-model-parallel-size 8")  # at the flag the fix names


def test_explain_names_whose_error_the_rule_quotes(run):
    assert "LMDeploy's error:" in run("explain", "MC911").stdout
    assert "MindIE's error:" in run("explain", "MC990").stdout
    assert "Megatron's error:" in run("explain", "MC927").stdout
    assert "CANN's error:" in run("explain", "MC921").stdout  # vllm-mindspore's MC2 refusal is CANN's own text
    assert "CANN's error:" in run("explain", "MC201").stdout


def test_lmdeploy_nodes_message_names_a_single_missing_rank_plainly(tmp_path):
    # --dp 3 over 2 nodes: 3 // 2 = 1 server per node, DP rank 2 never starts
    text = "lmdeploy serve api_server m --device ascend --tp 8 --dp 3 --ep 24 --nnodes 2 --node-rank 0\n"
    _, diags = check(tmp_path, {"a.sh": text})
    [hit] = [d for d in diags if d.code == "MC912"]
    assert "DP rank 2 " in hit.message and "2..2" not in hit.message
