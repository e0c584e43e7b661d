"""`api: v2` (MC660-MC666) and `api: hybridep` (MC670-MC675): every limit just inside and just outside."""
from __future__ import annotations

import pytest

from gpu_cases import run_lint

# sglang PR #24443 shape: 16 ranks (2 x 8), T 4096, hidden 7168, BF16, top-8 -> 1218445312 bytes.
V2 = {"kind": "deepep", "api": "v2", "num_ranks": 16, "num_experts": 256, "num_max_tokens_per_rank": 4096,
      "hidden": 7168, "num_topk": 8}
# 64 ranks in NVLink domains of 4, 4 experts per rank, BF16.
HEP = {"kind": "deepep", "api": "hybridep", "num_ranks": 64, "hidden_dim": 7168, "max_num_of_tokens_per_rank": 8192,
       "num_local_experts": 4, "num_of_hybrid_ep_ranks_per_nvlink_domain": 4}
HINT = 1_218_445_312
UNALIGNED_CALL = 1_216_512_000  # max(dispatch 1162674176, combine 1216512000) at top-8


def codes(base, **kw):
    return run_lint(base, **kw).codes


V2_ROWS = [
    ("MC660", {"num_max_tokens_per_rank": 1}, False), ("MC660", {"num_max_tokens_per_rank": 0}, True),
    ("MC660", {"num_topk": 0}, False), ("MC660", {"num_topk": -1}, True),
    ("MC660", {"num_bytes": 0}, True),
    ("MC661", {"num_ranks": 24, "num_experts": 264}, False), ("MC661", {"num_ranks": 20, "num_experts": 260}, True),
    ("MC661", {"num_ranks": 72, "num_nvl_ranks": 72, "num_experts": 288}, False),
    ("MC661", {"num_ranks": 1024, "num_experts": 1024}, False),
    ("MC661", {"num_ranks": 1032, "num_experts": 1032}, True),
    ("MC662", {"num_experts": 250}, True), ("MC662", {"num_experts": 2048}, False),
    ("MC662", {"num_experts": 2064}, True),  # 2064 / 16 = 129 per rank, but > 2048 in all
    ("MC662", {"num_ranks": 8, "num_experts": 2048}, False),  # 256 per rank
    ("MC662", {"num_ranks": 4, "num_experts": 1028}, True),  # 257 per rank
    ("MC663", {"hidden": 7176}, True), ("MC663", {"hidden": 7184}, False),  # BF16: % 16
    ("MC663", {"hidden": 7184, "use_fp8_dispatch": True}, True),  # FP8: % 32
    ("MC663", {"hidden": 7200, "use_fp8_dispatch": True}, False),
    ("MC664", {"num_topk": 32}, False), ("MC664", {"num_topk": 33}, True),
    ("MC665", {"num_bytes": HINT}, False), ("MC665", {"num_bytes": HINT + 1}, True),
    ("MC665", {"num_bytes": HINT, "num_cpu_bytes": 2097152}, False),
    ("MC665", {"num_bytes": HINT, "num_cpu_bytes": 1000}, True),
    ("MC665", {"num_bytes": 2097152, "num_cpu_bytes": 4194304}, True),  # cpu > total
    ("MC666", {"num_bytes": HINT}, False), ("MC666", {"num_bytes": HINT - 2097152}, True),
    ("MC658", {"num_bytes": 4 * HINT}, False), ("MC658", {"num_bytes": 4 * HINT + 2097152 * 8}, True),
]


@pytest.mark.parametrize("code, kw, fires", V2_ROWS, ids=[f"{c}-{k}-{f}" for c, k, f in V2_ROWS])
def test_v2_limits(code, kw, fires):
    assert (code in codes(V2, **kw)) is fires


def test_v2_clean_and_buffer_json():
    out = run_lint(V2)
    assert out.codes == set()
    assert out.buffers["elastic"]["required_bytes"] == HINT
    assert out.derived["mode"] == "hybrid" and out.derived["num_allocated_qps"] == 65
    # GPU memory: the buffer plus the 16 MiB workspace = 1218445312 + 16777216
    assert out.derived["gpu_bytes_per_rank"] == 1_235_222_528
    assert run_lint(V2, allow_hybrid_mode=False).derived["num_allocated_qps"] == 17


def test_v2_below_hint_but_above_call_is_a_warning_only_with_topk_zero():
    # top-0 hint 1233125376; the top-8 call needs 1216512000: a buffer between is a warning
    d = run_lint(V2, num_topk=0, num_bytes=HINT).one("MC666")
    assert d.severity == "warning" and "1233125376" in d.message
    assert run_lint(V2, num_bytes=HINT - 2097152).one("MC666").severity == "error"


def test_v2_device_memory():
    # 1218445312 + 16 MiB workspace = 1235222528 bytes = 1.15 GiB: over 75% of a 1.5 GB device, under 80 GB
    assert "MC902" in codes(V2, device_memory_gb=1.5) and "MC901" in codes(V2, device_memory_gb=1.1)
    assert not {"MC901", "MC902"} & codes(V2, device="H100")


HEP_ROWS = [
    ("MC670", {"num_local_experts": 0}, True), ("MC670", {"num_local_experts": 1, "num_ranks": 64}, False),
    ("MC671", {"num_ranks": 62}, True), ("MC671", {"num_ranks": 72, "num_of_hybrid_ep_ranks_per_nvlink_domain": 72},
                                         False),
    ("MC671", {"num_ranks": 74, "num_of_hybrid_ep_ranks_per_nvlink_domain": 74}, True),
    ("MC672", {"hidden_dim": 7184}, False), ("MC672", {"hidden_dim": 7176}, True),
    ("MC672", {"use_fp8": True}, False), ("MC672", {"use_fp8": True, "hidden_dim": 2880}, True),
    ("MC673", {"num_local_experts": 3, "num_of_hybrid_ep_ranks_per_nvlink_domain": 4}, False),  # 12
    ("MC673", {"num_local_experts": 3, "num_of_hybrid_ep_ranks_per_nvlink_domain": 2}, True),  # 6
    ("MC673", {"num_of_tokens_per_chunk_dispatch_api": 2, "num_of_hybrid_ep_ranks_per_nvlink_domain": 2}, False),
    ("MC673", {"num_of_tokens_per_chunk_dispatch_api": 1, "num_of_hybrid_ep_ranks_per_nvlink_domain": 2}, True),
    # padded = ceil(max(T, 512) / 64) * 64; 3 * padded + 1 < 65536 -> padded <= 21844 -> T <= 21824
    ("MC674", {"max_num_of_tokens_per_rank": 21824}, False), ("MC674", {"max_num_of_tokens_per_rank": 21825}, True),
    ("MC674", {"max_num_of_tokens_per_rank": 21844, "num_of_tokens_per_chunk_combine_api": 4}, False),  # 21844
    ("MC674", {"max_num_of_tokens_per_rank": 21845, "num_of_tokens_per_chunk_combine_api": 1}, True),
    ("MC674", {"max_num_of_tokens_per_rank": 65536, "num_ranks": 4}, False),  # one domain: no IB
    ("MC675", {"num_sms_dispatch_api": 132}, False), ("MC675", {"num_sms_dispatch_api": 133}, True),
    ("MC675", {"num_sms_combine_api": 149, "device_sms": 148}, True),
]


@pytest.mark.parametrize("code, kw, fires", HEP_ROWS, ids=[f"{c}-{k}-{f}" for c, k, f in HEP_ROWS])
def test_hybridep_limits(code, kw, fires):
    assert (code in codes(HEP, **kw)) is fires


def test_hybridep_clean_and_derived():
    out = run_lint(HEP)
    assert out.codes == set()
    # 16 domains: 8 SMs by default; buffer tokens = ceil(8192 / 64) * 64 = 8192; TX depth 3 * 8192 + 1 = 24577
    assert out.derived == {"num_of_nodes": 16, "buffer_tokens_per_rank": 8192, "num_sms_dispatch_api": 8,
                           "num_sms_combine_api": 8, "hidden_multiple": 16, "ib_tx_depth": 24577,
                           "max_tokens_per_rank_multinode": 21824}


def test_api_fields_are_separate():
    msg = run_lint(V2, mode="normal").one("MC003").message
    assert "mode" in msg
