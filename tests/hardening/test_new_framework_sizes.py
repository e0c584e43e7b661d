"""Issue 20 item 1 for the frameworks added after it (harden2): zero, negative and huge values in each framework's
size flags / keys are the framework's refusal (MC025, an error naming the flag or key) or an unknown value (MC023,
naming it), never an exception (MC019), a division by zero or an op argument computed from them."""
from __future__ import annotations

import json

import pytest

from moecfg.checking.engine import check_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy

CONFIG = Config(product="A3", cann_version="9.0.1", framework_versions={"vllm-mindspore": "0.6.0rc1",
                                                                        "lmdeploy": "0.16.0", "xllm": "main"})
HUGE = "1" * 30  # past 64 bits: no size moecfg reads (values.integer)
LMD = "lmdeploy serve api_server deepseek-ai/DeepSeek-V3 --device ascend --tp 16 --dp 2 --ep 32 {}\n"
XLLM = "xllm --model /models/deepseek-ai/DeepSeek-V4-Flash --devices=npu:0 --nnodes=16 --npu_kernel_backend=TORCH " \
    "--ep_size=16 --expert_parallel_degree=2 --enable_fused_mc2=0 {}\n"
VMS = "export VLLM_MS_MODEL_BACKEND=Native\nvllm-mindspore serve Qwen/Qwen3-235B-A22B --enable-expert-parallel " \
    "--tensor-parallel-size 16 {}\n"
MS = "msrun --worker_num {w} pretrain_gpt.py --num-experts 8 --expert-model-parallel-size {ep} --micro-batch-size {mbs}\n"


def diagnostics(text: str, name: str = "run.sh"):
    done = check_bytes(text.encode(), name, policy=FilePolicy(CONFIG, Cli()))
    return done.results, [d for r in done.results for d in r.diagnostics]


@pytest.mark.parametrize("text, code, named", [
    (LMD.format("--ep 0"), "MC025", "`--ep 0`"), (LMD.format("--tp -1"), "MC025", "`--tp -1`"),
    (LMD.format("--dp 0"), "MC025", "`--dp 0`"), (LMD.format(f"--ep {HUGE}"), "MC023", "--ep '"),
    (LMD.format("--max-prefill-token-num -1"), "MC025", "`--max-prefill-token-num -1`"),
    (LMD.format("--max-batch-size -5"), "MC023", "`--max-batch-size -5`"),
    (LMD.format("--speculative-algorithm eagle --speculative-num-draft-tokens -3"), "MC023",
     "`--speculative-num-draft-tokens -3`"),
    (XLLM.format("--ep_size 0"), "MC025", "`--ep_size 0`"), (XLLM.format("--ep_size=-1"), "MC025", "`--ep_size -1`"),
    (XLLM.format("--ep_size=0x0"), "MC025", "`--ep_size 0`"), (XLLM.format("-dp_size=0"), "MC025", "`--dp_size 0`"),
    (XLLM.format("--nnodes=0"), "MC025", "`--nnodes 0`"),
    (XLLM.format("--ep_size=4294967297"), "MC025", "--ep_size '4294967297'"),  # past int32: gflags refuses it
    (XLLM.format(f"--max_seqs_per_batch={HUGE}"), "MC025", "--max_seqs_per_batch '"),
    (XLLM.format("--max_seqs_per_batch=0"), "MC023", "`--max_seqs_per_batch 0`"),
    (XLLM.format("--num_speculative_tokens=-1"), "MC023", "`--num_speculative_tokens -1`"),
    (VMS.format("--data-parallel-size 0"), "MC025", "`--data-parallel-size 0`"),
    (VMS.format("--data-parallel-size -1"), "MC025", "`--data-parallel-size -1`"),
    (VMS.format(f"--data-parallel-size {HUGE}"), "MC023", "--data-parallel-size '"),
    (VMS.format("--additional-config '{\"expert_parallel\": 0}'"), "MC023", "expert_parallel=0"),
    (VMS.format(f"--additional-config '{{\"expert_parallel\": {HUGE}}}'"), "MC023", "expert_parallel="),
    (MS.format(w=16, ep=0, mbs=1), "MC025", "`--expert-model-parallel-size 0`"),
    (MS.format(w=16, ep=2, mbs=0).replace("\n", " --hidden-size 7168 --seq-length 4096 --moe-token-dispatcher-type "
                                          "alltoall --hccl-group-buffer-adaptive\n"), "MC025", "`--micro-batch-size 0`"),
    (MS.format(w=0, ep=2, mbs=1), "MC023", "msrun --worker_num 0"),
    (MS.format(w=-8, ep=2, mbs=1), "MC023", "msrun --worker_num -8"),
    (MS.format(w=HUGE, ep=2, mbs=1), "MC023", "msrun --worker_num 111"),
], ids=lambda v: v[:50] if isinstance(v, str) else None)
def test_sizes_below_one_or_huge_are_refused_or_unknown(text, code, named):
    results, diags = diagnostics(text)
    assert "MC019" not in [d.code for d in diags]
    hits = [d for d in diags if d.code == code and named in d.message]
    assert hits, [(d.code, d.message[:120]) for d in diags]
    assert hits[0].severity == ("error" if code == "MC025" else "info")
    assert not [r for r in results if r.op not in (None, "none") and (r.arguments or {}).get("bs", 1) < 1]


ENTRY = {"modelName": "DeepSeek-V3", "worldSize": 16, "backendType": "torch", "dp": 16, "tp": 1, "moe_tp": 1,
         "moe_ep": 16}


@pytest.mark.parametrize("key, value, code", [
    ("worldSize", 0, "MC025"), ("worldSize", -1, "MC025"), ("moe_ep", 0, "MC025"), ("tp", 0, "MC025"),
    ("dp", -2, "MC025"), ("worldSize", 10 ** 30, None), ("moe_ep", 10 ** 30, None), ("maxBatchSize", 0, None),
    ("maxPrefillTokens", 10 ** 30, None), ("maxBatchSize", -1, None),
])
def test_mindie_sizes_below_one_or_huge(tmp_path, key, value, code):
    entry = dict(ENTRY)
    schedule = {"maxBatchSize": 16, "maxPrefillTokens": 4096}
    (schedule if key.startswith("max") else entry)[key] = value
    (tmp_path / "conf").mkdir()
    config = tmp_path / "conf" / "config.json"
    config.write_text(json.dumps({"BackendConfig": {"npuDeviceIds": [list(range(16))], "ModelDeployConfig": {
        "ModelConfig": [entry]}, "ScheduleConfig": schedule}}, indent=1))
    (tmp_path / "conf" / "mindie_env.json").write_text(json.dumps({"mindie_common_env": {"HCCL_BUFFSIZE": 4096}}))
    done = check_bytes(config.read_bytes(), str(config), policy=FilePolicy(CONFIG, Cli()))
    diags = [d for r in done.results for d in r.diagnostics]
    assert "MC019" not in [d.code for d in diags]
    if code:  # an error at the key, and no fix "set ... to 0" (the MC990 text it used to get for worldSize 0)
        hit = next(d for d in diags if d.code == code)
        assert f'"{key}": {value}' in hit.message and hit.severity == "error" and "MC990" not in [d.code for d in diags]
        lines = config.read_text().splitlines()
        assert f'"{key}"' in lines[hit.line - 1]
    assert not [d for d in diags if "= 0 in this ModelConfig" in d.message or '"moe_ep": 0)' in d.message]
    assert not [r for r in done.results if r.op not in (None, "none") and r.arguments["bs"] < 1]
