"""`model:` / `redundant_experts:` in `kind: deepep` documents, and the device-memory rules (MC901/MC902) for DeepEP."""
from __future__ import annotations

import pytest
from lintkit import run_lint

from moecfg.backends.device.devices import GIB

LL = {"kind": "deepep", "mode": "low_latency", "num_ranks": 16, "model": "deepseek-v3", "dtype": "fp8",
      "num_max_dispatch_tokens_per_rank": 128, "num_rdma_bytes": 1908410496}
EXPLICIT = {"kind": "deepep", "mode": "low_latency", "num_ranks": 16, "hidden": 7168, "num_experts": 256, "num_topk": 8,
            "dtype": "fp8", "num_max_dispatch_tokens_per_rank": 128, "num_rdma_bytes": 1908410496}


def test_model_fills_hidden_experts_topk_like_the_explicit_example():
    # examples/deepep-deepseek-v3-ll-decode-128.yaml writes hidden 7168, 256 experts, top-8 by hand:
    # 4*E*T*comb_msg + 2*align128(4E) = 4*256*128*(7168*2 + 56*4) + 2*1024 = 1908408320, "+128" rounding -> 1908410496
    by_model, by_hand = run_lint(LL), run_lint(EXPLICIT)
    assert by_model.result.valid and by_model.codes == by_hand.codes == set()
    assert by_model.buffers["rdma"]["required_bytes"] == by_hand.buffers["rdma"]["required_bytes"] == 1908410496
    assert by_model.derived["local_experts"] == 16


def test_explicit_keys_win_over_the_preset():
    linted = run_lint(LL, num_experts=128, num_rdma_bytes=None)  # 8 local experts instead of 16
    assert linted.derived["local_experts"] == 8
    # 4*128*128*14560 + 2*512 = 954205184 (aligned) -> +128 = 954205312
    assert linted.buffers["rdma"]["required_bytes"] == 954205312


def test_redundant_experts_add_to_num_experts_and_the_rdma_buffer():
    # 256 + 32 = 288 experts: 4*288*128*14560 + 2*1152 = 2146961664 (aligned) -> +128 = 2146961792 > 1908410496
    linted = run_lint(LL, redundant_experts=32)
    assert linted.derived["local_experts"] == 18
    assert linted.buffers["rdma"]["required_bytes"] == 2146961792
    assert linted.codes == {"MC651"}
    assert run_lint(LL, redundant_experts=32, num_rdma_bytes=2146961792).codes == set()


def test_redundant_experts_add_to_an_explicit_count_too():
    assert run_lint(LL, num_experts=224, redundant_experts=32).derived["local_experts"] == 16


def test_rule_on_a_filled_key_points_at_the_model_line():
    text = "kind: deepep\nmode: low_latency\nnum_ranks: 24\nnum_max_dispatch_tokens_per_rank: 128\nmodel: deepseek-v3\n"
    d = run_lint(text).one("MC630")  # 256 % 24 != 0; num_experts came from line 5
    assert (d.line, d.column) == (5, 8)


def test_redundant_count_points_at_its_own_line():
    text = ("kind: deepep\nmode: low_latency\nnum_ranks: 16\nnum_max_dispatch_tokens_per_rank: 128\nmodel: deepseek-v3\n"
            "redundant_experts: 8\n")
    d = run_lint(text).one("MC630")  # 264 % 16 != 0; the count is 256 (model) + 8 (line 6)
    assert d.line == 6 and "264" in d.message


def test_unknown_model_names_the_deepep_fields():
    d = run_lint(LL, model="deepseek-v4").one("MC006")
    assert d.path == "/model" and "did you mean `deepseek-v3`" in d.message
    assert "write hidden, num_experts and num_topk yourself" in d.message


def test_negative_redundant_experts_is_an_error():
    assert run_lint(LL, redundant_experts=-4).one("MC006").path == "/redundant_experts"


@pytest.mark.parametrize("model, hidden, experts", [("qwen3-235b-a22b", 4096, 128), ("kimi-k2", 7168, 384),
                                                    ("glm-4.5", 5120, 160)])
def test_other_presets_fill_their_published_values(model, hidden, experts):
    linted = run_lint(LL, model=model, num_rdma_bytes=None)
    assert linted.derived["hidden_bytes"] == hidden * 2
    assert linted.derived["local_experts"] == experts // 16
    # LL hint closed form (comb_msg = hidden*2 + hidden/128*4 > disp_msg): 4*E*T*comb_msg + 2*align128(4E), then +128
    comb = hidden * 2 + hidden // 128 * 4
    total = 4 * experts * 128 * comb + 2 * -(-4 * experts // 128) * 128
    assert linted.buffers["rdma"]["required_bytes"] == total - total % 128 + 128
    assert linted.result.valid, linted


def test_preset_top_k_reaches_the_rules():
    # LongCat-Flash routes top-12 (moe_topk 12): above the low-latency kernels' 11, at the `model` line
    d = run_lint(LL, model="longcat-flash", num_rdma_bytes=None).one("MC632")
    assert "`num_topk` = 12" in d.message and d.path == "/num_topk"


# --- device memory (MC901 / MC902) ------------------------------------------------------------------

# Normal mode, 2 x 8 GPUs, 24 SMs (examples/deepep-deepseek-v3-2x8-h800-normal.yaml): NVL hint
# 12*8*(2*2+3)*4 + 12*8*288*(14336+2056) = 2688 + 453206016 = 453208704; RDMA hint
# 12*2*144 + 12*2*140*2*(14336+2072) = 3456 + 110261760 = 110265216; + 32 MiB workspace (33554432)
NORMAL = {"kind": "deepep", "mode": "normal", "num_ranks": 16, "model": "deepseek-v3", "num_sms": 24}
NORMAL_TOTAL = 453208704 + 110265216 + 33554432  # 597028352 B


def test_no_device_no_device_rule():
    assert not {"MC901", "MC902"} & run_lint(NORMAL).codes


def test_device_memory_boundary_is_exact():
    at = NORMAL_TOTAL / GIB  # exact in binary floating point (division by 2^30)
    assert "MC901" not in run_lint(NORMAL, device_memory_gb=at).codes
    d = run_lint(NORMAL, device_memory_gb=(NORMAL_TOTAL - 1) / GIB).one("MC901")
    assert "597028352 bytes" in d.message and "workspace 33554432" in d.message
    assert d.path == "/num_sms"  # nothing configured: the requirement grows with num_sms


def test_near_limit_warning_above_75_percent():
    # 597028352 / 0.75 = 796037802.67: a device of 796037803 B holds it at 74.99..%, 796037802 B at 75.00..%
    assert "MC902" not in run_lint(NORMAL, device_memory_gb=796037803 / GIB).codes
    d = run_lint(NORMAL, device_memory_gb=796037802 / GIB).one("MC902")
    assert d.severity == "warning" and "75%" in d.message


def test_configured_buffers_count_when_larger_and_the_fix_names_the_field():
    # vLLM's fixed 1 GiB for both buffers: 2 * 1073741824 + 33554432 = 2181038080 B > 2 GiB
    doc = dict(NORMAL, num_nvl_bytes=1 << 30, num_rdma_bytes=1 << 30, device_memory_gb=2)
    d = run_lint(doc).one("MC901")
    assert "2181038080 bytes" in d.message and d.path == "/num_nvl_bytes"
    assert "lower num_nvl_bytes to 453208704" in d.message


def test_catalog_devices_and_unknown_device():
    # 80 GB H800 holds any Buffer DeepEP accepts (<= INT_MAX NVL next to an RDMA buffer < 32 GiB)
    assert not {"MC901", "MC902"} & run_lint(NORMAL, device="H800", num_nvl_bytes=1 << 30).codes
    assert run_lint(NORMAL, device="h20").result.valid  # case-insensitive
    d = run_lint(NORMAL, device="H900").one("MC006")
    assert d.path == "/device" and "'H800'" in d.message


def test_device_memory_override_must_be_positive():
    assert run_lint(NORMAL, device_memory_gb=0).one("MC006").path == "/device_memory_gb"


def test_low_latency_path_points_at_tokens():
    # LL 128 tokens: 1908410496 + 33554432 = 1941964928 B > 1.5 GiB (1610612736 B)
    d = run_lint(LL, num_rdma_bytes=None, device_memory_gb=1.5).one("MC901")
    assert d.path == "/num_max_dispatch_tokens_per_rank" and "1941964928 bytes" in d.message
