"""MC7xx Tutel rules at their boundaries, capacity and the dispatch buffer through the engine.

Base: W 16 GPUs, E 4 experts -> sharded_count s = 16 / 4 = 4, valid r = [0, 1, 2, 4]; top-2, cf 1.15,
400 tokens -> samples_per_expert ceil(400 / 4) = 100, int(1.15 * 100) = 114 (float trap), capacity 2 * 114 = 228
(alignment s * overlap = 4, 228 % 4 == 0).
"""
from __future__ import annotations

import json

import pytest

from gpu_cases import TUTEL, cases, check_rule, run_lint
from moecfg.core.diagnostics import Report
from moecfg.render import load

# one GPU, 4 experts, 100 tokens: spe ceil(100 / 4) = 25, capacity 2 * int(1.15 * 25) = 2 * 28 = 56
SINGLE_GPU = {"world_size": 1, "num_global_experts": 4, "tokens_per_device": 100, "adaptive_degree": 1,
              "megablocks_size": 4}

ROWS = {
    "MC701": [
        ("tutel", {"world_size": 1, "num_global_experts": 1}, False),
        ("tutel", {"world_size": 0}, True),
        ("tutel", {"a2a_ffn_overlap_degree": 0}, True),
        ("tutel", {"megablocks_size": 0}, False),
        ("tutel", {"megablocks_size": -1}, True),
        ("tutel", {"capacity_factor": 0, "max_expert_load": -1}, True),
        # moecfg's own bound (divisor enumeration): 2^20 GPUs ok, one more not
        ("tutel", {"world_size": 1 << 20, "num_global_experts": 1 << 20, "adaptive_degree": 1}, False),
        ("tutel", {"world_size": (1 << 20) + 1, "num_global_experts": 1, "adaptive_degree": 1}, True),
    ],
    "MC005": [
        ("tutel", {"capacity_factor": 0, "max_expert_load": 150}, False),
        ("tutel", {"capacity_factor": 0}, True),
        ("tutel", {"capacity_factor": -1.5}, True),
        ("tutel", {"capacity_factor": 0.01}, False),
    ],
    "MC702": [
        ("tutel", {"num_global_experts": 4}, False),  # 16 % 4
        ("tutel", {"num_global_experts": 5, "adaptive_degree": 1}, True),  # 16 % 5
        ("tutel", {"num_global_experts": 32, "adaptive_degree": 1}, False),  # 32 % 16
        ("tutel", {"num_global_experts": 24, "adaptive_degree": 1}, True),  # 24 % 16
    ],
    # s = 4: r 3 is not a divisor; r 5 and -1 are clamped (warning)
    "MC703": [
        ("tutel", {"adaptive_degree": 2}, False),
        ("tutel", {"adaptive_degree": 3}, True),
        ("tutel", {"adaptive_degree": 0}, False),
    ],
    "MC704": [
        ("tutel", {"hidden_size_per_expert": 8196}, False),  # 8196 = 4 * 2049
        ("tutel", {"hidden_size_per_expert": 8194}, True),
    ],
    "MC705": [
        ("tutel", {"model_dim": 2048}, False),
        ("tutel", {"model_dim": 2047}, True),
    ],
    # overlap 32: alignment 4 * 32 = 128, capacity 228 -> 256, split 256 * 4 / 4 = 256, 256 % 32 == 0; 33 > 32.
    # 16 experts on 16 GPUs: Tutel forces megablocks 4 to 0 (world_size > 1, moe_layer.py:278-280), so the
    # alignment is s * o = 1 * 3 = 3 and capacity 2 * int(1.15 * 25) = 2 * 28 = 56 -> 57, 57 % 3 == 0: no error.
    # One GPU, 4 experts, 100 tokens, grad off: megablocks 4 applies, alignment ceil(1 * 3 / 4) * 4 = 4,
    # capacity 2 * int(1.15 * 25) = 56 stays 56, 56 % 3 = 2 fails; with grad on the alignment is 3 -> 57: ok.
    "MC706": [
        ("tutel", {"a2a_ffn_overlap_degree": 32}, False),
        ("tutel", {"a2a_ffn_overlap_degree": 33}, True),
        ("tutel", {"num_global_experts": 16, "adaptive_degree": 1, "megablocks_size": 4, "a2a_ffn_overlap_degree": 2},
         False),
        ("tutel", {"num_global_experts": 16, "adaptive_degree": 1, "megablocks_size": 4, "a2a_ffn_overlap_degree": 3},
         False),
        ("tutel", dict(SINGLE_GPU, a2a_ffn_overlap_degree=3, grad_enabled=False), True),
        ("tutel", dict(SINGLE_GPU, a2a_ffn_overlap_degree=3, grad_enabled=True), False),
        ("tutel", dict(SINGLE_GPU, a2a_ffn_overlap_degree=4, grad_enabled=False), False),  # 56 % 4 == 0
    ],
    # megablocks applies only with world_size 1, more than one local expert and grad off (moe_layer.py:278-280)
    "MC708": [
        ("tutel", dict(SINGLE_GPU, grad_enabled=False), False),
        ("tutel", dict(SINGLE_GPU, grad_enabled=True), True),
        ("tutel", dict(SINGLE_GPU, grad_enabled=False, num_global_experts=1), True),  # one local expert
        ("tutel", dict(SINGLE_GPU, grad_enabled=False, world_size=2, num_global_experts=8), True),  # W 2 > 1
        ("tutel", {"megablocks_size": 0}, False),
        ("tutel", {"megablocks_size": 1}, True),  # W 16
    ],
    "MC707": [
        ("tutel", {"adaptive_degree": 4}, False),
        ("tutel", {"adaptive_degree": 1}, True),
    ],
}

PARAMS = [pytest.param(code, *p.values, id=f"{code}-{p.id}") for code, rows in ROWS.items() for p in cases(rows)]


@pytest.mark.parametrize("code,base,overrides,fires", PARAMS)
def test_rule_boundaries(code, base, overrides, fires):
    check_rule(code, base, overrides, fires)


@pytest.mark.parametrize("degree,clamped", [(5, 4), (-1, 0)])
def test_adaptive_degree_out_of_range_is_clamped_with_a_warning(degree, clamped):
    d = check_rule("MC703", "tutel", {"adaptive_degree": degree}, True, severity="warning").one("MC703")
    assert f"clamps it to {clamped}" in d.message


def test_experts_fewer_than_gpus_message_quotes_tutel_and_names_divisors():
    # 16 GPUs share 6 experts: 16 / 6 is not whole; the divisors of 16 around 6 are 4 and 8. Tutel's assert
    # prints its integer -num_local_experts, never a fraction such as 2.66667.
    d = run_lint(TUTEL, num_global_experts=6, adaptive_degree=1).one("MC702")
    assert "while global device count is 16." in d.message and "nearest valid: 4 or 8" in d.message
    assert "2.66" not in d.message


def test_odd_model_dim_quotes_tutels_assert_verbatim():
    # tutel/impls/moe_layer.py: assert model_dim % 2 == 0, 'Model_dim (%s) must be even value, while ...'
    d = run_lint(TUTEL, model_dim=2047).one("MC705")
    assert '"Model_dim (2047) must be even value, while this Model_dim mod 2 > 0."' in d.message


def test_invalid_degree_message_lists_candidates():
    d = run_lint(TUTEL, adaptive_degree=3).one("MC703")
    assert "[0, 1, 2, 4]" in d.message and d.severity == "error"


def test_capacity_float_trap_and_dispatch_buffer():
    out = run_lint(TUTEL)
    assert out.derived["capacity"] == 228 and out.derived["samples_per_expert"] == 100
    assert out.derived["sharded_count"] == 4 and out.derived["valid_adaptive_degrees"] == [0, 1, 2, 4]
    buf = out.buffers["dispatch"]
    # D = E * C * M * 2 = 4 * 228 * 2048 * 2 = 3,735,552
    assert buf["required_bytes"] == 3_735_552 and buf["sufficient"] is None
    assert buf["terms"] == {"num_global_experts": 4, "capacity": 228, "model_dim": 2048, "dtype_bytes": 2}
    assert "int(1.15 * 100)" in buf["note"]


def test_capacity_factor_zero_and_negative_use_max_load():
    # cf 0: capacity = max load 150 -> aligned to 4 = 152
    assert run_lint(TUTEL, capacity_factor=0, max_expert_load=150).derived["capacity"] == 152
    # cf -0.5: min(300, 2 * int(0.5 * 100) = 100) = 100
    assert run_lint(TUTEL, capacity_factor=-0.5, max_expert_load=300).derived["capacity"] == 100


def test_top_k_clipped_and_fp32():
    out = run_lint(TUTEL, top_k=8, dtype="fp32")  # top-k 8 of 4 experts -> 4
    # capacity 4 * 114 = 456; D = 4 * 456 * 2048 * 4 = 14,942,208
    assert out.derived["top_k"] == 4 and out.buffers["dispatch"]["required_bytes"] == 14_942_208


def test_communication_model_per_degree():
    comm = {row["r"]: row for row in run_lint(TUTEL).derived["communication"]}
    # D = 3,735,552; P = 4 experts * (2*2048*8192 + 8192 + 2048) * 2 B = 268,517,376; P_e = 67,129,344
    assert comm[1]["all_to_all_bytes"] == 4 * 3_735_552  # 14,942,208
    assert comm[1]["zero_gather_bytes"] == 2 * (67_129_344 - 67_129_344 // 4)  # 100,694,016
    assert comm[2]["zero_gather_bytes"] == 2 * (67_129_344 // 2 - 67_129_344 // 4)  # 33,564,672
    assert comm[4]["total_bytes"] == 16 * 3_735_552  # 59,768,832, no zero-gather at r = s
    assert comm[0]["total_bytes"] == 268_517_376 * 15 // 16 * 2  # 503,470,080
    assert comm[4]["mode"] == "MP+EP" and comm[0]["mode"] == "DP"
    assert run_lint(TUTEL).derived["recommended_adaptive_degree"] == 4


def test_json_report_shape():
    report = Report(results=run_lint(TUTEL).results, files=1)
    result = json.loads(load("json").render(report, color=False, command="check"))["results"][0]
    assert result["kind"] == "tutel" and result["valid"] is True and result["diagnostics"] == []
    assert set(result["buffers"]) == {"dispatch"}
    assert {"required_bytes", "sufficient", "formula", "terms"} <= set(result["buffers"]["dispatch"])
    assert result["derived"]["dispatch_shape"] == [4, 228, 2048]


def test_broken_field_gives_no_buffer():
    out = run_lint(TUTEL, world_size="16")
    assert out.codes == {"MC004"} and out.buffers == {}


def test_capacity_factor_overflow_is_a_finding_not_a_crash():
    # 1e300 * ceil(2^62 / 4) overflows a float: Tutel's int(cf * samples) would raise OverflowError
    out = run_lint(TUTEL, capacity_factor=1e300, tokens_per_device=2**62)
    assert out.codes == {"MC701"} and out.buffers == {}


@pytest.mark.parametrize(("grad_enabled", "world_size", "experts", "mega", "alignment", "capacity"), [
    (False, 1, 4, 64, 64, 64),  # megablocks 64 used: ceil(1 * 1 / 64) * 64 = 64; 56 -> 64
    (True, 1, 4, 64, 1, 56),  # training: forced to 0, alignment s * o = 1; capacity 56
    (False, 4, 16, 64, 1, 56),  # 4 GPUs x 4 local experts: forced to 0 (world_size > 1)
])
def test_capacity_uses_the_megablocks_tutel_keeps(grad_enabled, world_size, experts, mega, alignment, capacity):
    # tokens_per_device * experts / world_size keeps spe = 25: capacity 2 * int(1.15 * 25) = 56 before alignment
    out = run_lint(TUTEL, **dict(SINGLE_GPU, world_size=world_size, num_global_experts=experts,
                                 tokens_per_device=25 * experts, megablocks_size=mega, grad_enabled=grad_enabled))
    assert (out.derived["alignment"], out.derived["capacity"]) == (alignment, capacity)
    assert out.derived["megablocks_size"] == (mega if alignment == mega else 0)
