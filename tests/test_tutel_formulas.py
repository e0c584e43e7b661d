"""Tests for moecfg.backends.tutel.ops.moe_layer.formulas against hand-computed figures (gpu-rules.md section 2).

Every expected number is worked out in the comment next to it.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from moecfg.backends.tutel.ops.moe_layer import formulas as t

# ---------------------------------------------------------------------------------------------
# 2.1 capacity
# ---------------------------------------------------------------------------------------------


def test_capacity_float_trap_1_15_times_100_gives_114():
    # 800 samples / 8 experts -> spe = 100; 1.15 * 100 = 114.99999999999999 -> int() = 114
    assert t.capacity(800, 8, 1, 1.15) == 114
    # top-2: 2 * 114 = 228 (not 230)
    assert t.capacity(800, 8, 2, 1.15) == 228


@pytest.mark.parametrize(
    ("capacity_factor", "expected"),
    [
        (2.3, 229),  # 2.3 * 100 = 229.99999999999997 -> 229
        (0.29, 28),  # 0.29 * 100 = 28.999999999999996 -> 28
        (1.1, 110),  # 1.1 * 100 = 110.00000000000001 -> 110
        (1.0, 100),
        (2, 200),  # an int factor is exact
    ],
)
def test_capacity_other_float_products(capacity_factor, expected):
    assert t.capacity(800, 8, 1, capacity_factor) == expected


def test_capacity_alignment_applies_after_truncation():
    # 114 -> next multiple of 8 is 120
    assert t.capacity(800, 8, 1, 1.15, alignment=8) == 120
    # 100 with alignment 4 is already aligned
    assert t.capacity(800, 8, 1, 1.0, alignment=4) == 100


def test_capacity_samples_per_expert_is_integer_ceil():
    # 801 / 8 = 100.125 -> 101; 1.0 * 101 -> 101
    assert t.samples_per_expert(801, 8) == 101
    assert t.capacity(801, 8, 1, 1.0) == 101
    # 1 sample, 64 experts -> spe 1
    assert t.capacity(1, 64, 2, 1.0) == 2


def test_capacity_top_k_is_clipped_to_number_of_experts():
    # E=2, top_k=4 -> top_k 2; spe = 100 / 2 = 50 -> 2 * 50 = 100 (not 4 * 50 = 200)
    assert t.capacity(100, 2, 4, 1.0) == 100


def test_capacity_factor_zero_uses_max_load():
    assert t.capacity(800, 8, 2, 0, max_load=137) == 137
    # 137 rounded up to a multiple of 8 -> 144
    assert t.capacity(800, 8, 2, 0.0, alignment=8, max_load=137) == 144
    # no padding at all: a max load far above cf-style bounds is kept
    assert t.capacity(800, 8, 2, 0, max_load=5000) == 5000


def test_capacity_factor_zero_without_max_load_is_an_error():
    with pytest.raises(ValueError):
        t.capacity(800, 8, 2, 0)
    with pytest.raises(ValueError):
        t.capacity(800, 8, 2, -1.0)


def test_negative_capacity_factor_is_min_of_max_load_and_bound():
    # cf=-1.5, spe=100, top_k=2: bound = 2 * int(1.5 * 100) = 300
    assert t.capacity(800, 8, 2, -1.5, max_load=500) == 300
    assert t.capacity(800, 8, 2, -1.5, max_load=250) == 250
    # float trap also in the bound: -(-1.15) * 100 = 114.99999999999999 -> 114
    assert t.capacity(800, 8, 1, -1.15, max_load=1000) == 114
    # alignment after the min may exceed the bound: min(500, 300) = 300 -> multiple of 64 = 320
    assert t.capacity(800, 8, 2, -1.5, alignment=64, max_load=500) == 320


def test_capacity_with_megablocks_alignment():
    # s=1, overlap=1, megablocks 64: ceil(1 / 64) * 64 = 64
    align = t.alignment(1, 1, 64)
    assert align == 64
    # top-2, cf 1.0, spe 100 -> 200 -> next multiple of 64 = 256
    assert t.capacity(800, 8, 2, 1.0, alignment=align) == 256


def test_capacity_rejects_non_positive_alignment():
    with pytest.raises(ValueError):
        t.capacity(800, 8, 2, 1.0, alignment=0)


@pytest.mark.parametrize(
    ("shards", "overlap", "megablocks", "expected"),
    [
        (1, 1, 0, 1),  # no sharding, no overlap
        (4, 1, 0, 4),  # s=4
        (4, 2, 0, 8),  # s * overlap = 8
        (4, 1, 6, 6),  # ceil(4 / 6) * 6 = 6
        (8, 2, 6, 18),  # ceil(16 / 6) * 6 = 18
        (32, 8, 0, 256),  # 256 is not > 256: unchanged
        (24, 12, 0, 384),  # 288 > 256 -> ceil(288 / 128) * 128 = 384
        (3, 1, 257, 384),  # ceil(3 / 257) * 257 = 257 > 256 -> 384
        (32, 16, 0, 512),  # 512 > 256, already a multiple of 128
    ],
)
def test_alignment(shards, overlap, megablocks, expected):
    assert t.alignment(shards, overlap, megablocks) == expected


# ---------------------------------------------------------------------------------------------
# 2.2 experts and sharding
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("num_local", "world", "expected"),
    [
        (2, 8, 16),  # 2 per GPU * 8 GPUs
        (1, 16, 16),
        (-2, 8, 4),  # 2 GPUs share one expert: 8 // 2
        (-8, 8, 1),
        (0.5, 8, 8),  # -int(1 / 0.50001) = -int(1.99996) = -1 -> 8 // 1 (quirk: not 16)
        (0.25, 9, 3),  # -int(1 / 0.25001) = -int(3.99984) = -3 -> 9 // 3
    ],
)
def test_global_expert_count(num_local, world, expected):
    assert t.global_expert_count(num_local, world) == expected


@pytest.mark.parametrize(("num_local", "world"), [(0, 8), (-3, 8), (0.25, 8)])
def test_global_expert_count_errors(num_local, world):
    # 0 is invalid; -3 does not divide 8; 0.25 becomes -3, which does not divide 8
    with pytest.raises(ValueError):
        t.global_expert_count(num_local, world)


@pytest.mark.parametrize(
    ("experts", "world", "expected"),
    [
        (4, 16, 4),  # 16 // 4
        (16, 16, 1),  # E == W
        (32, 16, 1),  # E > W
        (3, 16, 5),  # floor(16 / 3), no divisibility check (quirk)
        (1, 8, 8),
    ],
)
def test_sharded_count(experts, world, expected):
    assert t.sharded_count(experts, world) == expected


@pytest.mark.parametrize(
    ("shards", "expected"),
    [
        (1, (0, 1)),
        (4, (0, 1, 2, 4)),
        (12, (0, 1, 2, 3, 4, 6, 12)),
        (7, (0, 1, 7)),
    ],
)
def test_valid_adaptive_degrees(shards, expected):
    assert t.valid_adaptive_degrees(shards) == expected


@pytest.mark.parametrize(
    ("requested", "shards", "expected"),
    [(1, 4, 1), (-3, 4, 0), (9, 4, 4), (3, 4, 3)],  # 3 is kept, then rejected by valid_rs
)
def test_clamp_adaptive_degree(requested, shards, expected):
    assert t.clamp_adaptive_degree(requested, shards) == expected


def test_dispatch_bytes():
    # [E=8, C=128, M=1024] BF16: 8 * 128 * 1024 * 2 = 2,097,152
    assert t.dispatch_bytes(8, 128, 1024, 2) == 2_097_152
    # FP32, DSV3-sized: 256 * 320 * 7168 * 4 = 2,348,810,240
    assert t.dispatch_bytes(256, 320, 7168, 4) == 2_348_810_240


# ---------------------------------------------------------------------------------------------
# 2.3 communication-volume model
# Running example: E=4 experts on W=16 GPUs -> s=4, valid r = 0, 1, 2, 4.
# Experts: M=1024, H=4096, BF16 weights, no biases: P_e = 2*1024*4096*2 B = 16,777,216 B;
# P = 4 * P_e = 67,108,864 B.
# ---------------------------------------------------------------------------------------------

E, W, M = 4, 16, 1024
P_BYTES = 67_108_864
P_E = 16_777_216


def _dispatch(capacity: int) -> int:
    return t.dispatch_bytes(E, capacity, M, 2)


def test_running_example_dispatch_sizes():
    assert _dispatch(64) == 524_288  # 4 * 64 * 1024 * 2
    assert _dispatch(256) == 2_097_152


def test_all_to_all_bytes():
    d = 1_048_576  # C=128
    assert t.all_to_all_bytes(d, 1) == 4_194_304  # 4 * 1 * D
    assert t.all_to_all_bytes(d, 4) == 16_777_216  # 4 * 4 * D
    assert t.all_to_all_bytes(d, 4, training=False) == 8_388_608  # forward only: 2 * 4 * D
    assert t.all_to_all_bytes(d, 0) == 0  # r = 0: no all-to-all


def test_zero_gather_bytes_per_degree():
    # r=1: 2 * (P_e/1 - P_e/4) = 2 * (16,777,216 - 4,194,304) = 25,165,824
    assert t.zero_gather_bytes(P_BYTES, E, W, 1) == 25_165_824
    # r=2: 2 * (8,388,608 - 4,194,304) = 8,388,608
    assert t.zero_gather_bytes(P_BYTES, E, W, 2) == 8_388_608
    # r=4 = s: nothing to gather
    assert t.zero_gather_bytes(P_BYTES, E, W, 4) == 0
    # r=0: P * (W-1)/W = 67,108,864 * 15/16 = 62,914,560 forward, x2 for training = 125,829,120
    assert t.zero_gather_bytes(P_BYTES, E, W, 0) == 125_829_120
    assert t.zero_gather_bytes(P_BYTES, E, W, 0, training=False) == 62_914_560


def test_zero_gather_bytes_rounds_fractional_bytes_up():
    # P=10 B: P_e = 2.5; r=2: 2 * (2.5/2 - 2.5/4) = 1.25 -> 2
    assert t.zero_gather_bytes(10, E, W, 2) == 2


def test_zero_gather_bytes_when_experts_outnumber_gpus():
    # E=16 on W=8: s=1, valid r = 0, 1; r=1 gathers nothing; r=0 gathers P * 7/8 per forward
    assert t.zero_gather_bytes(1_600, 16, 8, 1) == 0
    assert t.zero_gather_bytes(1_600, 16, 8, 0) == 2_800  # 2 * 1,600 * 7 / 8


def test_invalid_degree_is_rejected():
    with pytest.raises(ValueError):
        t.zero_gather_bytes(P_BYTES, E, W, 3)  # 3 does not divide s=4
    with pytest.raises(ValueError):
        t.communication_bytes(_dispatch(64), P_BYTES, E, W, 8)  # above s=4


def test_communication_bytes_totals():
    d = _dispatch(64)  # 524,288
    # r=1: 4*524,288 + 25,165,824 = 2,097,152 + 25,165,824 = 27,262,976
    assert t.communication_bytes(d, P_BYTES, E, W, 1) == 27_262_976
    # r=2: 4,194,304 + 8,388,608 = 12,582,912
    assert t.communication_bytes(d, P_BYTES, E, W, 2) == 12_582_912
    # r=4: 8,388,608 + 0
    assert t.communication_bytes(d, P_BYTES, E, W, 4) == 8_388_608


def test_continuous_optimum():
    # r* = sqrt(P / (2 E D)): C=64 -> sqrt(67,108,864 / (8 * 524,288)) = sqrt(16) = 4
    assert t.continuous_optimal_adaptive_degree(_dispatch(64), P_BYTES, E) == pytest.approx(4.0)
    # C=256 -> sqrt(67,108,864 / (8 * 2,097,152)) = sqrt(4) = 2
    assert t.continuous_optimal_adaptive_degree(_dispatch(256), P_BYTES, E) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("cap", "expected"),
    [
        # C=64: r=1 27,262,976; r=2 12,582,912; r=4 8,388,608; r=0 125,829,120 -> 4
        (64, 4),
        # C=256 (D=2,097,152): r=1 8,388,608+25,165,824 = 33,554,432; r=2 16,777,216+8,388,608 =
        # 25,165,824; r=4 33,554,432 -> 2
        (256, 2),
        # C=2048 (D=16,777,216): r=1 67,108,864+25,165,824 = 92,274,688; r=2 142,606,336;
        # r=0 125,829,120 -> 1
        (2048, 1),
        # C=4096 (D=33,554,432): r=1 134,217,728+25,165,824 = 159,383,552 > r=0 125,829,120 -> 0
        (4096, 0),
    ],
)
def test_recommended_adaptive_degree(cap, expected):
    assert t.recommended_adaptive_degree(_dispatch(cap), P_BYTES, E, W) == expected


def test_recommended_adaptive_degree_without_data_parallel():
    # C=4096 as above, but r=0 excluded -> r=1 (159,383,552 < r=2 4*2*33,554,432+8,388,608)
    assert t.recommended_adaptive_degree(_dispatch(4096), P_BYTES, E, W, include_data_parallel=False) == 1


def test_recommended_adaptive_degree_tie_goes_to_smaller_r():
    # C=128 (D=1,048,576): r=2 8,388,608+8,388,608 = 16,777,216; r=4 16,777,216+0 -> tie -> 2
    d = _dispatch(128)
    assert t.communication_bytes(d, P_BYTES, E, W, 2) == t.communication_bytes(d, P_BYTES, E, W, 4)
    assert t.recommended_adaptive_degree(d, P_BYTES, E, W) == 2


def test_constants():
    assert t.MAX_A2A_FFN_OVERLAP_DEGREE == 32


# ---------------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------------

_factors = st.floats(min_value=0.01, max_value=16.0, allow_nan=False, allow_infinity=False)


@given(st.integers(1, 100_000), st.integers(1, 100_000), st.integers(1, 1024), st.integers(1, 8), _factors,
       st.integers(1, 512))
def test_positive_factor_capacity_monotonic_in_tokens_and_aligned(tokens, more, experts, top_k, cf, align):
    small = t.capacity(tokens, experts, top_k, cf, alignment=align)
    large = t.capacity(tokens + more, experts, top_k, cf, alignment=align)
    assert small <= large
    assert small % align == 0
    unaligned = t.capacity(tokens, experts, top_k, cf)
    assert unaligned <= small < unaligned + align


@given(st.integers(1, 100_000), st.integers(1, 1024), st.integers(1, 8), _factors, st.integers(0, 10_000),
       st.integers(1, 512), st.integers(0, 10_000))
def test_negative_factor_capacity_bounded_and_monotonic(tokens, experts, top_k, cf, max_load, align, more_load):
    bound = min(top_k, experts) * int(cf * t.samples_per_expert(tokens, experts))
    cap = t.capacity(tokens, experts, top_k, -cf, alignment=align, max_load=max_load)
    assert cap % align == 0
    assert cap == t.capacity(1, 1, 1, 0, alignment=align, max_load=min(max_load, bound))
    assert cap <= t.capacity(tokens, experts, top_k, -cf, alignment=align, max_load=max_load + more_load)
    assert cap <= t.capacity(tokens, experts, top_k, 0, alignment=align, max_load=max_load)


@given(st.integers(1, 64), st.integers(1, 32), st.integers(0, 512))
def test_alignment_properties(shards, overlap, megablocks):
    value = t.alignment(shards, overlap, megablocks)
    assert value >= shards * overlap
    if value > 256:
        assert value % 128 == 0
    else:
        assert value % max(megablocks, 1) == 0


@given(st.integers(1, 512))
def test_valid_adaptive_degrees_are_divisors(shards):
    degrees = t.valid_adaptive_degrees(shards)
    assert degrees[0] == 0 and degrees[1] == 1 and degrees[-1] == shards
    assert all(shards % r == 0 for r in degrees[1:])
    assert len(degrees) - 1 == sum(1 for i in range(1, shards + 1) if shards % i == 0)


@given(
    st.sampled_from([1, 2, 4, 8, 16]),
    st.sampled_from([1, 2, 3, 4, 6, 8, 12, 16, 24, 32]),
    st.integers(1, 2**24),
    st.integers(1, 2**34),
)
def test_recommended_degree_brackets_continuous_optimum(experts, shards, dispatch, params):
    world = experts * shards
    r = t.recommended_adaptive_degree(dispatch, params, experts, world, include_data_parallel=False)
    r_star = t.continuous_optimal_adaptive_degree(dispatch, params, experts)
    candidates = [c for c in t.valid_adaptive_degrees(shards) if c > 0]
    assume(all(not math.isclose(c, r_star, rel_tol=1e-9) for c in candidates))
    below = [c for c in candidates if c < r_star]
    above = [c for c in candidates if c > r_star]
    allowed = {max(below)} if below else set()
    allowed |= {min(above)} if above else set()
    assert r in allowed
    # and it is no worse than any other candidate under the byte model
    cost = t.communication_bytes(dispatch, params, experts, world, r)
    assert all(cost <= t.communication_bytes(dispatch, params, experts, world, c) + 1 for c in candidates)


def test_ffn_expert_param_count():
    # fc1 [M, H] + fc2 [H, M] + fc1 bias [H] + fc2 bias [M]: 2*2048*8192 + 8192 + 2048 = 33,564,672
    assert t.ffn_expert_param_count(2048, 8192) == 33_564_672
    assert t.ffn_expert_param_count(1, 1) == 4


@pytest.mark.parametrize(("mega", "local", "grad", "world", "used"), [
    (64, 4, False, 1, 64),  # single-GPU inference with 4 local experts: kept
    (64, 1, False, 1, 0),  # num_local_experts <= 1
    (64, 4, True, 1, 0),  # torch.is_grad_enabled()
    (64, 4, False, 2, 0),  # world_size > 1
    (0, 4, False, 1, 0),
])
def test_effective_megablocks_size(mega, local, grad, world, used):
    # tutel@82af7aa tutel/impls/moe_layer.py:278-280
    assert t.effective_megablocks_size(mega, local, grad, world) == used
