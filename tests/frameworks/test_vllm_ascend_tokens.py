"""vllm-ascend token derivation per version: tokens per rank (bs), the MC2 capacity and their caps, each value
computed by hand from the cited source lines (VA = vllm-project/vllm-ascend; v0.11.0 = 2f1aed9,
v0.13.0 = 6281c12, main = 182b75e)."""
from __future__ import annotations

import pytest

from moecfg.frameworks.vllm_ascend import formulas as F
from vllm_ascend_launches import DSR1_A3_SINGLE_NODE, at_capacity, calls, derive, launch, serve


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# ---- the example: DeepSeek-R1-W8A8 on A3, DP4 TP4, --max-num-seqs 16, MTP 3 (published tutorial) ----

def test_tutorial_main_passes_bs_16():
    # main: max_cudagraph_capture_size = min(16 x (1 + 3), 512) = 64 (platform.py:1309), <= 4096 tokens;
    # per TP rank ceil(64 / 4) = 16 <= 512 (ascend_forward_context.py:189-199); EP = DP 4 x TP 4 = 16
    c = calls(DSR1_A3_SINGLE_NODE, version="main")
    d = c["decode"]
    assert (d.kind, d.op) == ("ascend", "dispatch_combine_v2")
    assert d.arguments["bs"] == 16 and d.arguments["ep_world_size"] == 16
    assert d.arguments["h"] == 7168 and d.arguments["k"] == 8 and d.arguments["moe_expert_num"] == 256
    assert d.arguments["quant_mode"] == 2  # W8A8 checkpoint: w8a8_dynamic experts, dynamic int8 dispatch
    assert d.arguments["global_bs"] == 0 and d.arguments["x_active_mask"] == "1d"  # not a kv_consumer
    assert d.arguments["tp_world_size"] == 1  # A3: group_tp = EP group, tp_world_size=1 (token_dispatcher.py:208-215)
    assert "64" in d.derivation["bs"] and "TP 4" in d.derivation["bs"]
    # prefill: a 4096-token step > capacity 16 x 4 = 64 -> all-to-all, no MC2 op
    p = c["prefill"]
    assert p.kind == "none" and "4096 tokens > MC2 capacity 64" in p.why_none


def test_tutorial_bs_points_at_the_flags_that_feed_it():
    d = calls(DSR1_A3_SINGLE_NODE, version="main")["decode"]
    lines = {s.line for s in d.sources["bs"]}
    assert line_of(DSR1_A3_SINGLE_NODE, "--max-num-seqs 16") in lines
    assert line_of(DSR1_A3_SINGLE_NODE, "num_speculative_tokens") in lines
    assert line_of(DSR1_A3_SINGLE_NODE, "--tensor-parallel-size 4") in lines
    first = d.sources["bs"][0]
    assert first.line == line_of(DSR1_A3_SINGLE_NODE, "--max-num-seqs 16") and first.column == 3


def test_tutorial_v013_passes_bs_16_and_global_bs():
    # v0.13: patch_set_cudagraph_sizes.py:56-60 min(16 x 4, 512) = 64, clipped to 4096 -> 64; ceil(64/4) = 16;
    # global_bs = 16 x EP 16 = 256 always (token_dispatcher.py:134-139); no x_active_mask
    d = calls(DSR1_A3_SINGLE_NODE, version="0.13.0")["decode"]
    assert d.arguments["bs"] == 16 and d.arguments["global_bs"] == 256
    assert "x_active_mask" not in d.arguments


def test_tutorial_v011_full_decode_only_passes_bs_8():
    # v0.11: vLLM's ladder up to cuda_graph_sizes [min(2 x 16, 512)] = 32 -> [1,2,4,8,16,24,32];
    # FULL_DECODE_ONLY: no speculative enlargement (utils.py:488-506 runs for PIECEWISE only);
    # capacity ceil(32/4) x 4 = 32, bs = 8 (model_runner_v1.py:543-552); global_bs 0 (token_dispatcher.py:133)
    c = derive(DSR1_A3_SINGLE_NODE, version="0.11.0").calls
    assert c[0].arguments["bs"] == 8 and c[0].arguments["global_bs"] == 0
    assert c[0].arguments["x_active_mask"] == "1d"  # v0.11 A3 passes mc2_mask (token_dispatcher.py:150-153)
    # a decode step of 16 x 4 = 64 tokens > 32 leaves MC2 as well: the second call is all-to-all
    assert c[1].kind == "none" and "> MC2 capacity 32" in c[1].why_none


def test_v011_piecewise_enlarges_capture_sizes_for_speculation():
    # PIECEWISE (default FULL_AND_PIECEWISE -> PIECEWISE, platform.py:207-208): 32 < (3 + 1) x 16 = 64
    # -> sizes x 4: 128 (utils.py:498-501); bs = ceil(128 / 4) = 32
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 4096 "
                 "--speculative-config '{\"num_speculative_tokens\": 3}'")
    assert at_capacity(calls(text, version="0.11.0")).arguments["bs"] == 32
    # one speculative token: no enlargement (only for > 1): ladder 32 -> bs 8
    text1 = text.replace('"num_speculative_tokens": 3', '"num_speculative_tokens": 1')
    assert calls(text1, version="0.11.0")["decode"].arguments["bs"] == 8


# ---- graph capture cap 512 and the max_num_batched_tokens clip ----

@pytest.mark.parametrize("seqs,bs", [(128, 128), (129, 128), (127, 127)])
def test_graph_capture_cap_512_just_inside_and_outside(seqs, bs):
    # main/v0.13: min(seqs x (1 + 3), 512): 128 x 4 = 512 (inside), 129 x 4 = 516 -> 512, 127 x 4 = 508;
    # TP 4: 512 / 4 = 128, 508 / 4 = 127
    text = serve(f"-dp 4 -tp 4 --max-num-seqs {seqs} --max-num-batched-tokens 8192 "
                 "--speculative-config '{\"num_speculative_tokens\": 3}'")
    for version in ("main", "0.13.0"):
        assert calls(text, version=version)["decode"].arguments["bs"] == bs


@pytest.mark.parametrize("mnbt,bs", [(64, 16), (48, 12), (65, 16)])
def test_capture_size_clipped_by_max_num_batched_tokens(mnbt, bs):
    # min(16 x 4 = 64, mnbt): 48 -> ceil(48 / 4) = 12 (patch_set_cudagraph_sizes.py:58-60)
    text = serve(f"-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens {mnbt} "
                 "--speculative-config '{\"num_speculative_tokens\": 3}'")
    assert calls(text, version="main")["decode"].arguments["bs"] == bs


def test_user_capture_sizes_largest_within_max_num_batched_tokens():
    # sizes [8, 24, 72], max_num_batched_tokens 64: 72 dropped -> 24; TP 4 -> 6
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 64 "
                 "--compilation-config '{\"cudagraph_capture_sizes\": [8, 24, 72]}'")
    assert at_capacity(calls(text, version="main")).arguments["bs"] == 6


def test_shared_expert_dp_keeps_tp_aligned_capture_sizes_main():
    # 10 x 2 = 20 -> ladder [1, 2, 4, 8, 16, 20]; enable_shared_expert_dp, TP 8: multiples of 8 -> 16 -> 16 / 8 = 2
    text = serve("-dp 2 -tp 8 --max-num-seqs 10 --speculative-config '{\"num_speculative_tokens\": 1}' "
                 "--additional-config '{\"enable_shared_expert_dp\": true}'")
    assert calls(text, version="main")["decode"].arguments["bs"] == 2
    assert at_capacity(calls(text, version="0.13.0")).arguments["bs"] == 3  # not on v0.13: ceil(20 / 8)


def test_tp_ceil_division():
    # 10 x (1 + 1) = 20 tokens, TP 8: ceil(20 / 8) = 3 tokens per rank, capacity 24
    text = serve("-dp 2 -tp 8 --max-num-seqs 10 --speculative-config '{\"num_speculative_tokens\": 1}'")
    d = at_capacity(calls(text, version="main"))
    assert d.arguments["bs"] == 3 and "MC2 capacity 24" in d.derivation["op"]


# ---- eager (no graphs) ----

@pytest.mark.parametrize("version,seqs,bs", [
    ("main", 600, 512),     # main: 600 tokens, no 512 cap on tokens, but 600 / TP 1 = 600 > 512 per rank -> 512
    ("main", 512, 512),     # just inside the per-rank cap
    ("main", 513, 512),     # just outside
    ("0.13.0", 600, 512),   # v0.13: min(600, 512) = 512 (ascend_forward_context.py:182), TP 1
    ("0.11.0", 600, 512),   # v0.11: min(600, 512) = 512 (model_runner_v1.py:547-548)
    ("0.13.0", 511, 511),
])
def test_eager_tokens_and_caps_tp1(version, seqs, bs):
    text = serve(f"-dp 16 -tp 1 --max-num-seqs {seqs} --max-num-batched-tokens 8192 --enforce-eager")
    assert calls(text, version=version)["decode"].arguments["bs"] == bs


def test_eager_main_has_no_token_cap_before_the_tp_split():
    # main eager: 600 x (1 + 3) = 2400 tokens (no 512 cap, :185), TP 8 -> ceil(2400 / 8) = 300 <= 512;
    # v0.13 caps the tokens first: min(2400, 512) = 512, / 8 = 64
    text = serve("-dp 2 -tp 8 --max-num-seqs 600 --max-num-batched-tokens 8192 --enforce-eager "
                 "--speculative-config '{\"num_speculative_tokens\": 3}'")
    assert calls(text, version="main")["decode"].arguments["bs"] == 300
    assert calls(text, version="0.13.0")["decode"].arguments["bs"] == 64


def test_cudagraph_mode_none_is_eager_on_v013_and_main():
    text = serve("-dp 16 -tp 1 --max-num-seqs 300 --max-num-batched-tokens 8192 "
                 "--compilation-config '{\"cudagraph_mode\": \"NONE\"}'")
    assert calls(text, version="main")["decode"].arguments["bs"] == 300  # eager: 300, no min(, 512) graph cap
    dotted = serve("-dp 16 -tp 1 --max-num-seqs 300 --max-num-batched-tokens 8192 "
                   "--compilation-config.cudagraph_mode=NONE")
    assert calls(dotted, version="main")["decode"].arguments["bs"] == 300


# ---- enable_prefill_mc2 (main): capacity from max_num_batched_tokens, per-rank caps 512 / 4096 ----

@pytest.mark.parametrize("mnbt,bs", [(2048, 512), (2052, 512), (2044, 511)])
def test_prefill_mc2_mc2_cap_512(mnbt, bs):
    # ceil(2048 / 4) = 512 (inside), ceil(2052 / 4) = 513 -> 512, ceil(2044 / 4) = 511
    text = serve(f"-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens {mnbt} "
                 "--additional-config '{\"enable_prefill_mc2\": true}'")
    c = calls(text, version="main")
    assert at_capacity(c).arguments["bs"] == bs
    assert ("prefill" in c) is (mnbt > bs * 4)  # steps above the capacity leave MC2


@pytest.mark.parametrize("mnbt,nmt", [(16384, 4096), (16388, 4096), (16380, 4095)])
def test_prefill_mc2_megamoe_cap_4096(mnbt, nmt):
    # MegaMoE: ceil(16384 / 4) = 4096 (inside); 16388 -> 4097 -> 4096; 16380 -> 4095
    text = serve(f"-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens {mnbt} "
                 "--additional-config '{\"enable_prefill_mc2\": true, \"enable_fused_mc2\": 1}'")
    d = at_capacity(calls(text, version="main", cann="9.1.0"))
    assert d.op == "mega_moe" and d.arguments["num_max_tokens_per_rank"] == nmt


def test_prefill_mc2_dispatch_ffn_combine_cap_512():
    # CANN 9.0: no cann_ops_transformer assumed -> dispatch_ffn_combine, cap 512: ceil(4096 / 4) = 1024 -> 512
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 4096 "
                 "--additional-config '{\"enable_prefill_mc2\": true, \"enable_fused_mc2\": 1}'")
    d = at_capacity(calls(text, version="main", cann="9.0.1"))
    assert d.op == "dispatch_ffn_combine" and d.arguments["bs"] == 512


def test_prefill_mc2_is_ignored_before_main():
    text = serve("-dp 4 -tp 4 --max-num-seqs 16 --max-num-batched-tokens 2048 "
                 "--additional-config '{\"enable_prefill_mc2\": true}'")
    assert calls(text, version="0.13.0")["decode"].arguments["bs"] == 4  # min(16, 512) = 16 / 4


# ---- v0.11 torchair graph mode ----

@pytest.mark.parametrize("seqs,spec,tp,bs", [
    (16, 3, 4, 16),  # 64, > 1 speculative: lcm(4, 64) = 64 -> 64 / 4 = 16
    (5, 2, 4, 15),   # 15: lcm(4, 15) = 60 -> 15
    (15, 1, 4, 8),   # 30, rounded up to a multiple of 4 = 32 -> 8
    (16, 0, 4, 4),   # 16 -> 16 -> 4
])
def test_torchair_capacity(seqs, spec, tp, bs):
    text = serve(f"-dp 4 -tp {tp} --max-num-seqs {seqs} --speculative-config '{{\"num_speculative_tokens\": {spec}}}' "
                 "--additional-config '{\"torchair_graph_config\": {\"enabled\": true}}'")
    c = calls(text, version="0.11.0")
    assert c["decode"].arguments["bs"] == bs
    assert F.torchair_capacity(seqs, spec, tp) == bs * tp


def test_torchair_ep_below_16_runs_all_to_all():
    text = serve("-dp 2 -tp 4 --max-num-seqs 16 --additional-config '{\"torchair_graph_config\": {\"enabled\": true}}'")
    d = calls(text, version="0.11.0")["decode"]
    assert d.kind == "none" and "EP 8 < 16" in d.why_none


# ---- defaults when the flags are absent ----

def test_vllm_defaults_when_flags_absent():
    # vLLM API-server defaults for < 70 GiB devices: max_num_seqs 256, max_num_batched_tokens 2048;
    # main: min(256 x 1, 512) = 256, <= 2048; TP 1 -> 256
    d = calls("vllm serve vllm-ascend/DeepSeek-R1-W8A8 --quantization ascend --enable-expert-parallel -dp 16\n",
              version="main")["decode"]
    assert d.arguments["bs"] == 256 and "default" in d.derivation["bs"]


def test_launch_from_python_module_entrypoint():
    text = ("python3 -m vllm.entrypoints.openai.api_server --model vllm-ascend/DeepSeek-R1-W8A8 --quantization ascend "
            "--enable-expert-parallel -dp 4 -tp 4 --max-num-seqs 16\n")
    assert calls(text, version="main")["decode"].arguments["bs"] == 4


def test_formulas_ladders():
    assert F.vllm011_ladder(32) == [1, 2, 4, 8, 16, 24, 32]
    assert F.ascend_ladder(20) == [1, 2, 4, 8, 16, 20]  # max appended when not on the ladder
    assert F.ascend_ladder(272)[-3:] == [248, 256, 272]
    assert F.v011_max_capture(16, 24, None, None) == 24  # [.., 24, 32] filtered <= 24
    assert F.v011_spec_enlarged(24, 16, 3) == 96 and F.v011_spec_enlarged(64, 16, 3) == 64
    assert F.dp_buffer_mb(4, 1) == 50  # ceil(5 x 4 B / MiB) = 1 -> min 50


def test_unknown_max_num_seqs_leaves_bs_out():
    lau = launch(serve("-dp 4 -tp 4 --max-num-seqs $UNSET"))
    d = derive(lau, version="main")
    assert d.calls == [] and "MC023" in [n.code for n in d.notes]
