"""Which op vllm-ascend runs per phase (MC2, fused MC2 = MegaMoE / dispatch_ffn_combine, all-to-all, all-gather),
and the op arguments besides bs: global_bs (PD roles), comm_alg / expert_scales, quant_mode, EPLB experts."""
from __future__ import annotations

import pytest

from vllm_ascend_launches import at_capacity, calls, codes, derive, serve

MTP3 = "--speculative-config '{\"num_speculative_tokens\": 3}'"
QWEN_NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"  # 512 experts, hidden 2048
QWEN_235B = "Qwen/Qwen3-235B-A22B"  # 128 experts


def ac(**kw) -> str:
    import json

    return "--additional-config '" + json.dumps(kw) + "'"


# ---- A2: MC2 needs EP >= 16 (and on main <= 24 experts per device) ----

@pytest.mark.parametrize("version", ["0.11.0", "0.13.0", "main"])
def test_a2_ep_8_all_gather(version):
    d = calls(serve("-dp 2 -tp 4 --max-num-seqs 16", model=QWEN_235B), product="A2", version=version)["decode"]
    assert d.kind == "none" and "A2, EP 8 < 16: vllm-ascend uses all-gather, no MC2 op" in d.why_none


@pytest.mark.parametrize("version,bs", [("0.11.0", 8), ("0.13.0", 4), ("main", 4)])
def test_a2_ep_16_mc2(version, bs):
    # 128 experts / EP 16 = 8 per device <= 24; A2 passes no tp args (need_extra_args only on A3).
    # bs: v0.11 ladder up to min(2 x 16, 512) = 32 -> 32 / TP 4 = 8; v0.13/main min(16 x 1, 512) = 16 -> 4
    d = at_capacity(calls(serve("-dp 4 -tp 4 --max-num-seqs 16", model=QWEN_235B), product="A2", version=version))
    assert d.op == "dispatch_combine_v2" and d.arguments["bs"] == bs and "tp_world_size" not in d.arguments


@pytest.mark.parametrize("dp,tp,kind", [(7, 3, "ascend"), (5, 4, "none")])
def test_a2_main_experts_per_device_24(dp, tp, kind):
    # 512 experts: EP 21 -> 512 // 21 = 24 per device (inside); EP 20 -> 25 > 24 -> all-gather
    # (VA@182b75e ascend_forward_context.py:228-239); v0.13 has no such rule
    text = serve(f"-dp {dp} -tp {tp} --max-num-seqs 16", model=QWEN_NEXT)
    d = at_capacity(calls(text, product="A2", version="main"))
    assert d.kind == kind
    if kind == "none":
        assert "25 experts per device > 24" in d.why_none
    assert at_capacity(calls(text, product="A2", version="0.13.0")).kind == "ascend"


def test_a2_prefill_all_gather():
    c = calls(serve("-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 4096", model=QWEN_235B), product="A2",
              version="main")
    assert c["prefill"].kind == "none" and "all-gather" in c["prefill"].why_none


@pytest.mark.parametrize("version,ep", [("main", 32), ("0.13.0", 32), ("0.11.0", 16)])
def test_mc2_group_spans_prefill_context_parallel(version, ep):
    # main / v0.13: the mc2 group is DP x PCP x TP = 4 x 2 x 4 = 32 (parallel_state.py); v0.11: DP x TP = 16
    d = at_capacity(calls(serve("-dp 4 -tp 4 -pcp 2 --max-num-seqs 16"), version=version))
    assert d.arguments["ep_world_size"] == ep


def test_no_expert_parallel():
    text = "vllm serve vllm-ascend/DeepSeek-R1-W8A8 --quantization ascend -dp 4 -tp 4\n"
    (only,) = derive(text, version="main").calls
    assert only.kind == "none" and "--enable-expert-parallel not given" in only.why_none


# ---- PD disaggregation: roles and global_bs (main's skip-allreduce rule) ----

def kv(role: str) -> str:
    return "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"" + role + "\"}'"


def test_kv_consumer_default_graph_mode_keeps_global_bs_zero():
    # default cudagraph_mode FULL_AND_PIECEWISE separates decode/mixed routines -> no skip -> global_bs 0
    c = derive(serve(f"-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 64 {MTP3} {kv('kv_consumer')}"),
               version="main").calls
    assert [x.role for x in c] == ["decode"]
    assert c[0].arguments["global_bs"] == 0 and "separates decode" in c[0].derivation["global_bs"]


@pytest.mark.parametrize("mnbt,gbs", [(64, 256), (65, 0)])
def test_kv_consumer_piecewise_global_bs(mnbt, gbs):
    # capacity 64: mnbt 64 runs MC2 -> skip the DP all-reduce -> global_bs = 16 x EP 16 = 256, no x_active_mask;
    # mnbt 65 > 64 leaves MC2 -> global_bs 0 (VA@182b75e utils.py:1099-1147)
    text = serve(f"-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens {mnbt} {MTP3} {kv('kv_consumer')} "
                 "--compilation-config '{\"cudagraph_mode\": \"PIECEWISE\"}'")
    d = calls(text, version="main")["decode"]
    assert d.arguments["global_bs"] == gbs
    assert ("x_active_mask" in d.arguments) is (gbs == 0)


def test_kv_consumer_recompute_scheduler_global_bs():
    text = serve(f"-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 4096 {MTP3} {kv('kv_consumer')} "
                 + ac(scheduler_config={"recompute_scheduler_enable": True}))
    assert calls(text, version="main")["decode"].arguments["global_bs"] == 256


def test_kv_producer_has_both_phases():
    c = derive(serve(f"-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 4096 {MTP3} {kv('kv_producer')}"),
               version="main").calls
    assert [x.role for x in c] == ["decode", "prefill"] and c[0].arguments["global_bs"] == 0


# ---- hierarchy ----

def test_hierarchy_flag_main_comm_alg_and_expert_scales():
    text = serve(f"-dp 4 -tp 4 --max-num-seqs 16 {MTP3} {kv('kv_consumer')} " + ac(enable_mc2_hierarchy_comm=True))
    d = calls(text, version="main")["decode"]
    assert d.arguments["comm_alg"] == "hierarchy" and d.arguments["expert_scales"] is True
    assert d.arguments["global_bs"] == 0  # hierarchy needs uniform tokens


def test_hierarchy_env_pair_expert_scales_only():
    text = serve("-dp 4 -tp 4 --max-num-seqs 16", model=QWEN_235B,
                 env="HCCL_INTRA_PCIE_ENABLE=1 HCCL_INTRA_ROCE_ENABLE=0")
    for version in ("0.11.0", "0.13.0", "main"):
        d = at_capacity(calls(text, product="A2", version=version))
        assert d.arguments["expert_scales"] is True and "comm_alg" not in d.arguments
        assert d.arguments["env"] == {"HCCL_INTRA_PCIE_ENABLE": "1", "HCCL_INTRA_ROCE_ENABLE": "0"}
        assert d.sources["expert_scales"][0].line in (1, 2)
    assert calls(text, product="A2", version="0.13.0")["decode"].arguments.get("comm_alg") is None


def test_hierarchy_flag_ignored_before_main():
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 " + ac(enable_mc2_hierarchy_comm=True))
    assert "comm_alg" not in calls(text, version="0.13.0")["decode"].arguments


# ---- fused MC2 ----

def test_megamoe_main_arguments():
    # DeepSeek W8A8: hidden 7168 in [1024, 8192] % 512, moe_intermediate 2048 in [1024, 3072] % 512 -> MegaMoE;
    # nmt = ceil(64 / 4) = 16; max_recv = 16 x 16 x min(8, 256 / 16) = 2048 (moe_comm_method.py:312-317);
    # intermediate_hidden = moe_intermediate_size 2048 (l2 weight width; vllm-ascend's symm-buffer call gets 2 x);
    # dispatch_quant_mode 2 and weight_dtype int8 (W8A8)
    text = serve(f"-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 4096 {MTP3} " + ac(enable_fused_mc2=1))
    c = calls(text, version="main")
    d = c["decode"]
    assert (d.op, d.arguments["bs"], d.arguments["num_max_tokens_per_rank"]) == ("mega_moe", 16, 16)
    assert d.arguments["max_recv_token_num"] == 2048 and d.arguments["intermediate_hidden"] == 2048
    assert d.arguments["dispatch_quant_mode"] == 2 and d.arguments["weight_dtype"] == "int8"
    assert d.arguments["dispatch_quant_out_dtype"] == "int8" and d.arguments["op"] == "mega_moe"
    # prefill steps run MegaMoE too (fused is chosen for any token count): ceil(4096 / 4) = 1024 tokens per rank
    assert c["prefill"].op == "mega_moe" and c["prefill"].arguments["bs"] == 1024


def test_fused_env_request_main():
    text = serve(f"-dp 4 -tp 4 --max-num-seqs 16 {MTP3}", env="VLLM_ASCEND_ENABLE_FUSED_MC2=1")
    d = derive(text, version="main", cann="9.1.0")
    assert d.calls[0].op == "mega_moe" and "MC043" not in codes(d.notes)


def test_megamoe_fallback_intermediate_out_of_range_is_mc043():
    # Qwen3-30B-A3B: moe_intermediate_size 768 < 1024 -> enable_fused_mc2 = 0 (ascend_config.py:181-185)
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 " + ac(enable_fused_mc2=1), model="Qwen/Qwen3-30B-A3B")
    d = derive(text, version="main")
    assert "MC043" in codes(d.notes) and d.calls[0].op == "dispatch_combine_v2"
    note = next(n for n in d.notes if n.code == "MC043")
    assert "moe_intermediate_size 768" in note.message and "MC2" in note.message


@pytest.mark.parametrize("dp,op", [(16, "mega_moe"), (32, "dispatch_combine_v2")])
def test_megamoe_ep_64_limit(dp, op):
    # EP = DP x 4: 64 <= 64 keeps MegaMoE; 128 > 64 -> MC2 (ascend_forward_context.py:249-251) + MC043
    d = derive(serve(f"-dp {dp} -tp 4 --max-num-seqs 16 " + ac(enable_fused_mc2=1)), version="main", cann="9.1.0")
    assert d.calls[0].op == op
    assert ("MC043" in codes(d.notes)) is (op != "mega_moe")


@pytest.mark.parametrize("dp,op", [(8, "dispatch_ffn_combine"), (16, "dispatch_combine_v2")])
def test_dispatch_ffn_combine_ep_32_limit(dp, op):
    d = derive(serve(f"-dp {dp} -tp 4 --max-num-seqs 16 " + ac(enable_fused_mc2=1)), version="main", cann="9.0.1")
    assert d.calls[0].op == op
    if op == "dispatch_ffn_combine":
        assert d.calls[0].arguments["max_output_size"] == 131072  # mega_moe_max_tokens default (ascend_config.py:283)


def test_fused_on_a2_falls_back():
    d = derive(serve("-dp 4 -tp 4 --max-num-seqs 16 " + ac(enable_fused_mc2=1), model=QWEN_235B), product="A2",
               version="main")
    assert "MC043" in codes(d.notes) and d.calls[0].op == "dispatch_combine_v2"


def test_v013_fused_env_w8a8_dispatch_ffn_combine():
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 4096", env="VLLM_ASCEND_ENABLE_FUSED_MC2=1")
    c = calls(text, version="0.13.0")
    assert c["decode"].op == "dispatch_ffn_combine" and c["decode"].arguments["max_output_size"] == 65536
    assert c["prefill"].op == "dispatch_ffn_combine"  # fused_prefill_enable (ascend_forward_context.py:270-275)
    assert c["prefill"].arguments["bs"] == 1024  # ceil(4096 / 4)


def test_v013_fused_bf16_falls_back():
    text = serve("-dp 4 -tp 4 --max-num-seqs 16", model="deepseek-ai/DeepSeek-V3", env="VLLM_ASCEND_ENABLE_FUSED_MC2=1")
    text = text.replace("--quantization ascend ", "")
    d = derive(text, version="0.13.0")
    assert "MC043" in codes(d.notes) and d.calls[0].op == "dispatch_combine_v2"
    assert d.calls[0].arguments["quant_mode"] == 0


def test_v013_fused_2_is_not_checked():
    text = serve("-dp 4 -tp 4 --max-num-seqs 16", env="VLLM_ASCEND_ENABLE_FUSED_MC2=2")
    d = calls(text, version="0.13.0")["decode"]
    assert d.kind == "none" and "dispatch_gmm_combine_decode" in d.why_none


# ---- quantisation and EPLB ----

def test_quant_auto_detected_on_main_only():
    text = "vllm serve vllm-ascend/DeepSeek-R1-W8A8 --enable-expert-parallel -dp 4 -tp 4 --max-num-seqs 16\n"
    assert calls(text, version="main")["decode"].arguments["quant_mode"] == 2
    assert calls(text, version="0.13.0")["decode"].arguments["quant_mode"] == 0


def test_quant_other_method_unknown():
    text = serve("-dp 4 -tp 4 --max-num-seqs 16").replace("--quantization ascend", "--quantization fp8")
    d = derive(text, version="main")
    assert "quant_mode" not in d.calls[0].arguments and "MC042" in codes(d.notes)


@pytest.mark.parametrize("version,extra,experts", [
    ("main", "--enable-eplb --eplb-config '{\"num_redundant_experts\": 16}'", 272),
    ("main", ac(eplb_config={"dynamic_eplb": True, "num_redundant_experts": 16}), 272),
    ("main", ac(eplb_config={"num_redundant_experts": 16}), 256),  # dynamic_eplb off: no redundancy
    ("0.13.0", ac(eplb_config={"dynamic_eplb": True, "num_redundant_experts": 16}), 272),
    ("0.13.0", ac(init_redundancy_expert=16), 256),  # needs dynamic_eplb (eplb_utils.py:64-65)
    ("0.11.0", ac(init_redundancy_expert=32), 288),  # common_fused_moe.py:170-171
])
def test_redundant_experts(version, extra, experts):
    d = at_capacity(calls(serve(f"-dp 4 -tp 4 --max-num-seqs 16 {extra}"), version=version))
    assert d.arguments["moe_expert_num"] == experts


def test_expert_map_path_unknown():
    d = derive(serve("-dp 4 -tp 4 --max-num-seqs 16 " + ac(expert_map_path="/x/map.json")), version="0.11.0")
    assert "moe_expert_num" not in d.calls[0].arguments and "MC023" in codes(d.notes)


def test_lora_main_all_to_all():
    d = calls(serve("-dp 4 -tp 4 --max-num-seqs 16 --enable-lora"), version="main")["decode"]
    assert d.kind == "none" and "LoRA" in d.why_none


def test_hccl_buffsize_passed_with_its_span():
    text = serve("-dp 4 -tp 4 --max-num-seqs 16", env="HCCL_BUFFSIZE=1024")
    d = calls(text, version="main")["decode"]
    assert d.arguments["env"] == {"HCCL_BUFFSIZE": "1024"} and d.sources["env.HCCL_BUFFSIZE"][0].line == 1


# ---- MegaMoE or dispatch_ffn_combine: `cann_ops_transformer` in the image decides; without a CANN version, both ----

def test_unknown_cann_derives_both_fused_ops_with_their_condition():
    # EP 16: MegaMoE (<= 64) if cann_ops_transformer imports, else dispatch_ffn_combine (<= 32); DeepSeek-R1 W8A8
    d = derive(serve("-dp 4 -tp 4 --max-num-seqs 16 " + ac(enable_fused_mc2=1)), version="main")
    by_op = {c.op: c for c in d.calls}
    assert set(by_op) == {"mega_moe", "dispatch_ffn_combine"} and d.calls[-1].op == "mega_moe"
    assert "imports" in by_op["mega_moe"].condition and "does not import" in by_op["dispatch_ffn_combine"].condition
    assert "MC042" in codes(d.notes)


@pytest.mark.parametrize("cann,ops", [("9.1.0", ["mega_moe"]), ("9.0.1", ["dispatch_ffn_combine"])])
def test_the_settings_cann_answers(cann, ops):
    d = derive(serve("-dp 4 -tp 4 --max-num-seqs 16 " + ac(enable_fused_mc2=1)), version="main", cann=cann)
    assert {c.op for c in d.calls} == set(ops) and all(not c.condition for c in d.calls)  # decode + prefill


def test_an_error_of_one_op_only_is_a_warning():
    # HCCL_BUFFSIZE 1 MB: too small for either op's window. With the op unknown every op error reads "if ...".
    from moecfg.backends import Options
    from moecfg.checking.launch import lint_launch_file
    from moecfg.sources.readers import read_shell
    from vllm_ascend_launches import ctx

    text = serve("-dp 4 -tp 4 --max-num-seqs 16 " + ac(enable_fused_mc2=1), env="HCCL_BUFFSIZE=1")
    results = lint_launch_file(read_shell(text), "t", ctx(version="main"), Options())
    fused = [r for r in results if r.op in ("mega_moe", "dispatch_ffn_combine")]
    assert {r.op for r in fused} == {"mega_moe", "dispatch_ffn_combine"}  # decode + prefill each
    assert all(d.severity != "error" for r in fused for d in r.diagnostics)
    assert any(d.message.startswith("if cann_ops_transformer") for r in fused for d in r.diagnostics)
    pinned = lint_launch_file(read_shell(text), "t", ctx(version="main", cann="9.1.0"), Options())
    assert any(d.severity == "error" for r in pinned for d in r.diagnostics)
