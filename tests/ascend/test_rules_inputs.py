"""MC4xx optional inputs and the global batch (ascend-mc2-rules.md §2.1 gbs/gbs_mask/scales_q0/perf_len,
§2.2 elastic/scales_q0)."""
from __future__ import annotations

import pytest

from lintkit import ALL, assert_rule, lint_product, rule_cases

FLOOR = 128 * 32  # bs * ep_world_size of the A3 base document

# ---- MC401 global_bs: 0, or >= bs * ep and a multiple of ep (A3; A2 takes it as is) --------------------------
GBS_ROWS = [
    ("A3", ALL, {"global_bs": 0}, False),
    ("A3", ALL, {"global_bs": FLOOR}, False),
    ("A3", ALL, {"global_bs": FLOOR - 32}, True),  # below bs * ep
    ("A3", ALL, {"global_bs": FLOOR + 32}, False),  # larger bs on some rank
    ("A3", ALL, {"global_bs": FLOOR + 1}, True),  # not a multiple of ep
    ("A3", ALL, {"global_bs": -32}, True),
    ("A2", ALL, {"global_bs": 1001}, False),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(GBS_ROWS))
def test_global_bs(product, ruleset, overrides, fires):
    out = assert_rule("MC401", product, ruleset, overrides, fires)
    if fires and overrides["global_bs"] == FLOOR + 1:
        assert "4097" in out.one("MC401").message and "4096" in out.one("MC401").message


# ---- MC402 variable bs (global_bs > bs * ep) with x_active_mask ------------------------------------------------
MASK_ROWS = [
    ("A3", ALL, {"global_bs": FLOOR + 32, "x_active_mask": "1d"}, True),
    ("A3", ("9.0", "latest"), {"global_bs": FLOOR + 32, "x_active_mask": "2d"}, True),
    ("A3", ALL, {"global_bs": FLOOR + 32, "x_active_mask": "none"}, False),
    ("A3", ALL, {"global_bs": FLOOR, "x_active_mask": "1d"}, False),
    ("A3", ALL, {"global_bs": 0, "x_active_mask": "2d"}, False),
    ("A2", "latest", {"global_bs": 64 * 16 + 16, "x_active_mask": "1d"}, False),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(MASK_ROWS))
def test_global_bs_with_mask(product, ruleset, overrides, fires):
    assert_rule("MC402", product, ruleset, overrides, fires)


# ---- MC403 scales only with quant_mode 2 (A2 INT32 x excepted) ----------------------------------------------------
SCALES_ROWS = [
    (p, ALL, {"scales": True, "quant_mode": 0}, True) for p in ("A3", "A2")
] + [
    (p, ALL, {"scales": True, "quant_mode": 2}, False) for p in ("A3", "A2")
] + [
    (p, ALL, {"scales": False, "quant_mode": 0}, False) for p in ("A3", "A2")
] + [
    ("A2", "latest", {"x_dtype": "int32", "scales": True, "quant_mode": 0}, False),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(SCALES_ROWS))
def test_scales_need_quant(product, ruleset, overrides, fires):
    assert_rule("MC403", product, ruleset, overrides, fires)


# ---- MC404 A2 elastic_info, MC405 A3 8.5 performance_info ----------------------------------------------------------
OPT_ROWS = [
    ("MC404", "A2", ALL, {"elastic_info": True}, True),
    ("MC404", "A2", ALL, {"elastic_info": False}, False),
    ("MC404", "A3", ALL, {"elastic_info": True}, False),
    ("MC405", "A3", "8.5", {"performance_info": True}, True),
    ("MC405", "A3", ("9.0", "9.1", "latest"), {"performance_info": True}, False),
    ("MC405", "A2", "8.5", {"performance_info": True}, False),
]


@pytest.mark.parametrize("code,product,ruleset,overrides,fires", [
    pytest.param(code, *case.values, id=f"{code}-{case.id}")
    for code, *row in OPT_ROWS for case in rule_cases([tuple(row)])
])
def test_optional_inputs(code, product, ruleset, overrides, fires):
    assert_rule(code, product, ruleset, overrides, fires)


def test_performance_info_message_names_release():
    d = lint_product("A3", "8.5", performance_info=True).one("MC405")
    assert "8.5" in d.message and "9.0" in d.message and d.path == "/performance_info"
