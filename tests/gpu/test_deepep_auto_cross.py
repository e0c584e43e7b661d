"""`kind: deepep` api v1: mode auto, DeepEP's own Config forms, env NVSHMEM_QP_DEPTH, cross rules MC643/MC644,
wasted memory MC657/MC658, and the front-end helpers of arguments.py."""
from __future__ import annotations

import pytest

from gpu_cases import INTRA, LL, NORMAL, run_lint
from moecfg.backends.deepep import arguments as a
from moecfg.backends.deepep.ops.v1 import formulas as fx

AUTO = {"kind": "deepep", "mode": "auto", "num_ranks": 16, "hidden": 7168, "num_experts": 256, "num_topk": 8,
        "num_max_dispatch_tokens_per_rank": 128}
NVL16, RDMA16 = 377_673_984, 91_887_744  # normal hints for 16 ranks, 20 SMs, hidden_bytes 14336 (default table)
LL16 = 1_908_410_496  # get_low_latency_rdma_size_hint(128, 7168, 16, 256)


# ---- mode: auto -------------------------------------------------------------------------------------------
def test_auto_sizes_one_buffer_for_both_modes():
    out = run_lint(AUTO)
    assert out.codes == set()
    assert out.buffers["nvl"]["required_bytes"] == NVL16
    rdma = out.buffers["rdma"]
    assert rdma["required_bytes"] == max(RDMA16, LL16) == LL16
    assert rdma["terms"]["normal RDMA hint"] == RDMA16 and rdma["terms"]["low-latency RDMA hint"] == LL16
    assert out.derived["low_latency_mode"] is True and out.derived["recommended_num_qps_per_rank"] == 20


def test_auto_matches_sglang_arguments():
    args = a.sglang_buffer_arguments("auto", 16, 7168, 256, 2, 128)
    assert args == {"num_nvl_bytes": NVL16, "num_rdma_bytes": LL16, "low_latency_mode": True, "num_qps_per_rank": 20}
    assert run_lint(AUTO, **{k: args[k] for k in ("num_nvl_bytes", "num_rdma_bytes", "num_qps_per_rank")}).codes == set()


def test_auto_needs_tokens_and_runs_both_mode_rules():
    assert "MC005" in run_lint(AUTO, num_max_dispatch_tokens_per_rank=None).codes
    assert "MC641" in run_lint(AUTO, num_max_dispatch_tokens_per_rank=600).codes  # low-latency rule
    assert "MC613" in run_lint(AUTO, num_qps_per_rank=11).codes  # normal internode QPs: 10 or >= 20
    assert "MC642" in run_lint(AUTO, num_qps_per_rank=10).codes  # low-latency QPs: >= 16 local experts
    assert run_lint(AUTO, num_qps_per_rank=20).codes == set()  # SGLang's max(num_sms, E / R)


@pytest.mark.parametrize("rdma, severity", [(LL16, None), (LL16 - 128, "warning"), (LL16 - 256, "error")])
def test_auto_rdma_is_the_max_of_both(rdma, severity):
    # LL16 - 128 still passes DeepEP's own layout check (total 1908410368): a warning; below it an error
    found = run_lint(AUTO, num_rdma_bytes=rdma).of("MC651")
    assert [d.severity for d in found] == ([severity] if severity else [])


def test_auto_rdma_on_one_node_is_allowed():
    # low_latency_mode=True: DeepEP accepts an RDMA buffer with 8 ranks (normal mode refuses it, MC655)
    assert "MC655" not in run_lint(AUTO, num_ranks=8, num_rdma_bytes=LL16).codes
    assert "MC655" in run_lint(INTRA, num_rdma_bytes=LL16).codes


# ---- Config forms -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, expect", [
    ([24, 6, 256], {"num_sms": 24, "nvl_send": 6, "nvl_recv": 256, "rdma_send": 6, "rdma_recv": 256}),
    ([24], {"num_sms": 24, "nvl_send": 6, "nvl_recv": 256, "rdma_send": 6, "rdma_recv": 256}),
    ([24, 36, 288, 20, 128], {"num_sms": 24, "nvl_send": 36, "nvl_recv": 288, "rdma_send": 20, "rdma_recv": 128}),
    ({"num_sms": 24, "num_max_nvl_chunked_recv_tokens": 288},
     {"num_sms": 24, "nvl_send": 6, "nvl_recv": 288, "rdma_send": 6, "rdma_recv": 256}),
])
def test_deepep_config_short_forms(value, expect):
    out = run_lint(NORMAL, dispatch_config=value, num_sms=None)
    got = out.derived["dispatch_config"]
    assert {k: got[k] for k in expect} == expect
    assert out.derived["num_channels"] == 12  # num_sms from the Config


def test_moecfg_four_list_keeps_its_meaning():
    got = run_lint(NORMAL, dispatch_config=[36, 288, 20, 128]).derived["dispatch_config"]
    assert (got["num_sms"], got["nvl_send"], got["rdma_recv"]) == (24, 36, 128)


@pytest.mark.parametrize("value", [[1, 2, 3, 4, 5, 6], [], {"num_sms": 24, "nvl_recv": 288}, "24,6,256"])
def test_wrong_config_shape_names_deepeps_signature(value):
    d = run_lint(NORMAL, dispatch_config=value).one("MC004")
    assert "Config(num_sms=20, num_max_nvl_chunked_send_tokens=6" in d.message


def test_config_sms_must_agree():
    assert "MC610" in run_lint(NORMAL, dispatch_config=[24, 6, 256], combine_config=[20, 4, 288]).codes
    assert "MC610" in run_lint(NORMAL, dispatch_config=[20, 6, 256]).codes  # num_sms: 24 in the base
    assert "MC610" not in run_lint(NORMAL, dispatch_config=[24, 6, 256], combine_config=[24, 4, 288]).codes


# ---- env, MC641 / MC643 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("t, depth, fires", [(511, None, False), (512, None, True), (1023, 2048, False),
                                             (1024, 2048, True), (1024, 2050, False)])
def test_qp_depth_from_env(t, depth, fires):
    env = {"NVSHMEM_QP_DEPTH": depth} if depth else None
    out = run_lint(LL, num_max_dispatch_tokens_per_rank=t, env=env)
    assert ("MC641" in out.codes) is fires


def test_env_qp_depth_as_string_and_unknown_env():
    assert "MC641" not in run_lint(LL, num_max_dispatch_tokens_per_rank=600, env={"NVSHMEM_QP_DEPTH": "2048"}).codes
    assert "MC013" in run_lint(LL, env={"NVSHMEM_QP_DEPTHS": 2048}).codes


@pytest.mark.parametrize("t, fires", [(1024, False), (1028, True)])
def test_ll_token_cap(t, fires):
    out = run_lint(LL, num_max_dispatch_tokens_per_rank=t, env={"NVSHMEM_QP_DEPTH": 4096})
    assert ("MC643" in out.codes) is fires
    assert ("MC643" in run_lint(AUTO, num_max_dispatch_tokens_per_rank=t, nvshmem_qp_depth=4096).codes) is fires


# ---- MC644 SGLang FP8 sizing --------------------------------------------------------------------------------
FP8_INTRA = dict(INTRA, dtype="fp8")


def test_sglang_fp8_intranode_is_below_deepeps_combine_check():
    # SGLang: nvl hint with hidden_bytes 7168 * 1 = 188909184; DeepEP intranode combine (buffer.hpp:807-811):
    # 10 ch * 8 * 4 * 2 + 10 * 8 * 256 * (7168 * 2 + 4 + 8 * 4) = 640 + 20480 * 14372 = 294339200
    sg = a.sglang_buffer_arguments("normal", 8, 7168, 256, params_bytes=1)["num_nvl_bytes"]
    assert sg == 188_909_184 and fx.intranode_combine_bytes(8, 20, 256, 7168, 2, 8) == 294_339_200
    out = run_lint(FP8_INTRA, num_nvl_bytes=sg)
    # below DeepEP's host assertion for the BF16 combine: the first combine fails whatever the load (issue 32)
    assert out.one("MC644").severity == "error" and "MC650" not in out.codes
    assert "first combine fails" in out.one("MC644").message
    assert "MC644" not in run_lint(FP8_INTRA, num_nvl_bytes=335_709_824).codes  # the hint with hidden * 2
    assert "MC650" in run_lint(FP8_INTRA, num_nvl_bytes=sg + 128).codes  # not SGLang's figure: the generic rule


@pytest.mark.parametrize("nvl, severity", [(294_339_200 - 128, "error"), (294_339_200, "warning")])
def test_explicit_nvl_bytes_against_deepeps_combine_assertion(nvl, severity):
    # buffer.hpp:807-811 (DeepEP@dd758ca): 294339200 bytes for this setup (see above); one 128-byte step below fails
    # the host assertion at the first combine (error); at it, the assertion passes but the value is below the hint
    out = run_lint(FP8_INTRA, num_nvl_bytes=nvl)
    found = [d for d in out.diagnostics if d.code in ("MC644", "MC650")]
    assert found and {d.severity for d in found} == {severity}


def test_sglang_fp8_auto_internode():
    args = a.sglang_buffer_arguments("auto", 16, 7168, 256, params_bytes=1)
    out = run_lint(dict(AUTO, dtype="fp8"), num_nvl_bytes=args["num_nvl_bytes"], num_rdma_bytes=args["num_rdma_bytes"])
    assert out.one("MC644").message.startswith("`num_nvl_bytes` = 212523264")
    assert "MC651" not in out.codes  # RDMA = the LL hint, large enough


# ---- MC657 / MC658 ------------------------------------------------------------------------------------------
def test_unused_nvl_in_low_latency():
    vllm = a.vllm_buffer_arguments("deepep_low_latency", 16, 7168, 256, max_num_tokens=128)
    out = run_lint(LL, num_nvl_bytes=vllm["num_nvl_bytes"], num_rdma_bytes=vllm["num_rdma_bytes"])
    assert out.one("MC657").severity == "info"
    assert "MC657" not in run_lint(LL, num_nvl_bytes=0).codes


@pytest.mark.parametrize("have, fires", [(4 * RDMA16, False), (4 * RDMA16 + 128, True), (1 << 30, True)])
def test_oversized_rdma(have, fires):
    # 4 x 91887744 = 367550976 (263 MiB above the hint): just above 4x fires; 1 GiB (vLLM's fixed size) is 11.7x
    assert ("MC658" in run_lint(dict(NORMAL, num_sms=20), num_rdma_bytes=have).codes) is fires


def test_oversized_is_quiet_next_to_an_error():
    assert run_lint(dict(NORMAL, num_sms=20), num_rdma_bytes=(1 << 32)).codes >= {"MC653"}
    assert "MC658" not in run_lint(dict(NORMAL, num_sms=20), num_rdma_bytes=(1 << 32)).codes


# ---- arguments.py -------------------------------------------------------------------------------------------
def test_vllm_high_throughput_arguments():
    assert a.vllm_buffer_arguments("deepep_high_throughput", 16, 7168, 256) == {
        "num_nvl_bytes": 1 << 30, "num_rdma_bytes": 1 << 30, "low_latency_mode": False, "num_qps_per_rank": 10}
    assert a.vllm_buffer_arguments("deepep_high_throughput", 8, 7168, 256)["num_rdma_bytes"] == 0


def test_megatron_arguments_use_two_bytes_for_fp8():
    assert a.megatron_buffer_arguments(16, 7168, elem_size=1) == a.megatron_buffer_arguments(16, 7168)
    assert a.megatron_buffer_arguments(16, 7168)["num_nvl_bytes"] == NVL16


def test_documents_check_clean():
    args = a.sglang_buffer_arguments("low_latency", 16, 7168, 256)
    doc = a.deepep_document("low_latency", 16, 7168, 256, 8, num_max_dispatch_tokens_per_rank=128, arguments=args)
    assert run_lint(doc).codes == set()
    assert run_lint(a.elastic_document(16, 256, 4096, 7168, 8)).buffers["elastic"]["required_bytes"] == 1_218_445_312
    assert run_lint(a.hybridep_document(64, 7168, 8192, 4, num_of_hybrid_ep_ranks_per_nvlink_domain=4)).codes == set()
