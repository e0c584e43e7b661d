"""MC6xx DeepEP rules: each limit of gpu-rules.md section 1.8 just inside and just outside.

Shorthand in comments: R = num_ranks, E = num_experts, T = num_max_dispatch_tokens_per_rank,
ch = num_sms / 2 channels, r = R / 8 nodes.
"""
from __future__ import annotations

import pytest

from gpu_cases import cases, check_rule

INT_MAX = 2**31 - 1

ROWS = {
    # MC601 value ranges (gate) and B9 (QPs > 0 only when NVSHMEM is used)
    "MC601": [
        ("ll", {"num_ranks": 1, "num_experts": 8}, False),
        ("ll", {"num_ranks": 0}, True),
        ("normal", {"hidden": 1}, False),
        ("normal", {"hidden": 0}, True),
        ("normal", {"num_sms": 0}, True),
        ("normal", {"num_topk": 0}, True),
        ("normal", {"num_nvl_bytes": 0}, False),
        ("normal", {"num_nvl_bytes": -1}, True),
        ("normal", {"num_qps_per_rank": 1}, False),
        ("normal", {"num_qps_per_rank": 0}, True),  # 2 nodes: NVSHMEM in use
        ("intra", {"num_qps_per_rank": 0}, False),  # one node, normal mode: no NVSHMEM, value unused
        ("ll", {"num_max_dispatch_tokens_per_rank": 0}, True),
    ],
    # MC005: low-latency mode needs T
    "MC005": [
        ("ll", {"num_max_dispatch_tokens_per_rank": None}, True),
        ("normal", {}, False),
    ],
    # MC602 (B5): R < 8 or R % 8 == 0, every mode
    "MC602": [
        ("ll", {"num_ranks": 7, "num_experts": 7}, False),
        ("ll", {"num_ranks": 9, "num_experts": 9}, True),
        ("ll", {"num_ranks": 320, "num_experts": 320}, False),
        ("normal", {"num_ranks": 12}, True),
    ],
    # MC603 (B4, N11): normal R <= 160
    "MC603": [
        ("normal", {"num_ranks": 160, "num_experts": 320}, False),
        ("normal", {"num_ranks": 168, "num_experts": 336}, True),
        ("ll", {"num_ranks": 168, "num_experts": 336}, False),
    ],
    # MC604: no config in the file -> R must be in DeepEP's table
    "MC604": [
        ("normal", {"num_ranks": 48, "num_experts": 288}, False),
        ("normal", {"num_ranks": 40, "num_experts": 280}, True),
        ("intra", {"num_ranks": 6, "num_experts": 258}, True),
        ("intra", {"num_ranks": 6, "num_experts": 258, "dispatch_config": [6, 256, 6, 128],
                   "combine_config": [4, 256, 6, 128]}, False),  # explicit configs: the kernel rule decides
    ],
    # MC605: kernels for R in {2, 4, 8} or r in {2,3,4,6,8,12,16,18,20}
    "MC605": [
        ("intra", {"num_ranks": 4, "num_experts": 256, "dispatch_config": [6, 256, 6, 128],
                   "combine_config": [4, 256, 6, 128]}, False),
        ("intra", {"num_ranks": 6, "num_experts": 258, "dispatch_config": [6, 256, 6, 128],
                   "combine_config": [4, 256, 6, 128]}, True),
        ("normal", {"num_ranks": 48, "num_experts": 288, "dispatch_config": [32, 288, 8, 128],
                    "combine_config": [1, 288, 8, 128]}, False),
        ("normal", {"num_ranks": 40, "num_experts": 280, "dispatch_config": [32, 280, 8, 128],
                    "combine_config": [1, 280, 8, 128]}, True),
    ],
    # MC610: Config constructor (nvl_send < nvl_recv, all > 0, rdma_send < rdma_recv after rounding)
    "MC610": [
        ("intra", {"dispatch_config": [255, 256, 6, 128]}, False),
        ("intra", {"dispatch_config": [256, 256, 6, 128]}, True),
        ("intra", {"dispatch_config": [6, 256, 0, 128]}, True),
        ("intra", {"combine_config": [6, 256, 127, 128]}, False),  # stored rdma_recv 254, 127 <= 127
        ("intra", {"combine_config": [6, 256, 128, 128]}, True),  # stored 128, 128 < 128 fails
        ("ll", {"dispatch_config": [256, 256, 6, 128]}, False),  # low-latency takes no Config
    ],
    # MC611: num_sms even (normal), internode >= 2 channels (N15)
    "MC611": [
        ("normal", {"num_sms": 24}, False),
        ("normal", {"num_sms": 23}, True),
        ("ll", {"num_sms": 23}, False),
        ("normal", {"num_sms": 4}, False),  # 2 channels: 2 * 2 > 3
        ("normal", {"num_sms": 2}, True),  # 1 channel: 1 * 2 > 3 fails
        ("intra", {"num_sms": 2}, False),
    ],
    # MC612 (N12, N13), r = 2 nodes: wpf = max(24 / 2, 1) = 12, so combine rdma_send >= 12; nvl_recv % 2
    "MC612": [
        ("normal", {"combine_config": [4, 288, 12, 128]}, False),
        ("normal", {"combine_config": [4, 288, 11, 128]}, True),
        ("normal", {"combine_config": [4, 289, 12, 128]}, True),
        # 128 ranks, r = 16, wpf = 1: nvl_recv / 16 must be > max(rdma_send 8, nvl_send 1): 144 / 16 = 9 ok,
        # 128 / 16 = 8 fails
        ("normal", {"num_ranks": 128, "num_experts": 256, "combine_config": [1, 144, 8, 128]}, False),
        ("normal", {"num_ranks": 128, "num_experts": 256, "combine_config": [1, 128, 8, 128]}, True),
        # nvl_recv / r - wpf >= nvl_send: 144 / 16 - 1 = 8 >= 8 ok, nvl_send 9 fails (9 < 9 is also "> max" failing)
        ("normal", {"num_ranks": 128, "num_experts": 256, "combine_config": [8, 144, 8, 128]}, False),
        ("normal", {"num_ranks": 128, "num_experts": 256, "combine_config": [9, 144, 8, 128]}, True),
        ("intra", {"combine_config": [4, 256, 1, 128]}, False),  # intranode: no internode combine
    ],
    # MC613 (N20): 24 SMs -> QPs == 12 or >= 24
    "MC613": [
        ("normal", {"num_qps_per_rank": 12}, False),
        ("normal", {"num_qps_per_rank": 13}, True),
        ("normal", {"num_qps_per_rank": 23}, True),
        ("normal", {"num_qps_per_rank": 24}, False),
        ("intra", {"num_qps_per_rank": 13}, False),
    ],
    # MC620 (N2): hidden * elem % 16 (dispatch dtype and BF16 combine)
    "MC620": [
        ("intra", {"hidden": 7160}, False),  # 14320 = 895 * 16
        ("intra", {"hidden": 7164}, True),  # 14328 % 16 = 8
        ("intra", {"hidden": 7168, "dtype": "fp8"}, False),
        ("intra", {"hidden": 7160, "dtype": "fp8"}, True),  # 7160 % 16 = 8
    ],
    # MC621 (L3): compiled low-latency hidden sizes
    "MC621": [
        ("ll", {"hidden": 3072}, False),
        ("ll", {"hidden": 8192}, False),
        ("ll", {"hidden": 7680}, True),
        ("ll", {"hidden": 1024}, True),
        ("normal", {"hidden": 7680}, False),
    ],
    # MC622 (N10): BF16 8176 -> 16352 B = 1022 int4 (even), 511 * 16 + 8 = 8184 <= 8192;
    # 8184 -> 1023 int4 (odd); 8192 -> 512 * 16 + 8 = 8200 > 8192; FP8 8192 -> 256 * 16 + 8 = 4104
    "MC622": [
        ("intra", {"hidden": 8176}, False),
        ("intra", {"hidden": 8184}, True),
        ("intra", {"hidden": 8192}, True),
        ("intra", {"hidden": 8192, "dtype": "fp8"}, False),
        ("ll", {"num_ranks": 8, "hidden": 8192}, False),
    ],
    # MC623 (N16, N17): BF16 top-8 dispatch: align16(2h + 8 + 32 + 32) + 8 <= 16384
    # h 8144: align16(16360) = 16368, + 8 = 16376 ok; h 8152: align16(16376) = 16384, + 8 = 16392 fails.
    # FP8 combine (BF16): align16(2h + 8 + 32) + 8: h 8160 -> 16368 + 8 ok; h 8176 -> 16400 + 8 fails.
    # top-k 9 / 10 at h 8144: 16288 + 8 + 72 = 16368 -> 16376 ok; + 80 = 16376 -> 16384 + 8 fails.
    "MC623": [
        ("normal", {"hidden": 8144}, False),
        ("normal", {"hidden": 8152}, True),
        ("normal", {"hidden": 8160, "dtype": "fp8"}, False),
        ("normal", {"hidden": 8176, "dtype": "fp8"}, True),
        ("normal", {"hidden": 8144, "num_topk": 9}, False),
        ("normal", {"hidden": 8144, "num_topk": 10}, True),
        ("intra", {"hidden": 8152}, False),
    ],
    # MC624 (N18): internode BF16 hidden % 256
    "MC624": [
        ("normal", {"hidden": 7424}, False),  # 29 * 256
        ("normal", {"hidden": 7296}, True),  # 28.5 * 256
        ("normal", {"hidden": 2880}, True),  # DeepEP issue #506
        ("intra", {"hidden": 2880}, False),
    ],
    # MC630 (N3, L5): E % R
    "MC630": [
        ("normal", {"num_experts": 256}, False),
        ("normal", {"num_experts": 250}, True),
        ("ll", {"num_experts": 264}, True),
        ("ll", {"num_experts": 272}, False),
    ],
    # MC631: intranode <= 128 local experts (N4); internode E / nodes <= 512 (N5)
    "MC631": [
        ("intra", {"num_experts": 1024}, False),  # 128 per rank
        ("intra", {"num_experts": 1032}, True),  # 129 per rank
        ("normal", {"num_experts": 1024}, False),  # 512 per node
        ("normal", {"num_experts": 1040}, True),  # 520 per node
        ("ll", {"num_experts": 2048, "device_sms": 200}, False),
    ],
    # MC632 (N6, L9)
    "MC632": [
        ("normal", {"num_topk": 32}, False),
        ("normal", {"num_topk": 33}, True),
        ("ll", {"num_topk": 11}, False),
        ("ll", {"num_topk": 12}, True),
    ],
    # MC633 (L11): ceil(E / SMs) <= 14 -> E <= 1848 on 132 SMs, <= 1092 on 78 SMs (H20); L12: E * 8 <= 32 MiB
    "MC633": [
        ("ll", {"num_ranks": 8, "num_experts": 1848}, False),
        ("ll", {"num_ranks": 8, "num_experts": 1856}, True),
        ("ll", {"num_ranks": 4, "num_experts": 1092, "device_sms": 78}, False),
        ("ll", {"num_ranks": 4, "num_experts": 1096, "device_sms": 78}, True),
        ("ll", {"num_ranks": 8, "num_experts": 4194304, "device_sms": 400000, "num_max_dispatch_tokens_per_rank": 4},
         False),
        ("ll", {"num_ranks": 8, "num_experts": 4194312, "device_sms": 400000, "num_max_dispatch_tokens_per_rank": 4},
         True),
        ("normal", {"num_experts": 2048}, False),
    ],
    # MC640 (L7): (R * T) % 4
    "MC640": [
        ("ll", {"num_ranks": 2, "num_experts": 256, "num_max_dispatch_tokens_per_rank": 2}, False),
        ("ll", {"num_ranks": 2, "num_experts": 256, "num_max_dispatch_tokens_per_rank": 1}, True),
        ("ll", {"num_ranks": 1, "num_experts": 256, "num_max_dispatch_tokens_per_rank": 4}, False),
        ("ll", {"num_ranks": 1, "num_experts": 256, "num_max_dispatch_tokens_per_rank": 3}, True),
    ],
    # MC641 (L10): QP depth >= 2 * (T + 1): depth 1024 -> T <= 511
    "MC641": [
        ("ll", {"num_max_dispatch_tokens_per_rank": 511}, False),
        ("ll", {"num_max_dispatch_tokens_per_rank": 512}, True),
        ("ll", {"num_max_dispatch_tokens_per_rank": 512, "nvshmem_qp_depth": 1026}, False),
        ("ll", {"num_max_dispatch_tokens_per_rank": 512, "nvshmem_qp_depth": 1025}, True),
    ],
    # MC642 (L13): QPs >= E / R = 16
    "MC642": [
        ("ll", {"num_qps_per_rank": 16}, False),
        ("ll", {"num_qps_per_rank": 15}, True),
        ("ll", {"num_qps_per_rank": 32}, False),
        ("normal", {"num_qps_per_rank": 12}, False),
    ],
    # MC652 (B1, B2): multiples of 128
    "MC652": [
        ("normal", {"num_nvl_bytes": 1073741824}, False),
        ("normal", {"num_nvl_bytes": 1073741825}, True),
        ("normal", {"num_rdma_bytes": 1073741760}, True),  # 1 GiB - 64
    ],
    # MC653: B2 normal RDMA <= INT_MAX; B3 bytes / 16 < INT_MAX; B1 NVL <= INT_MAX next to RDMA; B7
    "MC653": [
        ("normal", {"num_rdma_bytes": 2147483520}, False),  # largest multiple of 128 <= INT_MAX
        ("normal", {"num_rdma_bytes": 2147483648}, True),
        ("ll", {"num_rdma_bytes": 2147483648}, False),
        ("ll", {"num_rdma_bytes": 16 * INT_MAX - 16}, False),  # / 16 = INT_MAX - 1
        ("ll", {"num_rdma_bytes": 16 * INT_MAX}, True),  # / 16 = INT_MAX
        ("normal", {"num_nvl_bytes": 2147483648, "num_rdma_bytes": 1073741824}, True),
        ("intra", {"num_nvl_bytes": 2147483648, "num_rdma_bytes": 0}, False),
        ("intra", {"num_nvl_bytes": 2147483648, "num_rdma_bytes": 0, "device_sms": 2}, True),  # ceil(2^31 / 1)
        ("intra", {"num_nvl_bytes": 2147483648, "num_rdma_bytes": 0, "device_sms": 4}, False),  # 2^30
    ],
    # MC654: the needed buffer itself is over a limit.
    # RDMA: 160 ranks (r = 20), dispatch rdma (12, 128) stored 132 (nvl_recv 160 keeps NVL small):
    # 48 SMs: ch 24, 24*20*132 = 63360 slots * 2 * (14336 + 2072) = 2,079,221,760 + 24*20*144 = 2,079,290,880 <= INT_MAX;
    # 50 SMs: ch 25, 66000 * 32816 = 2,165,856,000 + 72,000 > INT_MAX.
    # NVL next to RDMA (B1), default table nvl_recv 720: 44 SMs: 22*8*720 = 126720 * 16392 = 2,077,194,240
    # + 22*8*(2*20+3)*4 = 30,272 -> 2,077,224,512 <= INT_MAX; 46 SMs: 132480 * 16392 = 2,171,612,160 over.
    # LL, E 256, hidden 7168: hint ~ 4*256*T*14560 = 14,909,440*T: T 2304 -> 34,351,351,936 <= 16*INT_MAX - 1, T 2305 over.
    "MC654": [
        ("normal", {"num_ranks": 160, "num_experts": 320, "num_sms": 48, "dispatch_config": [8, 160, 12, 128],
                    "combine_config": [2, 160, 8, 128]}, False),
        ("normal", {"num_ranks": 160, "num_experts": 320, "num_sms": 50, "dispatch_config": [8, 160, 12, 128],
                    "combine_config": [2, 160, 8, 128]}, True),
        ("normal", {"num_ranks": 160, "num_experts": 320, "num_sms": 44}, False),
        ("normal", {"num_ranks": 160, "num_experts": 320, "num_sms": 46}, True),
        ("ll", {"num_max_dispatch_tokens_per_rank": 2304, "nvshmem_qp_depth": 8192}, False),
        ("ll", {"num_max_dispatch_tokens_per_rank": 2305, "nvshmem_qp_depth": 8192}, True),
    ],
    # MC655 (B6): an RDMA buffer on one node needs low-latency mode
    "MC655": [
        ("intra", {"num_rdma_bytes": 0}, False),
        ("intra", {"num_rdma_bytes": 128}, True),
        ("ll", {"num_ranks": 8, "num_rdma_bytes": 2147483648}, False),
    ],
}

PARAMS = [pytest.param(code, *p.values, id=f"{code}-{p.id}") for code, rows in ROWS.items() for p in cases(rows)]


@pytest.mark.parametrize("code,base,overrides,fires", PARAMS)
def test_rule_boundaries(code, base, overrides, fires):
    check_rule(code, base, overrides, fires)


def test_value_range_error_skips_other_rules_and_buffers():
    out = check_rule("MC601", "normal", {"num_ranks": 0}, True)
    assert out.codes == {"MC601"}
    assert out.buffers == {}


def test_ll_qp_depth_message_gives_max_tokens_and_depth():
    d = check_rule("MC641", "ll", {"num_max_dispatch_tokens_per_rank": 600}, True).one("MC641")
    assert "2 * (600 + 1) = 1202" in d.message and "lower T to 511" in d.message
    assert d.path == "/num_max_dispatch_tokens_per_rank"


def test_required_ll_buffer_over_32_gib_message_gives_largest_t():
    d = check_rule("MC654", "ll", {"num_max_dispatch_tokens_per_rank": 4096, "nvshmem_qp_depth": 16384}, True).one("MC654")
    assert "num_max_dispatch_tokens_per_rank <= 2304 fits" in d.message


def test_rank_layout_message_names_nearest_valid_counts():
    d = check_rule("MC602", "normal", {"num_ranks": 12}, True).one("MC602")
    assert "nearest valid: 8 or 16" in d.message and d.path == "/num_ranks"


def test_default_table_message_names_neighbours_and_fix():
    d = check_rule("MC604", "normal", {"num_ranks": 40, "num_experts": 280}, True).one("MC604")
    assert "Unsupported number of EP ranks: 40" in d.message and "32 or 48" in d.message
    assert "dispatch_config and combine_config" in d.message


def test_config_error_points_at_the_list_entry():
    d = check_rule("MC610", "intra", {"dispatch_config": [256, 256, 6, 128]}, True).one("MC610")
    assert d.path == "/dispatch_config/0" and "nvl_send = 256 must be < nvl_recv = 256" in d.message


def test_adaptive_clamp_and_hidden_rounding_hint_in_ll_message():
    d = check_rule("MC621", "ll", {"hidden": 2880}, True).one("MC621")
    assert "pad hidden to 3072" in d.message


def test_combine_chunk_message_for_default_table_points_at_num_ranks():
    # 16 ranks, num_sms 24, file gives only the dispatch config; combine comes from the table and passes
    out = check_rule("MC612", "normal", {"dispatch_config": [36, 288, 20, 128]}, False)
    assert out.derived["config_source"] == "file + default table"
