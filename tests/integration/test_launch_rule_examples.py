"""The failing examples of the launch rules of LMDeploy, xLLM, vllm-mindspore, MindSpeed and MindIE (MC910-MC929,
MC990-MC997) really fail, and the launch with the rule's fix applied passes.

Their `fail_text` describes a launch in words (test_rule_docs.py cannot lint it as YAML). Here each failing launch
is built around the text the rule doc quotes in backticks (every quoted fragment must appear in it, so the doc
cannot drift from what fires), checked as a user would, and the rule must fire; the passing launch applies the
rule's fix and the rule must stay silent.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from moecfg.checking.engine import check_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy
from moecfg.render.rule_docs import all_docs

DOCS = {d.code: d for d in all_docs()}
NEW = sorted(c for c in DOCS if 910 <= int(c[2:]) <= 929 or 990 <= int(c[2:]) <= 997)

LMD = "export HCCL_BUFFSIZE=1024\n{}\n"
XLLM = "export HCCL_BUFFSIZE=1024\nxllm {} --model deepseek-ai/DeepSeek-V3 --node_rank=0\n"
MSP = ("export HCCL_BUFFSIZE={buf}\n{launcher} pretrain_gpt.py --tensor-model-parallel-size {tp} "
       "--expert-model-parallel-size {ep} --expert-tensor-parallel-size 1 --num-experts 64 --moe-router-topk 4 "
       "--hidden-size 4096 --seq-length 4096 --micro-batch-size 1 --moe-token-dispatcher-type alltoall {more}\n")


def msp(more: str = "", tp: int = 2, ep: int = 8, buf: int = 1024, launcher: str = "torchrun --nproc_per_node 16 "
        "--nnodes 1") -> str:
    return MSP.format(more=more, tp=tp, ep=ep, buf=buf, launcher=launcher)


def mindie(entry: str, schedule: str = '"maxBatchSize": 16, "maxPrefillTokens": 4096', env: str | None =
           '"HCCL_BUFFSIZE": 2048', models: str = "") -> dict[str, str]:
    """conf/config.json with one ModelConfig entry written as the rule doc quotes it (one line, its key order)."""
    extra = f", {models}" if models else ""
    config = ('{"BackendConfig": {"npuDeviceIds": [[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]],\n'
              ' "ModelDeployConfig": {"ModelConfig": [{"modelName": "DeepSeek-V3", ' + entry + extra + '}]},\n'
              ' "ScheduleConfig": {' + schedule + '}}}\n')
    json.loads(config)  # the case itself is valid JSON
    files = {"conf/config.json": config}
    if env is not None:
        files["conf/mindie_env.json"] = '{"mindie_common_env": {' + env + '}}\n'
    return files


TORCH16 = '"worldSize": 16, "backendType": "torch", "dp": 16, "tp": 1'
ATB = '"worldSize": 16, "backendType": "atb", "dp": 1, "tp": 16, "moe_tp": 1, "moe_ep": 16'
V31 = '"vllm-mindspore": "0.5.1"'

# code -> (failing files, passing files, extra settings); the first file is the one checked.
CASES = {
    "MC910": ({"a.sh": LMD.format("lmdeploy serve api_server /models/dsv3 --backend pytorch --device ascend --dp 2")},
              {"a.sh": LMD.format("lmdeploy serve api_server /models/dsv3 --backend pytorch --device ascend --dp 2 "
                                  "--tp 2")}, {}),
    "MC911": ({"a.sh": LMD.format("lmdeploy serve api_server m --device ascend --tp 8 --dp 2 --ep 32")},
              {"a.sh": LMD.format("lmdeploy serve api_server m --device ascend --tp 16 --dp 2 --ep 32")}, {}),
    "MC912": ({"a.sh": LMD.format("lmdeploy serve api_server m --device ascend --tp 8 --dp 3 --ep 24 --nnodes 2 "
                                  "--node-rank 0")},
              {"a.sh": LMD.format("lmdeploy serve api_server m --device ascend --tp 8 --dp 4 --ep 32 --nnodes 2 "
                                  "--node-rank 0")}, {}),
    "MC913": ({"a.sh": LMD.format("lmdeploy serve api_server deepseek-ai/DeepSeek-V3 --device ascend --tp 24 "
                                  "--ep 24")},
              {"a.sh": LMD.format("lmdeploy serve api_server deepseek-ai/DeepSeek-V3 --device ascend --tp 16 "
                                  "--ep 16")}, {}),
    "MC914": ({"a.sh": LMD.format("lmdeploy serve api_server m --backend pytorch --device ascend "
                                  "--cache-max-entry-count 1.0")},
              {"a.sh": LMD.format("lmdeploy serve api_server m --backend pytorch --device ascend "
                                  "--cache-max-entry-count 0.8")}, {}),
    "MC915": ({"a.sh": XLLM.format("--devices npu:0 --nnodes 16 --dp_size 3")},
              {"a.sh": XLLM.format("--devices npu:0 --nnodes 16 --dp_size 4")}, {}),
    "MC916": ({"a.sh": XLLM.format("--devices npu:0 --nnodes 16 --ep_size 5")},
              {"a.sh": XLLM.format("--devices npu:0 --nnodes 16 --ep_size 16")}, {}),
    "MC917": ({"a.sh": XLLM.format("--devices npu:0 --nnodes 16 --rank_tablefile ranktable.json "
                                   "--communication_backend lccl")},
              {"a.sh": XLLM.format("--devices npu:0 --nnodes 16 --rank_tablefile ranktable.json "
                                   "--communication_backend hccl")}, {}),
    "MC919": ({"a.sh": XLLM.format("--devices npu:0 --nnodes 32 --ep_size 16 --expert_parallel_degree 2")},
              {"a.sh": XLLM.format("--devices npu:0 --nnodes 32 --ep_size 32 --expert_parallel_degree 2")}, {}),
    "MC921": ({"a.sh": "vllm-mindspore serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 6 --enable-expert-parallel\n"},
              {"a.sh": "vllm-mindspore serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 8 --enable-expert-parallel\n"},
              {}),
    "MC922": ({"a.sh": "vllm-mindspore serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 16 "
                       "--enable-expert-parallel\n"},
              {"a.sh": "vllm-mindspore serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 16 "
                       "--enable-expert-parallel --max-num-batched-tokens 512\n"}, {}),
    "MC923": ({"a.sh": "vllm-mindspore serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 4 --enable-expert-parallel\n"},
              {"a.sh": "vllm-mindspore serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 4\n"},
              {"framework_versions": json.loads("{" + V31 + "}")}),
    "MC924": ({"a.sh": "export VLLM_MS_MODEL_BACKEND=MindFormer\nvllm-mindspore serve Qwen/Qwen3-235B-A22B "
                       "--tensor-parallel-size 16\n"},
              {"a.sh": "export VLLM_MS_MODEL_BACKEND=MindFormers\nvllm-mindspore serve Qwen/Qwen3-235B-A22B "
                       "--tensor-parallel-size 16\n"}, {}),
    "MC925": ({"a.sh": msp('--hccl-group-buffer "dp:200;tp:300;" --hccl-group-buffer-adaptive') +
               msp('--hccl-group-buffer "dp:200;moe:400" --hccl-group-buffer-adaptive')},
              {"a.sh": msp('--hccl-group-buffer "dp:200;tp:300" --hccl-group-buffer-adaptive')}, {}),
    "MC926": ({"a.sh": msp("--moe-tp-extend-ep --moe-token-dispatcher-type alltoall_seq --moe-grouped-gemm")},
              {"a.sh": msp("--moe-tp-extend-ep --moe-token-dispatcher-type alltoall_seq --moe-grouped-gemm "
                           "--moe-permutation-async-comm")}, {}),
    # world 16 is not a multiple of expert-TP 2 (= TP) x EP 6 x PP 2 = 24; the fix: EP 4 (2 x 4 x 2 = 16)
    "MC927": ({"a.sh": "msrun --worker_num 16 --local_worker_num 16 pretrain_gpt.py --tensor-model-parallel-size 2 "
                       "--pipeline-model-parallel-size 2 --expert-model-parallel-size 6 --num-experts 48\n"},
              {"a.sh": "msrun --worker_num 16 --local_worker_num 16 pretrain_gpt.py --tensor-model-parallel-size 2 "
                       "--pipeline-model-parallel-size 2 --expert-model-parallel-size 4 --num-experts 48\n"}, {}),
    # 4 step groups x 2 x 9000 MB = 70.3 GiB > 64; the fix: 11 groups x 2 x 2000 MB = 43 GiB
    "MC928": ({"a.sh": msp(tp=8, ep=8, buf=9000)}, {"a.sh": msp(tp=8, ep=8, buf=2000)}, {}),
    "MC929": ({"a.sh": msp('--hccl-group-buffer "dp:200;tp:300;exp:400"')},
              {"a.sh": msp('--hccl-group-buffer "dp:200;tp:300;ep:400" --hccl-group-buffer-adaptive')}, {}),
    "MC990": (mindie('"worldSize": 16, "backendType": "torch", "moe_ep": 16, "dp": 16, "tp": 1'),
              mindie('"worldSize": 16, "backendType": "torch", "moe_ep": 16, "moe_tp": 1, "dp": 16, "tp": 1'), {}),
    "MC991": (mindie('"backendType": "torch", "worldSize": 16, "dp": 16, "tp": 1, "moe_tp": 1, "moe_ep": 16',
                     env='"HCCL_EXEC_TIMEOUT": 1200'),
              mindie(TORCH16 + ', "moe_tp": 1, "moe_ep": 16'), {}),
    "MC992": (mindie(TORCH16 + ', "moe_tp": 1, "moe_ep": 16', env='"HCCL_BUFFSIZE": "1G"'),
              mindie(TORCH16 + ', "moe_tp": 1, "moe_ep": 16', env='"HCCL_BUFFSIZE": 1050'), {}),
    "MC994": (mindie('"worldSize": 16, "dp": 16, "backendType": "torch", "tp": 1, "moe_ep": 16, "moe_tp": 1',
                     schedule='"maxBatchSize": 16, "maxPrefillTokens": 8192'),
              mindie('"worldSize": 16, "dp": 16, "backendType": "torch", "tp": 1, "moe_ep": 16, "moe_tp": 1',
                     schedule='"maxBatchSize": 16, "maxPrefillTokens": 4096'), {}),
    "MC995": (mindie('"dp": 2, "tp": 8, "backendType": "torch", "worldSize": 16, "moe_tp": 2, "moe_ep": 8'),
              mindie('"dp": 2, "tp": 8, "backendType": "torch", "worldSize": 16, "moe_tp": 1, "moe_ep": 16'), {}),
    "MC996": (mindie(ATB, models='"models": {"deepseekv2": {"parallel_options": {"hccl_moe_ep_buffer": 256}}}'),
              mindie(ATB, models='"models": {"deepseekv2": {"parallel_options": {"hccl_moe_ep_buffer": 2048}}}'),
              {}),
    # ceil(ceil(4096 / 16) x 7168 x 256 x 4 B / MiB) + 1 = 1793 MB > 512: atb raises it; the fix writes 1793
    "MC997": (mindie(ATB, schedule='"maxBatchSize": 4096, "maxPrefillTokens": 8192', env='"HCCL_BUFFSIZE": 512',
                     models='"models": {"deepseekv2": {"ep_level": 2, "parallel_options": {"hccl_moe_ep_buffer": '
                            '512}}}'),
              mindie(ATB, schedule='"maxBatchSize": 4096, "maxPrefillTokens": 8192', env='"HCCL_BUFFSIZE": 512',
                     models='"models": {"deepseekv2": {"ep_level": 2, "parallel_options": {"hccl_moe_ep_buffer": '
                            '1793}}}'), {}),
}
# Infos every recognised launch gets: the failing example is any launch; nothing to fix, so no passing launch.
INFOS = {"MC918": XLLM.format("--devices npu:0 --nnodes 16 --ep_size 16"),
         "MC920": "vllm-mindspore serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 16 --enable-expert-parallel\n",
         "MC993": mindie(TORCH16 + ', "moe_tp": 1, "moe_ep": 16')}


def codes(tmp_path: Path, files: dict[str, str], settings: dict) -> list[str]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    first = tmp_path / next(iter(files))
    policy = FilePolicy(Config(product="A3", cann_version="9.0.1", **settings), Cli())
    return [d.code for r in check_bytes(first.read_bytes(), str(first), policy=policy).results for d in r.diagnostics]


def quoted(code: str) -> list[str]:
    """The launch text the rule doc quotes in backticks, '...' elisions cut at."""
    parts = re.findall(r"`([^`]+)`", DOCS[code].fail_text)
    return [piece.strip() for p in parts for piece in p.split("...") if piece.strip()]


def test_every_new_launch_code_has_a_case():
    assert set(CASES) | set(INFOS) == set(NEW)


@pytest.mark.parametrize("code", sorted(CASES))
def test_fail_text_fires_and_the_fix_passes(tmp_path, code):
    failing, passing, settings = CASES[code]
    text = "".join(failing.values())
    missing = [q for q in quoted(code) if q not in text]
    assert not missing, f"{code}: the doc's example is not the launch tested: {missing}"
    assert code in codes(tmp_path / "fail", failing, settings)
    assert code not in codes(tmp_path / "pass", passing, settings)


@pytest.mark.parametrize("code", sorted(INFOS))
def test_launch_infos_fire_on_a_recognised_launch(tmp_path, code):
    files = INFOS[code] if isinstance(INFOS[code], dict) else {"a.sh": INFOS[code]}
    assert code in codes(tmp_path, files, {})
