"""DeepEP buffer sizes through the engine, against hand-computed figures (gpu-rules.md 1.4-1.6).

ch = num_sms / 2, nvl = min(R, 8), rdma = max(R / 8, 1); NVL slot payload hidden_bytes + 2056,
RDMA slot payload 2 * (hidden_bytes + 2072) with int64 top-k indices; ceil128 rounds up to 128.
"""
from __future__ import annotations

import json

from gpu_cases import INTRA, LL, NORMAL, run_lint
from moecfg.core.diagnostics import Report
from moecfg.render import load

# 16 ranks, 24 SMs: ch 12, nvl 8, rdma 2; dispatch (36, 288, 20, 128) -> rdma_recv stored 140,
# combine (4, 288, 12, 128) -> stored 132.
# NVL: 12*8*(2*2+3)*4 = 2688; 12*8*288 = 27648 slots * (14336 + 2056) = 453,206,016; sum 453,208,704 = 3,540,693 * 128.
NVL_16 = 453_208_704
# RDMA (dispatch dominates): 12*2*144 = 3456; 12*2*140 = 3360 slots * 2 * (14336 + 2072) = 110,261,760; sum 110,265,216.
RDMA_16 = 110_265_216
# 8 ranks, 20 SMs: ch 10, nvl 8, rdma 1: 10*8*5*4 = 1600; 10*8*256 = 20480 slots * 16392 = 335,708,160;
# sum 335,709,760 -> ceil128 = 335,709,824.
NVL_8 = 335_709_824
# Intranode host checks, top-8: N8 dispatch 8*8*4 + 4*10*8*4 + 20480 * (14336 + 4 + 64 + 32) = 256 + 1280 + 295,649,280
# = 295,650,816; N9 combine 10*8*4*2 + 20480 * (14336 + 4 + 32) = 640 + 294,338,560 = 294,339,200.
N8_8 = 295_650_816
# LL, T 128, hidden 7168, E 256: combine msg 7168*2 + 56*4 = 14560 dominates; 4*256*128*14560 = 1,908,408,320
# + 2 * align128(256*4) = 2048 -> total 1,908,410,368 (a multiple of 128) -> "+128" rounding gives 1,908,410,496.
LL_TOTAL = 1_908_410_368
LL_HINT = 1_908_410_496


def test_internode_normal_buffers():
    out = run_lint(NORMAL)
    nvl, rdma = out.buffers["nvl"], out.buffers["rdma"]
    assert nvl["required_bytes"] == NVL_16 and rdma["required_bytes"] == RDMA_16
    assert nvl["sufficient"] is None and "configured_bytes" not in nvl
    assert rdma["terms"]["dispatch rdma_recv (stored)"] == 140 and rdma["terms"]["rdma_hint(dispatch)"] == RDMA_16
    assert nvl["terms"]["hidden_bytes"] == 14336 and nvl["terms"]["num_channels"] == 12
    assert "2056" in nvl["formula"] and "2072" in rdma["formula"]


def test_fp8_dispatch_is_sized_like_bf16():
    assert run_lint(NORMAL, dtype="fp8").buffers["nvl"]["required_bytes"] == NVL_16


def test_configured_buffers_report_headroom_and_shortfall():
    out = run_lint(NORMAL, num_nvl_bytes=1 << 30, num_rdma_bytes=RDMA_16 - 128)
    nvl, rdma = out.buffers["nvl"], out.buffers["rdma"]
    assert nvl["sufficient"] is True and nvl["headroom_bytes"] == (1 << 30) - NVL_16  # 620,532,120
    assert rdma["sufficient"] is False and rdma["shortfall_bytes"] == 128
    d = out.one("MC651")
    assert d.severity == "error" and str(RDMA_16) in d.message and "short by 128 bytes" in d.message
    assert f"set num_rdma_bytes: {RDMA_16}" in d.message and d.path == "/num_rdma_bytes"


def test_internode_nvl_exactly_the_hint_is_enough():
    out = run_lint(NORMAL, num_nvl_bytes=NVL_16, num_rdma_bytes=RDMA_16)
    assert not out.of("MC650") and not out.of("MC651")
    assert run_lint(NORMAL, num_nvl_bytes=NVL_16 - 128).one("MC650").severity == "error"


def test_intranode_hint_versus_host_check():
    out = run_lint(INTRA, num_nvl_bytes=NVL_8)
    assert out.buffers["nvl"]["required_bytes"] == NVL_8 and out.buffers["rdma"]["required_bytes"] == 0
    assert not out.of("MC650")
    # below the hint but at DeepEP's own intranode check (N8 dominates): a warning
    warn = run_lint(INTRA, num_nvl_bytes=N8_8).one("MC650")
    assert warn.severity == "warning" and str(N8_8) in warn.message
    # 128 bytes below the host check: an error
    assert run_lint(INTRA, num_nvl_bytes=N8_8 - 128).one("MC650").severity == "error"


def test_low_latency_buffer_and_plus_128_rounding():
    out = run_lint(LL, num_rdma_bytes=LL_HINT)
    rdma = out.buffers["rdma"]
    assert rdma["required_bytes"] == LL_HINT and rdma["terms"]["total"] == LL_TOTAL and rdma["sufficient"] is True
    assert out.buffers["nvl"]["required_bytes"] == 0
    assert rdma["terms"]["combine_msg"] == 14560 and rdma["terms"]["dispatch_msg"] == 16 + 7168 * 2
    # DeepEP asserts only the layout total: at the total it is a warning, 128 below an error
    assert run_lint(LL, num_rdma_bytes=LL_TOTAL).one("MC651").severity == "warning"
    assert run_lint(LL, num_rdma_bytes=LL_TOTAL - 128).one("MC651").severity == "error"


def test_low_latency_derived_tensor_sizes():
    derived = run_lint(LL).derived
    tensors = derived["ll_dispatch_tensors"]
    # L = 256 / 16 = 16 local experts, R*T = 16*128 = 2048 rows, FP8: 16 * 2048 * 7168 = 234,881,024 B
    assert tensors["packed_recv_x"] == [16, 2048, 7168] and tensors["packed_recv_x_bytes"] == 234_881_024
    # float scales [16, 56, 2048]: 16 * 56 * 2048 * 4 = 7,340,032; src_info int32 16 * 2048 * 4 = 131,072
    assert tensors["packed_recv_x_scales_bytes"] == 7_340_032 and tensors["packed_recv_src_info_bytes"] == 131_072
    # layout_range int64 [16, 16] = 2048, count int32 [16] = 64; total 242,354,240
    assert tensors["total_bytes"] == 234_881_024 + 7_340_032 + 131_072 + 2048 + 64
    assert derived["recommended_num_qps_per_rank"] == 16 and derived["max_tokens_per_rank_for_qp_depth"] == 511
    assert derived["max_experts_for_device_sms"] == 1848  # 14 * 132


def test_normal_derived_topology_and_configs():
    derived = run_lint(NORMAL, num_ranks=32).derived
    assert derived["num_nodes"] == 4 and derived["nvl_peers"] == 8 and derived["internode"] is True
    assert derived["local_experts"] == 8 and derived["config_source"] == "default table"
    assert derived["dispatch_config"] == {"num_sms": 24, "nvl_send": 32, "nvl_recv": 288, "rdma_send": 8,
                                          "rdma_recv": 128, "rdma_recv_stored": 128}
    assert derived["combine_config"]["nvl_send"] == 1
    intra = run_lint(INTRA).derived
    assert intra["num_nodes"] == 1 and intra["internode"] is False and intra["nvshmem"] is False


def test_file_configs_replace_the_table():
    # dispatch (6, 512, 6, 128) at 8 ranks, 20 SMs: 10*8*512 = 40960 slots * 16392 = 671,416,320 + 1600
    # = 671,417,920 = 5,245,452.5 * 128 -> ceil128 5,245,453 * 128 = 671,417,984
    out = run_lint(INTRA, dispatch_config=[6, 512, 6, 128])
    assert out.buffers["nvl"]["required_bytes"] == 671_417_984
    assert out.derived["config_source"] == "file + default table"


def test_no_table_entry_means_no_buffers():
    out = run_lint(NORMAL, num_ranks=40, num_experts=280)
    assert out.buffers == {} and out.of("MC604")


def test_json_report_shape():
    report = Report(results=run_lint(NORMAL, num_nvl_bytes=1 << 30).results, files=1)
    doc = json.loads(load("json").render(report, color=False, command="check"))
    result = doc["results"][0]
    assert result["kind"] == "deepep" and result["op"] == "normal" and result["valid"] is True
    assert set(result["buffers"]) == {"nvl", "rdma"}
    nvl = result["buffers"]["nvl"]
    assert {"required_bytes", "configured_bytes", "sufficient", "headroom_bytes", "formula", "terms"} <= set(nvl)
    assert "required_mb" not in nvl  # MB only for HCCL domains (contract 3)
    assert result["buffers"]["rdma"]["sufficient"] is None
    assert result["derived"]["num_nodes"] == 2


def test_uncompiled_ll_hidden_with_huge_t_reports_instead_of_crashing():
    # hidden 9: T = 1 gives a send buffer of 16 + 18 = 34 bytes, which DeepEP's layout asserts against (% 16);
    # T = 2^31 is a multiple of 16 and over the 32 GiB wall, so the largest-T search must not crash
    out = run_lint(LL, hidden=9, num_experts=16, num_max_dispatch_tokens_per_rank=2**31, nvshmem_qp_depth=2**33)
    assert "MC621" in out.codes and "MC654" in out.codes
