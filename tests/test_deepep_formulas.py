"""Tests for moecfg.backends.deepep.ops.v1.formulas against hand-computed figures (gpu-rules.md section 1).

Every expected number is worked out in the comment next to it; none is copied from the code's output.
Shorthand: ch = num_sms // 2 channels, nvl = min(R, 8), rdma = max(R // 8, 1).
With int64 top-k indices the per-slot NVL payload is hidden_bytes + 2056
(2056 = SourceMeta 8 + top-k idx 128*8 + top-k weights 128*4 + scales 128*4), and the RDMA one is
2 * (hidden_bytes + 2072) (2072 = 2056 + one int4 of 16).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from moecfg.backends.deepep.ops.v1 import formulas as f

DSV3_HIDDEN = 7168
DSV3_HIDDEN_BYTES = 14336  # 7168 * max(2, 2)


def _hints(config: f.DeepEPConfig, hidden_bytes: int, num_ranks: int) -> tuple[int, int]:
    args = (config.num_sms, config.nvl_send, config.nvl_recv, config.rdma_send, config.rdma_recv)
    return f.nvl_buffer_size_hint(hidden_bytes, num_ranks, *args), f.rdma_buffer_size_hint(hidden_bytes, num_ranks, *args)


# ---------------------------------------------------------------------------------------------
# constants and small helpers
# ---------------------------------------------------------------------------------------------


def test_constants_match_spec_section_1_1():
    assert f.NUM_MAX_NVL_PEERS == 8
    assert f.NUM_MAX_RDMA_PEERS == 20
    assert f.NUM_WORKSPACE_BYTES == 33_554_432  # 32 MiB
    assert f.NUM_MAX_LOCAL_EXPERTS == 1024
    assert f.NUM_BUFFER_ALIGNMENT_BYTES == 128
    assert f.FINISHED_SUM_TAG == 1024
    assert f.HINT_NUM_MAX_TOPK == 128
    assert f.HINT_NUM_MAX_SCALES == 128
    assert f.SOURCE_META_BYTES == 8
    assert f.TOPK_IDX_BYTES == 8
    assert f.LOW_LATENCY_NUM_MAX_TOPK == 11
    assert f.DEFAULT_NUM_SMS == 20
    assert f.DEFAULT_NVSHMEM_QP_DEPTH == 1024
    assert f.NVSHMEM_CUMEM_GRANULARITY == 536_870_912
    assert f.INT_MAX == 2_147_483_647
    assert f.PYBIND_DEFAULT_CONFIG == f.DeepEPConfig(20, 6, 256, 6, 256)


@pytest.mark.parametrize(
    ("value", "alignment", "expected"),
    [
        (0, 128, 0),
        (1, 128, 128),
        (128, 128, 128),
        (129, 128, 256),
        (128, 6, 132),  # 22 * 6 = 132 >= 128
        (128, 20, 140),  # 7 * 20 = 140
        (128, 8, 128),
    ],
)
def test_align_up(value, alignment, expected):
    assert f.align_up(value, alignment) == expected


def test_align_up_rejects_non_positive_alignment():
    with pytest.raises(ValueError):
        f.align_up(10, 0)


@pytest.mark.parametrize(
    ("hidden", "elem_size", "expected"),
    [
        (7168, 2, 14336),  # BF16: 7168 * 2
        (7168, 1, 14336),  # FP8 is sized like BF16: 7168 * max(1, 2)
        (7168, 4, 28672),  # FP32: 7168 * 4
        (4096, 2, 8192),
    ],
)
def test_hidden_bytes(hidden, elem_size, expected):
    assert f.hidden_bytes(hidden, elem_size) == expected


@pytest.mark.parametrize(
    ("num_ranks", "rdma", "nvl"),
    [(2, 1, 2), (8, 1, 8), (16, 2, 8), (32, 4, 8), (160, 20, 8)],
)
def test_topology(num_ranks, rdma, nvl):
    assert f.num_rdma_ranks(num_ranks) == rdma
    assert f.num_nvl_ranks(num_ranks) == nvl


@pytest.mark.parametrize(
    ("send", "recv", "stored"),
    [
        (6, 128, 132),  # intranode default: ceil(128/6)=22 -> 132
        (20, 128, 140),  # 16-rank dispatch: ceil(128/20)=7 -> 140
        (12, 128, 132),  # 16-rank combine: ceil(128/12)=11 -> 132
        (8, 128, 128),  # already a multiple
    ],
)
def test_stored_rdma_chunked_recv(send, recv, stored):
    assert f.stored_rdma_chunked_recv(send, recv) == stored


# ---------------------------------------------------------------------------------------------
# 1.3 default tables
# ---------------------------------------------------------------------------------------------


def test_default_configs_for_16_and_32_ranks():
    assert f.default_dispatch_config(16) == f.DeepEPConfig(20, 36, 288, 20, 128)
    assert f.default_combine_config(16) == f.DeepEPConfig(20, 4, 288, 12, 128)
    assert f.default_dispatch_config(32, num_sms=24) == f.DeepEPConfig(24, 32, 288, 8, 128)
    assert f.default_combine_config(32, num_sms=24) == f.DeepEPConfig(24, 1, 288, 8, 128)


def test_default_configs_intranode_and_largest():
    assert f.default_dispatch_config(2) == f.DeepEPConfig(20, 24, 256, 6, 128)
    assert f.default_combine_config(4) == f.DeepEPConfig(20, 9, 256, 6, 128)
    assert f.default_combine_config(8) == f.DeepEPConfig(20, 4, 256, 6, 128)
    assert f.default_dispatch_config(96) == f.DeepEPConfig(20, 20, 480, 12, 128)
    assert f.default_dispatch_config(160) == f.DeepEPConfig(20, 28, 720, 12, 128)
    assert f.default_combine_config(160) == f.DeepEPConfig(20, 2, 720, 8, 128)


@pytest.mark.parametrize("num_ranks", [0, 1, 6, 12, 40, 256])
def test_default_configs_absent_rank_counts(num_ranks):
    assert f.default_dispatch_config(num_ranks) is None
    assert f.default_combine_config(num_ranks) is None


def test_default_config_rank_counts_equal_kernel_rank_counts():
    # every table entry has kernels, and every instantiated rank count has a table entry
    kernels = set(f.INTRANODE_KERNEL_NUM_RANKS.value) | set(f.INTERNODE_KERNEL_NUM_RANKS.value)
    assert f.DEFAULT_CONFIG_NUM_RANKS == (2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 144, 160)
    assert set(f.DEFAULT_CONFIG_NUM_RANKS) == kernels
    assert set(f.DISPATCH_CONFIG_TABLE) == set(f.COMBINE_CONFIG_TABLE)


@pytest.mark.parametrize("num_ranks", sorted(f.DISPATCH_CONFIG_TABLE))
def test_default_configs_pass_config_constructor(num_ranks):
    # csrc/legacy/config.hpp Config::Config (DeepEP@dd758ca): nvl_send < nvl_recv; rdma_send < rdma_recv after rounding;
    # rdma_send <= rounded // 2
    for config in (f.default_dispatch_config(num_ranks), f.default_combine_config(num_ranks)):
        assert 0 < config.nvl_send < config.nvl_recv
        stored = f.stored_rdma_chunked_recv(config.rdma_send, config.rdma_recv)
        assert config.rdma_send < stored and config.rdma_send <= stored // 2


@pytest.mark.parametrize("num_ranks", [r for r in sorted(f.COMBINE_CONFIG_TABLE) if r > 8])
def test_default_combine_configs_pass_internode_combine_asserts(num_ranks):
    # N12 and N13 (deep_ep.cpp:1389-1390, internode.cu:2358-2368), e.g. 16 ranks: r=2, wpf=12,
    # F=24, 288 % 2 == 0, 144 > max(12, 4), 144 - 12 >= 4, rdma_send 12 >= 12.
    c = f.default_combine_config(num_ranks)
    r = num_ranks // 8
    warps_per_forwarder = max(24 // r, 1)
    forwarders = r * warps_per_forwarder
    assert c.nvl_recv % r == 0 and c.nvl_send <= c.nvl_recv // r
    assert forwarders > 8 and forwarders % r == 0
    assert c.nvl_recv // r > max(c.rdma_send, c.nvl_send)
    assert c.nvl_recv // r - warps_per_forwarder >= c.nvl_send
    assert c.rdma_send >= warps_per_forwarder


# ---------------------------------------------------------------------------------------------
# 1.4 NVL hint
# ---------------------------------------------------------------------------------------------


def test_nvl_hint_dsv3_16_ranks_24_sms():
    # ch=12, nvl=8, rdma=2, nvl_recv=288 (dispatch 36/288 and combine 4/288 give the same value)
    # meta  = 12*8*(2*2+3)*4          =       2,688
    # slots = 12*8*288 = 27,648; 27,648 * (14,336 + 2,056) = 27,648 * 16,392 = 453,206,016
    # total = 453,208,704 = 128 * 3,540,693 -> already aligned
    expected = 453_208_704
    assert f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 24, 36, 288, 20, 128) == expected
    assert f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 24, 4, 288, 12, 128) == expected


def test_nvl_hint_dsv3_16_ranks_default_20_sms_rounds_up():
    # ch=10: meta = 10*8*7*4 = 2,240 (17.5 * 128); slots = 10*8*288 = 23,040 = 180*128
    # 23,040 * 16,392 = 377,671,680; total 377,673,920 -> ceil to 128 adds 64 -> 377,673,984
    assert f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 20, 36, 288, 20, 128) == 377_673_984


def test_nvl_hint_dsv3_32_ranks_24_sms():
    # rdma=4: meta = 12*8*(2*4+3)*4 = 4,224 (33*128); slots part 453,206,016 as for 16 ranks
    # total = 453,210,240 (aligned)
    assert f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 32, 24, 32, 288, 8, 128) == 453_210_240


def test_nvl_hint_dsv3_32_ranks_20_sms():
    # meta = 10*8*11*4 = 3,520 (27.5*128); 377,671,680 + 3,520 = 377,675,200 -> +64 = 377,675,264
    assert f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 32, 20, 32, 288, 8, 128) == 377_675_264


def test_nvl_hint_intranode_8_and_4_ranks():
    # 8 ranks: rdma=1, meta = 12*8*5*4 = 1,920 (15*128); slots = 12*8*256 = 24,576
    # 24,576 * 16,392 = 402,849,792; total = 402,851,712
    assert f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 8, 24, 6, 256, 6, 128) == 402_851_712
    # 4 ranks: nvl=4, meta = 12*4*5*4 = 960 (7.5*128); slots = 12*4*256 = 12,288
    # 12,288 * 16,392 = 201,424,896; total 201,425,856 -> +64 -> 201,425,920
    assert f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 4, 24, 6, 256, 6, 128) == 201_425_920


def test_nvl_hint_int32_topk_and_no_source_meta_variants():
    # int32 top-k: per slot 14,336 + 8 + 128*4 + 512 + 512 = 15,880; 27,648 * 15,880 = 439,050,240
    # + 2,688 = 439,052,928 (aligned: 216*15,880*128 + 21*128)
    assert (
        f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 24, 36, 288, 20, 128, topk_idx_bytes=4) == 439_052_928
    )
    # V1 DISABLE_NVSHMEM build: no SourceMeta: per slot 16,384; 27,648 * 16,384 = 452,984,832 + 2,688
    assert (
        f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 24, 36, 288, 20, 128, count_source_meta=False)
        == 452_987_520
    )


def test_nvl_hint_ignores_send_sizes_and_rdma_fields():
    base = f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 24, 36, 288, 20, 128)
    assert f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 24, 1, 288, 12, 512) == base
    assert f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 24, 36, 289, 20, 128) > base


def test_nvl_hint_intranode_allows_odd_sms():
    # num_ranks <= 8 skips the even-SM assert; 21 SMs -> 10 channels, same as 20 SMs
    assert f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 8, 21, 6, 256, 6, 128) == f.nvl_buffer_size_hint(
        DSV3_HIDDEN_BYTES, 8, 20, 6, 256, 6, 128
    )


@pytest.mark.parametrize(("num_ranks", "num_sms"), [(12, 24), (20, 24), (16, 23)])
def test_nvl_hint_rejects_what_deepep_asserts(num_ranks, num_sms):
    with pytest.raises(ValueError):
        f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, num_ranks, num_sms, 6, 256, 6, 128)


# ---------------------------------------------------------------------------------------------
# 1.5 RDMA hint
# ---------------------------------------------------------------------------------------------


def test_rdma_hint_dsv3_16_ranks_dispatch_and_combine():
    # dispatch (36, 288, 20, 128): rdma_recv stored as 140; ch=12, rdma=2
    # meta = 12*2*144 = 3,456; slots = 12*2*140 = 3,360; 3,360 * 2*(14,336 + 2,072) = 3,360 * 32,816
    #      = 110,261,760; total = 110,265,216 (= 128 * 861,447)
    assert f.rdma_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 24, 36, 288, 20, 128) == 110_265_216
    # combine (4, 288, 12, 128): stored 132; slots = 12*2*132 = 3,168; 3,168 * 32,816 = 103,961,088
    # + 3,456 = 103,964,544 (= 128 * 812,223)
    assert f.rdma_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 24, 4, 288, 12, 128) == 103_964_544


def test_rdma_hint_dsv3_16_ranks_20_sms_rounds_up():
    # ch=10: meta = 10*2*144 = 2,880; slots = 10*2*140 = 2,800; 2,800 * 32,816 = 91,884,800
    # total 91,887,680 = 717,872.5 * 128 -> 91,887,744
    assert f.rdma_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 20, 36, 288, 20, 128) == 91_887_744


def test_rdma_hint_dsv3_32_ranks():
    # (32, 288, 8, 128): stored 128; ch=12, rdma=4; meta = 12*4*144 = 6,912
    # slots = 12*4*128 = 6,144; 6,144 * 32,816 = 201,621,504; total = 201,628,416 (aligned)
    assert f.rdma_buffer_size_hint(DSV3_HIDDEN_BYTES, 32, 24, 32, 288, 8, 128) == 201_628_416


def test_rdma_hint_uses_rounded_rdma_recv():
    # (20, 128) is stored as (20, 140), so both must give the same hint
    assert f.rdma_buffer_size_hint(DSV3_HIDDEN_BYTES, 16, 24, 36, 288, 20, 128) == f.rdma_buffer_size_hint(
        DSV3_HIDDEN_BYTES, 16, 24, 36, 288, 20, 140
    )


@pytest.mark.parametrize("num_ranks", [1, 2, 4, 6, 8])
def test_rdma_hint_is_zero_intranode(num_ranks):
    # returns before any assert: odd SMs and non-multiple-of-8 rank counts are fine here
    assert f.rdma_buffer_size_hint(DSV3_HIDDEN_BYTES, num_ranks, 21, 6, 256, 6, 128) == 0


@pytest.mark.parametrize(("num_ranks", "num_sms"), [(20, 24), (12, 24), (16, 21)])
def test_rdma_hint_rejects_what_deepep_asserts(num_ranks, num_sms):
    with pytest.raises(ValueError):
        f.rdma_buffer_size_hint(DSV3_HIDDEN_BYTES, num_ranks, num_sms, 36, 288, 20, 128)


def test_normal_mode_buffer_bytes_takes_max_over_dispatch_and_combine():
    # 16 ranks, 24 SMs: NVL equal (453,208,704); RDMA max(110,265,216, 103,964,544)
    dispatch = f.default_dispatch_config(16, num_sms=24)
    combine = f.default_combine_config(16, num_sms=24)
    assert f.normal_mode_buffer_bytes(DSV3_HIDDEN_BYTES, 16, dispatch, combine) == (453_208_704, 110_265_216)
    assert f.normal_mode_buffer_bytes(DSV3_HIDDEN_BYTES, 16, combine, dispatch) == (453_208_704, 110_265_216)
    # 8 ranks intranode: NVL 402,851,712 (both nvl_recv 256), RDMA 0
    assert f.normal_mode_buffer_bytes(
        DSV3_HIDDEN_BYTES, 8, f.default_dispatch_config(8, 24), f.default_combine_config(8, 24)
    ) == (402_851_712, 0)


def test_normal_mode_buffer_bytes_consistent_with_single_hints():
    for num_ranks in (16, 32):
        d = f.default_dispatch_config(num_ranks, 24)
        c = f.default_combine_config(num_ranks, 24)
        nvl, rdma = f.normal_mode_buffer_bytes(DSV3_HIDDEN_BYTES, num_ranks, d, c)
        assert nvl == max(_hints(d, DSV3_HIDDEN_BYTES, num_ranks)[0], _hints(c, DSV3_HIDDEN_BYTES, num_ranks)[0])
        assert rdma == max(_hints(d, DSV3_HIDDEN_BYTES, num_ranks)[1], _hints(c, DSV3_HIDDEN_BYTES, num_ranks)[1])


# ---------------------------------------------------------------------------------------------
# 1.6 low-latency layout and hint
# ---------------------------------------------------------------------------------------------


def test_low_latency_layout_dsv3_128_tokens_256_experts():
    # num_scales = 7168 // 128 = 56
    # dispatch msg = 16 + max(7168*2, 7168 + 56*4) = 16 + max(14,336, 7,392) = 14,352
    # combine msg  = 56*4 + 7168*2 = 224 + 14,336 = 14,560
    # E*T = 256*128 = 32,768
    # send = max(128 * 14,352 = 1,837,056, 32,768 * 14,560 = 477,102,080) = 477,102,080
    # recv = max(32,768 * 14,352 = 470,286,336, 477,102,080) = 477,102,080
    # signalling = 256*4 = 1,024 (already 128-aligned)
    # total = 2*477,102,080 + 2*477,102,080 + 2*1,024 = 1,908,410,368
    layout = f.low_latency_layout(128, DSV3_HIDDEN, 16, 256)
    assert layout == f.LowLatencyLayout(
        num_bytes_per_dispatch_msg=14_352,
        num_bytes_per_combine_msg=14_560,
        dispatch_send_buffer_bytes=1_837_056,
        combine_send_buffer_bytes=477_102_080,
        send_buffer_bytes=477_102_080,
        dispatch_recv_data_buffer_bytes=470_286_336,
        combine_recv_buffer_bytes=477_102_080,
        recv_buffer_bytes=477_102_080,
        signaling_buffer_bytes=1_024,
        signaling_buffer_bytes_aligned=1_024,
        total_bytes=1_908_410_368,
    )


@pytest.mark.parametrize("num_ranks", [8, 16, 32])
def test_low_latency_hint_dsv3_adds_128_even_when_aligned(num_ranks):
    # total 1,908,410,368 is a multiple of 128 (= 14,909,456 * 128); "+128" rounding adds a full 128
    # -> 1,908,410,496. num_ranks is unused, so 8/16/32 ranks give the same number.
    assert f.low_latency_rdma_size_hint(128, DSV3_HIDDEN, num_ranks, 256) == 1_908_410_496


def test_low_latency_hint_test_low_latency_defaults_288_experts():
    # E*T = 288*128 = 36,864; combine = 36,864 * 14,560 = 536,739,840 dominates send and recv
    # signalling = align_up(288*4 = 1,152, 128) = 1,152
    # total = 4 * 536,739,840 + 2 * 1,152 = 2,146,959,360 + 2,304 = 2,146,961,664 (aligned) -> +128
    assert f.low_latency_rdma_size_hint(128, DSV3_HIDDEN, 8, 288) == 2_146_961_792


def test_low_latency_hint_intranode_test_compat_parameters():
    # T=16, hidden=5120, E=256: num_scales=40; dispatch msg = 16 + max(10,240, 5,280) = 10,256
    # combine msg = 160 + 10,240 = 10,400; E*T = 4,096; 4,096 * 10,400 = 42,598,400 (dominates)
    # total = 4 * 42,598,400 + 2 * 1,024 = 170,395,648 (aligned) -> 170,395,776
    assert f.low_latency_rdma_size_hint(16, 5120, 8, 256) == 170_395_776


def test_low_latency_hint_small_hidden_dispatch_dominates_and_unaligned_total():
    # hidden=256: num_scales=2; dispatch msg = 16 + max(512, 264) = 528; combine = 8 + 512 = 520
    # T=1, E=1: send = max(528, 520) = 528; recv = max(528, 520) = 528; sig = align_up(4, 128) = 128
    # total = 2*528 + 2*528 + 2*128 = 2,368 (18.5 * 128) -> (2,368 + 128) // 128 * 128 = 2,432
    layout = f.low_latency_layout(1, 256, 1, 1)
    assert layout.send_buffer_bytes == 528 and layout.recv_buffer_bytes == 528
    assert layout.total_bytes == 2_368
    assert f.low_latency_rdma_size_hint(1, 256, 1, 1) == 2_432


def test_low_latency_signalling_region_is_128_aligned():
    # E=100: 400 bytes of counters -> 512
    layout = f.low_latency_layout(4, 2048, 4, 100)
    assert layout.signaling_buffer_bytes == 400
    assert layout.signaling_buffer_bytes_aligned == 512


def test_low_latency_layout_rejects_unaligned_messages():
    # hidden=100: num_scales=0, dispatch msg = 16 + 200 = 216, 216 % 16 = 8 -> DeepEP asserts
    with pytest.raises(ValueError):
        f.low_latency_layout(1, 100, 1, 1)


def test_low_latency_dispatch_tensors_fp8():
    # R=32, E=256 -> L=8; R*T = 32*128 = 4,096 receive slots per local expert
    # x:       8 * 4,096 * 7,168 * 1  = 234,881,024   (= E*T*hidden)
    # scales:  8 * 56 * 4,096 * 4     =   7,340,032
    # src:     8 * 4,096 * 4          =     131,072
    # range:   8 * 32 * 8             =       2,048
    # count:   8 * 4                  =          32
    # total                           = 242,354,208
    assert f.low_latency_dispatch_tensors(128, DSV3_HIDDEN, 32, 256) == f.LowLatencyDispatchTensors(
        packed_recv_x_bytes=234_881_024,
        packed_recv_x_scales_bytes=7_340_032,
        packed_recv_src_info_bytes=131_072,
        packed_recv_layout_range_bytes=2_048,
        packed_recv_count_bytes=32,
        total_bytes=242_354_208,
    )


def test_low_latency_dispatch_tensors_bf16_and_ue8m0():
    # BF16: x = 8 * 4,096 * 7,168 * 2 = 469,762,048, no scales; total = 469,762,048 + 131,072 + 2,048 + 32
    bf16 = f.low_latency_dispatch_tensors(128, DSV3_HIDDEN, 32, 256, use_fp8=False)
    assert bf16.packed_recv_x_bytes == 469_762_048
    assert bf16.packed_recv_x_scales_bytes == 0
    assert bf16.total_bytes == 469_895_200
    # UE8M0: int32 [8, 7168 // 512 = 14, 4,096] -> 8 * 14 * 4,096 * 4 = 1,835,008
    ue8m0 = f.low_latency_dispatch_tensors(128, DSV3_HIDDEN, 32, 256, use_ue8m0=True)
    assert ue8m0.packed_recv_x_scales_bytes == 1_835_008
    # 16 ranks: L=16, R*T = 2,048 -> same x bytes (E*T*hidden), layout range 16*16*8 = 2,048
    r16 = f.low_latency_dispatch_tensors(128, DSV3_HIDDEN, 16, 256)
    assert r16.packed_recv_x_bytes == 234_881_024
    assert r16.packed_recv_layout_range_bytes == 2_048
    assert r16.packed_recv_count_bytes == 64


def test_low_latency_dispatch_tensors_need_divisible_experts():
    with pytest.raises(ValueError):
        f.low_latency_dispatch_tensors(128, DSV3_HIDDEN, 24, 256)  # 256 % 24 != 0


# ---------------------------------------------------------------------------------------------
# 1.8 limits as data, and the helper formulas behind the derived maxima
# ---------------------------------------------------------------------------------------------


def test_kernel_rank_and_hidden_sets():
    assert f.INTRANODE_KERNEL_NUM_RANKS.value == (2, 4, 8)
    assert f.INTERNODE_KERNEL_NUM_RDMA_RANKS.value == (2, 3, 4, 6, 8, 12, 16, 18, 20)
    assert f.INTERNODE_KERNEL_NUM_RANKS.value == (16, 24, 32, 48, 64, 96, 128, 144, 160)
    assert f.LOW_LATENCY_HIDDEN_SIZES.value == (2048, 2560, 3072, 4096, 5120, 6144, 7168, 8192)
    # every compiled LL hidden also satisfies L2 (% 128) and the FP8 rule L8 (% 512)
    assert all(h % 512 == 0 for h in f.LOW_LATENCY_HIDDEN_SIZES.value)


def test_every_limit_cites_a_source():
    limits = [v for v in vars(f).values() if isinstance(v, f.Limit)]
    assert len(limits) >= 20
    for limit in limits:
        assert limit.source and limit.meaning and limit.rule


def test_scalar_limits():
    assert f.NORMAL_MODE_MAX_NUM_RANKS.value == 160
    assert f.NORMAL_MODE_MAX_BUFFER_BYTES.value == 2_147_483_647
    assert f.NORMAL_MODE_MAX_TOPK.value == 32
    assert f.LOW_LATENCY_MAX_TOPK.value == 11
    assert f.INTERNODE_MAX_RDMA_RANKS.value == 20
    assert f.LOW_LATENCY_MAX_EXPERTS_BY_WORKSPACE.value == 4_194_304  # 32 MiB / 8
    # B3: num_bytes / 16 < INT_MAX with integer division -> 16 * INT_MAX - 1 = 34,359,738,351 is the
    # largest size; one more byte makes the quotient equal to INT_MAX
    largest = f.MAX_BUFFER_BYTES_ANY_MODE.value
    assert largest == 34_359_738_351
    assert largest // 16 < f.INT_MAX
    assert (largest + 1) // 16 == f.INT_MAX


def test_intranode_dispatch_tma_bytes_and_max_hidden():
    # hidden 8176 BF16: 16,352 B -> hidden_int4 1,022 (even) -> 511 * 16 + 8 = 8,184 <= 8,192
    assert f.intranode_dispatch_tma_bytes(16_352) == 8_184
    # hidden 8192: 16,384 B -> 512 * 16 + 8 = 8,200 > 8,192 (issue #722)
    assert f.intranode_dispatch_tma_bytes(16_384) == 8_200
    limit = f.INTRANODE_DISPATCH_TMA_BYTES_PER_WARP.value
    passing = [
        h
        for h in range(16, 9000, 16)  # BF16 and hidden_int4 even -> hidden % 16 == 0
        if f.intranode_dispatch_tma_bytes(2 * h) <= limit
    ]
    assert max(passing) == f.INTRANODE_DISPATCH_MAX_HIDDEN_BF16.value == 8176


def test_internode_token_bytes_and_max_hidden():
    # dispatch, BF16 top-8, no scales: hidden 8144 -> 16,288 + 8 + 32 + 32 = 16,360 -> align16 16,368
    assert f.internode_dispatch_token_bytes(16_288, 0, 8) == 16_368  # + 8 = 16,376 <= 16,384
    # hidden 8152 -> 16,304 + 72 = 16,376 -> 16,384; + 8 = 16,392 > 16,384
    assert f.internode_dispatch_token_bytes(16_304, 0, 8) == 16_384
    # FP8 dispatch of hidden 7168 with 56 scales, top-8: 7,168 + 8 + 224 + 64 = 7,464 -> 7,472
    assert f.internode_dispatch_token_bytes(7_168, 56, 8) == 7_472
    # combine, BF16 top-8: hidden 8160 -> 16,320 + 8 + 32 = 16,360 -> 16,368; hidden 8168 -> 16,384
    assert f.internode_combine_token_bytes(16_320, 8) == 16_368
    assert f.internode_combine_token_bytes(16_336, 8) == 16_384
    limit = f.INTERNODE_TMA_BYTES_PER_WARP.value
    candidates = range(8, 9000, 8)  # N2: BF16 hidden_bytes % 16 == 0
    max_dispatch = max(h for h in candidates if f.internode_dispatch_token_bytes(2 * h, 0, 8) + 8 <= limit)
    max_combine = max(h for h in candidates if f.internode_combine_token_bytes(2 * h, 8) + 8 <= limit)
    assert max_dispatch == f.INTERNODE_DISPATCH_MAX_HIDDEN_BF16_TOP8.value == 8144
    assert max_combine == f.INTERNODE_COMBINE_MAX_HIDDEN_BF16_TOP8.value == 8160


def test_low_latency_qp_depth_token_cap():
    # (T + 1) * 2 <= 1024 -> T <= 511; (511 + 1) * 2 = 1024, (512 + 1) * 2 = 1026
    assert f.low_latency_max_tokens_for_qp_depth() == 511
    assert f.low_latency_max_tokens_for_qp_depth(2048) == 1023


def test_low_latency_expert_cap_and_warp_groups():
    assert f.low_latency_max_experts(132) == 1848  # H100/H800
    assert f.low_latency_max_experts(78) == 1092  # H20
    assert f.low_latency_max_experts(148) == 2072  # B200
    assert f.low_latency_warp_groups(256, 132) == (2, 16)  # ceil(256/132) = 2, 32 // 2
    assert f.low_latency_warp_groups(288, 132) == (3, 10)  # ceil(288/132) = 3, 32 // 3
    assert f.low_latency_warp_groups(1848, 132) == (14, 2)  # the largest accepted
    assert f.low_latency_warp_groups(1849, 132) == (15, 2)  # 15 groups: dispatch recv asserts g < 15


# ---------------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------------

_normal_ranks = st.sampled_from([2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 144, 160])
_even_sms = st.integers(min_value=1, max_value=80).map(lambda n: 2 * n)
_hidden_bytes = st.integers(min_value=1, max_value=40_000)


@given(_normal_ranks, _even_sms, _hidden_bytes, st.integers(2, 2000), st.integers(0, 5000))
def test_nvl_hint_aligned_tight_and_monotonic(num_ranks, num_sms, hb, nvl_recv, extra_hidden):
    hint = f.nvl_buffer_size_hint(hb, num_ranks, num_sms, 1, nvl_recv, 6, 128)
    assert hint % 128 == 0
    bigger_hidden = f.nvl_buffer_size_hint(hb + extra_hidden, num_ranks, num_sms, 1, nvl_recv, 6, 128)
    deeper_queue = f.nvl_buffer_size_hint(hb, num_ranks, num_sms, 1, nvl_recv + 1, 6, 128)
    assert bigger_hidden >= hint
    assert deeper_queue >= hint
    # tight: the unrounded byte count is within 128 bytes of the hint
    ch, nvl, rdma = num_sms // 2, min(num_ranks, 8), max(num_ranks // 8, 1)
    raw = ch * nvl * (2 * rdma + 3) * 4 + ch * nvl * nvl_recv * (hb + 2056)
    assert hint - 128 < raw <= hint


@given(
    st.sampled_from([16, 24, 32, 48, 64, 96, 128, 144, 160]),
    _even_sms,
    _hidden_bytes,
    st.integers(1, 64),
    st.integers(2, 1024),
)
def test_rdma_hint_aligned_and_invariant_to_recv_rounding(num_ranks, num_sms, hb, rdma_send, rdma_recv):
    hint = f.rdma_buffer_size_hint(hb, num_ranks, num_sms, 1, 2, rdma_send, rdma_recv)
    assert hint % 128 == 0
    rounded = f.align_up(rdma_recv, rdma_send)
    assert hint == f.rdma_buffer_size_hint(hb, num_ranks, num_sms, 1, 2, rdma_send, rounded)
    assert f.rdma_buffer_size_hint(hb + 16, num_ranks, num_sms, 1, 2, rdma_send, rdma_recv) > hint
    ch, rdma = num_sms // 2, num_ranks // 8
    raw = ch * rdma * 144 + ch * rdma * rounded * 2 * (hb + 2072)
    assert hint - 128 < raw <= hint


@given(
    st.integers(1, 1024),
    st.sampled_from(f.LOW_LATENCY_HIDDEN_SIZES.value),
    st.integers(1, 1024),
    st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 256]),
    st.integers(1, 64),
)
def test_low_latency_hint_properties(tokens, hidden, num_experts, num_ranks, extra_tokens):
    hint = f.low_latency_rdma_size_hint(tokens, hidden, num_ranks, num_experts)
    total = f.low_latency_layout(tokens, hidden, num_ranks, num_experts).total_bytes
    assert hint % 128 == 0
    assert total % 32 == 0
    assert 32 <= hint - total <= 128  # "+128" rounding always adds bytes
    # closed form for compiled hidden sizes (combine message dominates): 4*E*T*comb + 2*sig
    closed = 4 * num_experts * tokens * (2 * hidden + hidden // 128 * 4) + 2 * f.align_up(4 * num_experts, 128)
    assert total == closed
    # num_ranks is unused
    assert hint == f.low_latency_rdma_size_hint(tokens, hidden, 7, num_experts)
    # monotonic in tokens and experts
    assert f.low_latency_rdma_size_hint(tokens + extra_tokens, hidden, num_ranks, num_experts) > hint
    assert f.low_latency_rdma_size_hint(tokens, hidden, num_ranks, num_experts + 1) > hint


@given(st.integers(1, 512), st.sampled_from([2048, 4096, 7168]), st.sampled_from([1, 2, 4, 8, 16, 32]),
       st.integers(1, 64), st.integers(1, 64))
def test_low_latency_dispatch_tensors_scale_with_tokens(tokens, hidden, num_ranks, local_experts, more):
    num_experts = num_ranks * local_experts
    small = f.low_latency_dispatch_tensors(tokens, hidden, num_ranks, num_experts)
    large = f.low_latency_dispatch_tensors(tokens + more, hidden, num_ranks, num_experts)
    assert small.packed_recv_x_bytes == num_experts * tokens * hidden  # FP8: E*T*hidden
    assert large.total_bytes > small.total_bytes
    assert small.total_bytes == (
        small.packed_recv_x_bytes
        + small.packed_recv_x_scales_bytes
        + small.packed_recv_src_info_bytes
        + small.packed_recv_layout_range_bytes
        + small.packed_recv_count_bytes
    )


# ---------------------------------------------------------------------------------------------
# intranode host checks N7-N9 and the hint slot constants
# ---------------------------------------------------------------------------------------------


def test_hint_slot_extra_bytes():
    assert f.NVL_HINT_SLOT_EXTRA_BYTES == 2056  # 8 + 128*8 + 128*4 + 128*4
    assert f.RDMA_HINT_SLOT_EXTRA_BYTES == 2072  # 2056 + 16


def test_intranode_notify_bytes():
    # N7: R * (R + E/R) * 4 = 8 * (8 + 32) * 4 = 1280
    assert f.intranode_notify_bytes(8, 256) == 1280


def test_intranode_dispatch_bytes_dsv3_bf16_and_fp8():
    # N8, 8 ranks, 20 SMs (ch 10), nvl_recv 256, BF16 top-8:
    # 8*8*4 = 256; 4*10*8*4 = 1280; 10*8*256 = 20480 slots * (14336 + 4 + 8*8 + 8*4) = 20480 * 14436 = 295,649,280
    assert f.intranode_dispatch_bytes(8, 20, 256, 7168, 2, 8, 0) == 256 + 1280 + 295_649_280
    # FP8 with 56 scales: per token 7168 + 4 + 64 + 32 + 56*4 = 7492; 20480 * 7492 = 153,436,160
    assert f.intranode_dispatch_bytes(8, 20, 256, 7168, 1, 8, 56) == 256 + 1280 + 153_436_160


def test_intranode_combine_bytes_matches_spec_figure():
    # N9: 10*8*4*2 = 640; 20480 * (14336 + 4 + 8*4) = 294,338,560; gpu-rules 4 quotes ~294,339,200
    assert f.intranode_combine_bytes(8, 20, 256, 7168, 2, 8) == 294_339_200


def test_intranode_host_checks_are_below_the_hint():
    hint = f.nvl_buffer_size_hint(DSV3_HIDDEN_BYTES, 8, 20, 6, 256, 6, 128)
    assert hint == 335_709_824  # 1600 + 20480 * 16392 = 335,709,760 -> ceil128
    assert f.intranode_dispatch_bytes(8, 20, 256, DSV3_HIDDEN, 2, 8, 0) < hint
