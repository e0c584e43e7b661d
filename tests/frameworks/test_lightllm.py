"""frameworks/lightllm: `python -m lightllm.server.api_server ... --enable_ep_moe` (1.2) / `MOE_MODE=EP ...` (1.1) ->
the DeepEP buffers LightLLM builds, checked by the deepep rules, and LightLLM's start-up checks MC750-MC754.

Hand-computed from ModelTC/LightLLM v1.2.0 @25475e949 lightllm/distributed/communication_op.py:192-242 and
lightllm/utils/envs_utils.py:71-87, v1.1.0 @0f5d0ccf9 communication_op.py:141-156; DeepSeek-R1: hidden 7168, 256
routed experts, top-8. Scripts go through the real shell reader.
"""
from __future__ import annotations

import pytest

from moecfg.frameworks import LaunchContext
from tests.frameworks.gpu_helpers import codes, derive, finding, lint, note_codes

SERVE = "python -m lightllm.server.api_server --model_dir /models/DeepSeek-R1"


def _ll_rdma(t: int, hidden: int = 7168, experts: int = 256) -> int:
    """DeepEP get_low_latency_rdma_size_hint by hand: per-token messages of the dispatch (16 B header + BF16 row,
    which exceeds FP8 row + scales) and the combine (BF16 row + scales), send and recv buffers, two of each."""
    dispatch_msg = 16 + max(2 * hidden, hidden + hidden // 128 * 4)
    combine_msg = hidden // 128 * 4 + 2 * hidden
    send = max(t * dispatch_msg, experts * t * combine_msg)
    recv = experts * t * max(dispatch_msg, combine_msg)
    signaling = (4 * experts + 127) // 128 * 128
    return (2 * send + 2 * recv + 2 * signaling + 128) // 128 * 128


def calls(text: str, ctx=LaunchContext()):
    return {c.role: c for c in derive(text, ctx).calls}


def test_ll_rdma_hand_value():
    assert _ll_rdma(256) == 3816818816  # 4 x 256 x 256 x 14560 + 2 x 1024, +128 rounded


def test_recognised_entry_points():
    from moecfg.frameworks import recognise
    from moecfg.sources.readers import read_shell

    for text in (f"{SERVE} --tp 8\n", "python3 lightllm/server/api_server.py --tp 8\n"):
        (launch,) = read_shell(text).launches
        assert recognise(launch).NAME == "lightllm"


def test_v12_decode_buffer_and_prefill_elastic():
    c = calls(f"{SERVE} --tp 8 --dp 8 --enable_ep_moe --batch_max_tokens 6001\n")
    d, p = c["decode"].arguments, c["prefill"].arguments
    assert (d["mode"], d["num_ranks"], d["num_experts"], d["num_max_dispatch_tokens_per_rank"]) == \
        ("low_latency", 8, 256, 256)
    assert d["num_rdma_bytes"] == _ll_rdma(256) and d["num_qps_per_rank"] == 32 and d["num_nvl_bytes"] == 0
    assert (p["api"], p["num_max_tokens_per_rank"], p["use_fp8_dispatch"]) == ("v2", 6008, True)  # 6001 -> x8
    assert "--tp 8" in c["decode"].derivation["num_ranks"]


def test_v12_prefill_cap_defaults_to_16384_over_dp():
    c = calls(f"{SERVE} --tp 16 --nnodes 2 --dp 16 --enable_ep_moe\n")
    assert c["prefill"].arguments["num_max_tokens_per_rank"] == 1024  # 16384 // 16, already a multiple of 8
    assert c["decode"].arguments["num_rdma_bytes"] == _ll_rdma(256) and c["decode"].arguments["num_qps_per_rank"] == 16


def test_decode_variable_sets_the_cap():
    c = calls(f"NUM_MAX_DISPATCH_TOKENS_PER_RANK_DECODE=128 {SERVE} --tp 8 --dp 8 --enable_ep_moe "
              "--graph_max_batch_size 128\n")
    assert c["decode"].arguments["num_rdma_bytes"] == _ll_rdma(128)


def test_no_ep_builds_no_buffer():
    (call,) = derive(f"{SERVE} --tp 8 --dp 8\n").calls
    assert call.kind == "none" and "--enable_ep_moe" in call.why_none


@pytest.mark.parametrize("graph, mtp, overlap, bad", [
    (256, 0, False, False), (257, 0, False, True),  # cap 256: the default graph batch is just inside
    (85, 2, False, False), (86, 2, False, True),  # 85 x 3 = 255, 86 x 3 = 258
    (513, 0, True, False), (514, 0, True, True),  # halved by microbatch overlap: 256, 257
])
def test_decode_graph_against_the_low_latency_cap(graph, mtp, overlap, bad):
    extra = f" --mtp_step {mtp} --mtp_mode eagle_with_att" if mtp else ""
    extra += " --enable_decode_microbatch_overlap" if overlap else ""
    res = lint(f"{SERVE} --tp 8 --dp 8 --enable_ep_moe --graph_max_batch_size {graph}{extra}\n")
    assert ("MC751" in codes(res)) is bad
    if bad:
        d = finding(res, "MC751")
        assert d.severity == "error" and "NUM_MAX_DISPATCH_TOKENS_PER_RANK_DECODE=" in d.message


def test_decode_graph_not_checked_without_cuda_graphs():
    res = lint(f"{SERVE} --tp 8 --dp 8 --enable_ep_moe --graph_max_batch_size 1024 --disable_cudagraph\n")
    assert "MC751" not in codes(res)


@pytest.mark.parametrize("cap, bad", [(6000, False), (5999, True)])
def test_prefill_cap_against_batch_max_tokens(cap, bad):
    res = lint(f"NUM_MAX_DISPATCH_TOKENS_PER_RANK_PREFILL={cap} {SERVE} --tp 8 --dp 8 --enable_ep_moe "
               "--batch_max_tokens 6000\n")
    assert ("MC752" in codes(res)) is bad


@pytest.mark.parametrize("tp, nodes, bad", [(16, 2, False), (12, 8, True)])
def test_world_must_split_over_nodes(tp, nodes, bad):
    res = lint(f"{SERVE} --tp {tp} --nnodes {nodes} --dp {tp} --enable_ep_moe\n")
    assert ("MC750" in codes(res)) is bad


def test_experts_not_dividing_the_world_is_deepep_error_in_lightllm_knobs():
    d = finding(lint(f"{SERVE} --tp 24 --nnodes 3 --dp 24 --enable_ep_moe\n"), "MC630")
    assert d.severity == "error" and "--tp" in d.message


def test_old_variable_on_12_is_not_read():
    res = lint(f"NUM_MAX_DISPATCH_TOKENS_PER_RANK=128 {SERVE} --tp 8 --dp 8 --enable_ep_moe --graph_max_batch_size 64\n")
    assert finding(res, "MC753").severity == "warning"
    same = lint(f"NUM_MAX_DISPATCH_TOKENS_PER_RANK=256 {SERVE} --tp 8 --dp 8 --enable_ep_moe\n")
    assert finding(same, "MC753").severity == "info"


def test_v11_one_buffer_from_moe_mode():
    der = derive(f"MOE_MODE=EP NUM_MAX_DISPATCH_TOKENS_PER_RANK=128 {SERVE} --tp 8 --dp 8 --graph_max_batch_size 64\n")
    assert der.version == "1.1.0" and "MC040" in note_codes(der)
    (call,) = der.calls
    a = call.arguments
    assert (a["mode"], a["num_nvl_bytes"], a["num_rdma_bytes"], a["num_qps_per_rank"]) == \
        ("auto", 10 ** 9, _ll_rdma(128), 32)


def test_v11_pinned_enable_ep_moe_is_not_a_flag():
    ctx = LaunchContext(framework_versions=(("lightllm", "1.1.0"),))
    der = derive(f"{SERVE} --tp 8 --dp 8 --enable_ep_moe\n", ctx)
    assert "MC022" in note_codes(der) and der.calls[0].kind == "none"


def test_ep_refuses_flashinfer_attention():
    res = lint(f"{SERVE} --tp 8 --dp 8 --enable_ep_moe --llm_decode_att_backend flashinfer\n")
    assert finding(res, "MC754").severity == "error"
    assert "MC754" not in codes(lint(f"{SERVE} --tp 8 --dp 8 --enable_ep_moe --llm_decode_att_backend fa3\n"))


def test_unknown_value_derives_nothing():
    der = derive(f"{SERVE} --tp $TP --dp 8 --enable_ep_moe\n")
    assert der.calls == [] and "MC023" in note_codes(der)


@pytest.mark.parametrize("t, bad", [(511, False), (512, True)])
def test_qp_depth_rule_of_deepep_runs_on_the_decode_buffer(t, bad):
    res = lint(f"NUM_MAX_DISPATCH_TOKENS_PER_RANK_DECODE={t} {SERVE} --tp 8 --dp 8 --enable_ep_moe\n")
    assert ("MC641" in codes(res)) is bad


def test_moe_mode_with_a_12_flag_reads_as_12_and_says_the_variable_is_not_read():
    """ModelTC/LightLLM@87881ae test/start_scripts/multi_pd_master/pd_decode.sh: MOE_MODE=EP beside --pd_trans_mode."""
    der = derive(f"MOE_MODE=EP {SERVE} --tp 8 --dp 8 --pd_trans_mode nixl_kv\n")
    assert der.version == "1.2.0" and "MC022" not in note_codes(der)
    (n,) = [n for n in der.notes if n.code == "MC753"]
    assert "--enable_ep_moe" in n.message and n.severity is None  # the rule's own severity: a warning


@pytest.mark.parametrize("sms, bad", [("", True), ("DEEPEP_SMS=16 ", False), ("DEEPEP_SMS=32 ", False),
                                      ("DEEPEP_SMS=18 ", True)])
def test_v11_internode_qps_against_deepep_sms(sms, bad):
    """LightLLM 1.1 passes experts // world = 256 // 16 = 16 QPs; DeepEP's internode kernels trap unless that is
    num_sms / 2 or >= num_sms (Buffer.num_sms = DEEPEP_SMS, else 20): 16 and 32 pass, 20 and 18 do not."""
    res = lint(f"{sms}MOE_MODE=EP {SERVE} --tp 16 --nnodes 2 --dp 16\n")
    assert ("MC613" in codes(res)) is bad
    if bad:  # once, in LightLLM's knob (the op's own MC613 is covered)
        assert "DEEPEP_SMS=16 or DEEPEP_SMS=32" in finding(res, "MC613").message


def test_device_from_settings_reaches_both_buffers():
    ctx = LaunchContext(device="H20")
    c = calls(f"{SERVE} --tp 8 --dp 8 --enable_ep_moe\n", ctx)
    assert c["decode"].arguments["device"] == "H20" and c["prefill"].arguments["device"] == "H20"
