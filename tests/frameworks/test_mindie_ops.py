"""frameworks/mindie torch + atb: the op calls per phase, the strategy table's start-up failures and the atb buffers.

Ascend/MindIE-LLM@8b4871a: mindie_llm/runtime/layers/fused_moe/moe_comm_strategy.py (FusedMC2 on 910_93 for
moe_ep <= 32 and <= 4096 tokens per device else RuntimeError; MC2 within min(maxBatchSize x (1+MTP)^2 [/ tp with
dp], 512) tokens, <= 24 experts per rank, on 910B at world 16/32/64; All2All prefill only; AllGather 910B without
dp), token_dispatcher.py:183-221 (global_bs, quant_mode 2, tp_world_size 1 + x_active_mask on A3);
examples/atb_models/atb_llm (validators, calc_moe_buffer_size). DeepSeek-V3: h 7168, top-8, 256 routed experts.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from moecfg.checking.engine import check_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy
from moecfg.frameworks.mindie import choose as C

A3_IDS = [list(range(16))]


def deploy(tmp_path: Path, entry: dict, schedule: dict, env: dict | None = None, product: str | None = None,
           ids=None) -> tuple[list, list]:
    conf = tmp_path / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    backend = {"ModelDeployConfig": {"ModelConfig": [{"modelName": "DeepSeek-V3", **entry}]},
               "ScheduleConfig": schedule}
    if ids:
        backend["npuDeviceIds"] = ids
    (conf / "config.json").write_text(json.dumps({"BackendConfig": backend}, indent=2))
    if env is not None:
        (conf / "mindie_env.json").write_text(json.dumps({"mindie_common_env": env}))
    done = check_bytes((conf / "config.json").read_bytes(), str(conf / "config.json"),
                       policy=FilePolicy(Config(product=product), Cli()))
    return done.results, [d for r in done.results for d in r.diagnostics]


def ops(results) -> list[tuple[str, str, int]]:
    return [(r.launch["role"], r.op, r.arguments["bs"]) for r in results if r.op not in (None, "none")]


def line_of(tmp_path: Path, diag) -> str:
    return (tmp_path / "conf" / "config.json").read_text().splitlines()[diag.line - 1]


TORCH_A3_FUSED = {"worldSize": 16, "backendType": "torch", "dp": 16, "tp": 1, "moe_tp": 1, "moe_ep": 16}


@pytest.mark.parametrize("prefill, fails", [(4096, False), (4097, True)])
def test_fused_mc2_token_limit_at_max_prefill_tokens(tmp_path, prefill, fails):
    # tp 1: tokens per device = maxPrefillTokens; FusedMC2 raises past 4096
    _, diags = deploy(tmp_path, TORCH_A3_FUSED, {"maxBatchSize": 16, "maxPrefillTokens": prefill},
                      {"HCCL_BUFFSIZE": 2048}, ids=A3_IDS)
    hits = [d for d in diags if d.code == "MC994"]
    assert bool(hits) == fails
    if fails:
        assert hits[0].severity == "error" and "4097 tokens per device > 4096" in hits[0].message
        assert '"maxPrefillTokens"' in line_of(tmp_path, hits[0]) and "lower maxPrefillTokens to 4096" in \
            hits[0].message


@pytest.mark.parametrize("batch, fails", [(2048, False), (2049, True)])
def test_fused_mc2_token_limit_at_max_batch_size_with_mtp(tmp_path, batch, fails):
    # decode: maxBatchSize x (1 + 1 MTP) / tp 1: 2048 x 2 = 4096 (inside), 2049 x 2 = 4098 (outside)
    entry = {**TORCH_A3_FUSED, "plugin_params": '{"plugin_type":"mtp","num_speculative_tokens":1}'}
    _, diags = deploy(tmp_path, entry, {"maxBatchSize": batch, "maxPrefillTokens": 1024}, {"HCCL_BUFFSIZE": 2048},
                      ids=A3_IDS)
    hits = [d for d in diags if d.code == "MC994"]
    assert bool(hits) == fails
    if fails:
        assert '"maxBatchSize"' in line_of(tmp_path, hits[0]) and "lower maxBatchSize to 2048" in hits[0].message


def test_mc2_on_a3_past_fused_ep_with_the_arguments_mindie_passes(tmp_path):
    # moe_ep 64 > 32: no FusedMC2. decode: maxBatchSize 16 per device (tp 1); capacity min(16 x 1 x 1, 512) = 16
    entry = {"worldSize": 64, "backendType": "torch", "dp": 64, "tp": 1, "moe_tp": 1, "moe_ep": 64}
    results, diags = deploy(tmp_path, entry, {"maxBatchSize": 16, "maxPrefillTokens": 8192}, {"HCCL_BUFFSIZE": 1024},
                            ids=A3_IDS)
    assert ops(results) == [("decode", "dispatch_combine_v2", 16)]  # prefill 8192 > 16: All2All (+ MC2 at 16, same)
    args = next(r.arguments for r in results if r.op == "dispatch_combine_v2")
    # global_bs = ceil(16 / 1) x 64 = 1024; quant_mode 2 always; A3: tp_world_size 1 and x_active_mask
    assert args["global_bs"] == 1024 and args["quant_mode"] == 2 and args["tp_world_size"] == 1
    assert args["x_active_mask"] == "1d" and args["moe_expert_num"] == 256 and args["ep_world_size"] == 64
    nones = [r for r in results if r.op == "none"]
    assert [r.launch["role"] for r in nones] == ["prefill"]
    assert not [d for d in diags if d.severity == "error"]


@pytest.mark.parametrize("batch, fails", [(4096, False), (4104, True)])
def test_a2_decode_above_the_mc2_capacity_has_no_strategy(tmp_path, batch, fails):
    # A2, dp 2 x tp 8 (world 16): decode tokens per device = batch / 8; capacity = min(batch / 8, 512)
    # 4096 / 8 = 512 <= 512: MC2; 4104 / 8 = 513 > 512: no MC2, decode (no All2All), dp 2 (no AllGather): error
    entry = {"worldSize": 16, "backendType": "torch", "dp": 2, "tp": 8, "moe_tp": 1, "moe_ep": 16}
    results, diags = deploy(tmp_path, entry, {"maxBatchSize": batch, "maxPrefillTokens": 8192},
                            {"HCCL_BUFFSIZE": 2048}, product="A2")
    hits = [d for d in diags if d.code == "MC995"]
    assert bool(hits) == fails
    if fails:
        assert "513 tokens per device > capacity 512" in hits[0].message and hits[0].severity == "error"
    else:
        assert ("decode", "dispatch_combine_v2", 512) in ops(results)
        args = next(r.arguments for r in results if r.op == "dispatch_combine_v2")
        assert args["global_bs"] == 512 * 16 and "tp_world_size" not in args and "x_active_mask" not in args


@pytest.mark.parametrize("world, mc2", [(32, True), (24, False)])
def test_a2_mc2_only_at_world_16_32_64(tmp_path, world, mc2):
    entry = {"worldSize": world, "backendType": "torch", "dp": world // 8, "tp": 8, "moe_tp": 1, "moe_ep": world}
    results, diags = deploy(tmp_path, entry, {"maxBatchSize": 64, "maxPrefillTokens": 8192}, {"HCCL_BUFFSIZE": 1024},
                            product="A2")
    assert any(op == "dispatch_combine_v2" for _, op, _ in ops(results)) == mc2
    hits = [d for d in diags if d.code == "MC995" and f"A2 world size {world} not 16/32/64" in d.message]
    assert bool(hits) != mc2
    if hits:
        assert '"worldSize"' in line_of(tmp_path, hits[0]) and "16, 32 or 64 A2 devices" in hits[0].message


def test_moe_tp_is_refused_by_every_strategy(tmp_path):
    entry = {"worldSize": 16, "backendType": "torch", "dp": 2, "tp": 8, "moe_tp": 2, "moe_ep": 8}
    _, diags = deploy(tmp_path, entry, {"maxBatchSize": 64, "maxPrefillTokens": 8192}, {"HCCL_BUFFSIZE": 1024},
                      ids=A3_IDS)
    hits = [d for d in diags if d.code == "MC995"]
    assert hits and '"moe_tp"' in line_of(tmp_path, hits[0]) and '"moe_tp": 1 and "moe_ep": 16' in hits[0].message
    assert "MC990" not in [d.code for d in diags]  # 2 x 8 = 16: the world check passes


@pytest.mark.parametrize("per_rank, mc2", [(24, True), (25, False)])
def test_mc2_needs_at_most_24_experts_per_rank(per_rank, mc2):
    s = C.Setup("A3", 64, 64, 1, 64, per_rank)
    assert (C.choose(s, 16, 16, False)[0] == C.MC2) == mc2


@pytest.mark.parametrize("batch, spec, dp, tp, cap", [(200, 2, 4, 8, 225), (200, 0, 1, 8, 200), (100, 3, 2, 2, 512)])
def test_mc2_capacity(batch, spec, dp, tp, cap):
    # min(batch x (1+spec)^2 [/ tp when dp > 1 and tp > 1], 512): 200 x 9 / 8 = 225; 200 (dp 1); 100 x 16 / 2 = 800 -> 512
    assert C.capacity(batch, spec, 1, dp, tp)[0] == cap


ATB = {"worldSize": 16, "backendType": "atb", "dp": 2, "tp": 8, "moe_tp": 1, "moe_ep": 16}


@pytest.mark.parametrize("mb, env, refused", [(512, None, False), (511, None, True), (1050, 1050, False),
                                              (1049, 1050, True), ("big", None, True)])
def test_atb_deepseek_hccl_moe_ep_buffer_validator(tmp_path, mb, env, refused):
    # DeepSeek: hccl_moe_ep_buffer >= max(512, HCCL_BUFFSIZE)
    entry = {**ATB, "models": {"deepseekv2": {"parallel_options": {"hccl_moe_ep_buffer": mb}}}}
    _, diags = deploy(tmp_path, entry, {"maxBatchSize": 64, "maxPrefillTokens": 8192},
                      {"HCCL_BUFFSIZE": env} if env else {})
    hits = [d for d in diags if d.code == "MC996"]
    assert bool(hits) == refused
    if refused:
        assert '"hccl_moe_ep_buffer"' in line_of(tmp_path, hits[0]) and hits[0].severity == "error"
        assert f"\"hccl_moe_ep_buffer\": {max(512, env or 0)} or more" in hits[0].message  # the key and floor


@pytest.mark.parametrize("mb, refused", [(64, False), (63, True)])
def test_atb_hccl_moe_tp_buffer_floor(tmp_path, mb, refused):
    entry = {**ATB, "models": {"qwen_moe": {"parallel_options": {"hccl_moe_tp_buffer": mb}}}}
    _, diags = deploy(tmp_path, entry, {"maxBatchSize": 64, "maxPrefillTokens": 8192}, {})
    assert any(d.code == "MC996" for d in diags) == refused


@pytest.mark.parametrize("mb, raised", [(1792, True), (1793, False)])
def test_atb_dynamic_ep_raises_the_ep_buffer(tmp_path, mb, raised):
    # ep_level 2: ceil(ceil(4096 / 16) x 7168 x 256 x 4 B / MiB) + 1 = 256 x 7168 x 1024 B = 1792 MiB, + 1 = 1793
    entry = {**ATB, "models": {"deepseekv2": {"ep_level": 2, "parallel_options": {"hccl_moe_ep_buffer": mb}}}}
    _, diags = deploy(tmp_path, entry, {"maxBatchSize": 4096, "maxPrefillTokens": 8192}, {"HCCL_BUFFSIZE": 512})
    hits = [d for d in diags if d.code == "MC997"]
    assert bool(hits) == raised
    if raised:
        assert "= 1793 MB" in hits[0].message and f"configured {mb} MB" in hits[0].message
        info = next(d for d in diags if d.code == "MC993").message
        assert "hccl_moe_ep_buffer 1793 MB" in info
        # tp 8, dp 2, moe_ep 16 (moe_tp 1: no group): 2 x 128 + 2 x 128 + 2 x 1793 = 4098 MB at least per rank
        assert "= 4098 MB of HCCL buffers" in info


@pytest.mark.parametrize("fraction, over", [(0.99, True), (0.95, False)])
def test_memory_outside_npu_memory_fraction(tmp_path, fraction, over):
    # guide layout dp 4 tp 8 moe_ep 32 on one 32-die node, HCCL_BUFFSIZE 1050: 3124 MiB = 3275751424 B of buffers;
    # 64 GiB x 1% = 687194767 B < that (MC954); x 5% = 3435973836 B >= that
    entry = {"worldSize": 32, "backendType": "torch", "dp": 4, "tp": 8, "moe_tp": 1, "moe_ep": 32}
    _, diags = deploy(tmp_path, entry, {"maxBatchSize": 64, "maxPrefillTokens": 8192},
                      {"HCCL_BUFFSIZE": 1050, "NPU_MEMORY_FRACTION": fraction}, ids=A3_IDS)
    hits = [d for d in diags if d.code == "MC954"]
    assert bool(hits) == over
    if over:
        # the most it may be: (64 GiB - 3124 MiB) / 64 GiB = 0.9523 -> 0.95; the other groups alone (1024 MiB) do
        # not fit the 1% either, so no HCCL_BUFFSIZE fixes it
        assert "NPU_MEMORY_FRACTION 0.99" in hits[0].message and "NPU_MEMORY_FRACTION <= 0.95" in hits[0].message


def test_dense_or_unknown_model_gets_no_op_call(tmp_path):
    entry = {**TORCH_A3_FUSED, "modelName": "my-private-model"}
    results, diags = deploy(tmp_path, entry, {"maxBatchSize": 16, "maxPrefillTokens": 8192}, {"HCCL_BUFFSIZE": 1024},
                            ids=A3_IDS)
    assert ops(results) == [] and [d.code for d in diags] == ["MC993"]
    assert "no op call derived" in diags[0].message and "models:" in diags[0].message


PD = Path(__file__).parent / "fixtures" / "mindie" / "guide-v32-a2-pd" / "user_config.json"


def test_guide_a2_pd_user_config_one_launch_per_role():
    done = check_bytes(PD.read_bytes(), str(PD), policy=FilePolicy(Config(), Cli()))
    roles = {r.launch["role"]: r for r in done.results if r.launch}
    assert set(roles) == {"prefill", "decode"}
    prefill = [d.message for d in roles["prefill"].diagnostics if d.code == "MC993"][0]
    assert "cp > 1" in prefill and roles["prefill"].op in (None, "none")  # cp 32: CP-local tokens, not derived
    d = roles["decode"]
    # A2 (hardware_type 800I_A2), world = moe_tp 1 x moe_ep 32 = 32 (16/32/64: MC2 allowed); decode: maxBatchSize 64
    # x (1 + 2 MTP) = 192 / tp 2 = 96 per device <= capacity min(64 x 3 x 3 / 2, 512) = 288; 256 / 32 = 8 experts
    assert d.op == "dispatch_combine_v2" and d.arguments["bs"] == 96 and d.arguments["global_bs"] == 96 * 32
    assert d.arguments["product"] == "A2" and "tp_world_size" not in d.arguments
    assert d.arguments["env"] == {"HCCL_BUFFSIZE": "1050"} and "capacity 288" in d.derivation["op"]
    assert not [x for r in done.results for x in r.diagnostics if x.severity == "error"]


def test_motor_role_env_section_wins_over_the_common_one(tmp_path):
    conf = tmp_path / "conf"
    conf.mkdir()
    data = json.loads("\n".join(PD.read_text().splitlines()[1:]))
    (tmp_path / "user_config.json").write_text(json.dumps(data, indent=1))
    (conf / "mindie_env.json").write_text(json.dumps({"mindie_common_env": {"HCCL_BUFFSIZE": 120},
                                                      "mindie_server_decode_env": {"HCCL_BUFFSIZE": 4096}}))
    path = tmp_path / "user_config.json"
    done = check_bytes(path.read_bytes(), str(path), policy=FilePolicy(Config(), Cli()))
    decode = next(r for r in done.results if r.launch and r.launch["role"] == "decode")
    assert decode.arguments["env"] == {"HCCL_BUFFSIZE": "4096"}


@pytest.mark.parametrize("ids, moe_ep, a3", [(A3_IDS, 16, True), ([list(range(8))], 16, False),
                                             (A3_IDS, 1, False)])
def test_device_count_names_a3_only_for_more_than_8_devices_with_ep(tmp_path, ids, moe_ep, a3):
    entry = {"worldSize": 16, "backendType": "torch", "dp": 16, "tp": 1, "moe_tp": 16 // moe_ep, "moe_ep": moe_ep}
    results, diags = deploy(tmp_path, entry, {"maxBatchSize": 16, "maxPrefillTokens": 1024}, {"HCCL_BUFFSIZE": 1024},
                            ids=ids)
    info = next(d for d in diags if d.code == "MC993").message
    assert ("the product is not known" not in info) == a3
    assert any(r.arguments.get("product") == "A3" for r in results if r.arguments) == a3


def test_memory_fraction_names_the_env_file_actually_read(tmp_path):
    # issue 32: a MindIE-Motor user_config naming deploy_config.mindie_env_path ./conf/mindie_env_a3.json: that file
    # is read (sources/vendor/mindie.py env_file_path), so MC954 and its fix name it, not conf/mindie_env.json
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "mindie_env_a3.json").write_text(json.dumps({"mindie_common_env": {"HCCL_BUFFSIZE": 1050,
                                                                                "NPU_MEMORY_FRACTION": 0.99}}))
    entry = {"modelName": "DeepSeek-V3", "worldSize": 32, "backendType": "torch", "dp": 4, "tp": 8, "moe_tp": 1,
             "moe_ep": 32}
    server = {"BackendConfig": {"npuDeviceIds": A3_IDS, "ModelDeployConfig": {"ModelConfig": [entry]},
                                "ScheduleConfig": {"maxBatchSize": 64, "maxPrefillTokens": 8192}}}
    motor = {"deploy_config": {"hardware_type": "800I_A3", "mindie_env_path": "./conf/mindie_env_a3.json"},
             "mindie_server_decode_config": server}
    (tmp_path / "user_config.json").write_text(json.dumps(motor))
    done = check_bytes((tmp_path / "user_config.json").read_bytes(), str(tmp_path / "user_config.json"),
                       policy=FilePolicy(Config(), Cli()))
    hits = [d for r in done.results for d in r.diagnostics if d.code == "MC954"]
    assert hits and "conf/mindie_env_a3.json" in hits[0].message and "conf/mindie_env.json" not in hits[0].message
