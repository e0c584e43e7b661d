"""MC2xx expert layout: divisibility, experts per rank, shared experts, special (zero/copy/const) experts.

Limits from ascend-mc2-rules.md §1 (normalisation), §2.1 (moe_div, local_max, shared_*, zc_*), §2.2 (A2).
"""
from __future__ import annotations

import pytest

from lintkit import A2_HIER, A3_HIER, ALL, WITH_A3_HIERARCHY, assert_rule, lint_product, rule_cases

INT32_MAX = 2**31 - 1

# ---- MC201 moe % (ep - shared_rank) on A3, moe % ep on A2 -----------------------------------------------
DIV_ROWS = [
    ("A3", ALL, {"moe_expert_num": 256}, False),
    ("A3", ALL, {"moe_expert_num": 250}, True),
    # 2 shared-expert ranks: 30 MoE ranks, 240 = 8 * 30 ok, 256 not
    ("A3", ALL, {"shared_expert_rank_num": 2, "moe_expert_num": 240}, False),
    ("A3", ALL, {"shared_expert_rank_num": 2, "moe_expert_num": 256}, True),
    ("A2", ALL, {"moe_expert_num": 128}, False),
    ("A2", ALL, {"moe_expert_num": 120}, True),
    ("A2", "latest", {"shared_expert_rank_num": 4, "moe_expert_num": 128}, False),  # A2 ignores shared ranks
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(DIV_ROWS))
def test_moe_divisibility(product, ruleset, overrides, fires):
    assert_rule("MC201", product, ruleset, overrides, fires)


def test_divisibility_message_suggests_nearest_valid():
    d = lint_product("A3", "9.0", moe_expert_num=250).one("MC201")
    assert "32 - 0 = 32" in d.message and "nearest valid: 224 or 256" in d.message
    assert d.path == "/moe_expert_num"
    d = lint_product("A3", "9.0", shared_expert_rank_num=2, moe_expert_num=256).one("MC201")
    assert "32 - 2 = 30" in d.message and "240 or 270" in d.message
    d = lint_product("A2", "9.0", moe_expert_num=120).one("MC201")  # A2 divides by ep, with its own CANN text
    assert "ep_world_size = 16" in d.message and "112 or 128" in d.message and "moeExpertNum is invalid." in d.message


# ---- MC202 local_moe * ep <= 2048 and local_moe > 0 (A3) --------------------------------------------------
# ep 512, 256 shared ranks: 256 MoE ranks, 1024 / 256 = 4 per rank, 4 * 512 = 2048 ok;
# ep 513, 257 shared ranks: still 4 per rank, 4 * 513 = 2052 > 2048.
LOCAL_ROWS = [
    ("A3", ALL, {"ep_world_size": 512, "shared_expert_rank_num": 256, "moe_expert_num": 1024}, False),
    ("A3", ALL, {"ep_world_size": 513, "shared_expert_rank_num": 257, "moe_expert_num": 1024}, True),
    ("A3", ALL, {"moe_expert_num": 16}, True),  # 16 experts over 32 ranks: 0 per rank
    ("A2", "latest", {"ep_world_size": 384, "moe_expert_num": 768}, False),  # A2 has no such rule
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(LOCAL_ROWS))
def test_local_expert_limit(product, ruleset, overrides, fires):
    out = assert_rule("MC202", product, ruleset, overrides, fires)
    if fires and overrides.get("ep_world_size") == 513:
        assert "4 * 513 = 2052" in out.one("MC202").message


# ---- MC203 A2, CANN 8.5, fullmesh: moe / ep <= 24 (e416eec; removed in 9.0 by 658e594) --------------------
PER_RANK_ROWS = [
    ("A2", "8.5", {"moe_expert_num": 384}, False),  # 384 / 16 = 24
    ("A2", "8.5", {"moe_expert_num": 400}, True),  # 400 / 16 = 25
    ("A2", ("9.0", "9.1", "latest"), {"moe_expert_num": 400}, False),
    ("A2", "8.5", {**A2_HIER, "moe_expert_num": 400}, False),  # hierarchy is exempt
    ("A3", "8.5", {"ep_world_size": 16, "moe_expert_num": 400}, False),  # A2 only
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(PER_RANK_ROWS))
def test_a2_experts_per_rank(product, ruleset, overrides, fires):
    assert_rule("MC203", product, ruleset, overrides, fires)


def test_a2_per_rank_with_env_selected_hierarchy_is_exempt():
    env = {"HCCL_BUFFSIZE": 4096, "HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0}
    out = lint_product("A2", "8.5", comm_alg="", env=env, expert_scales=True, moe_expert_num=400)
    assert "MC203" not in out.codes and out.derived["comm_alg"] == "hierarchy"


# ---- MC204-MC207 shared experts (A3) ------------------------------------------------------------------------
SHARED_ROWS = [
    ("MC204", {"shared_expert_num": 4, "shared_expert_rank_num": 4, "moe_expert_num": 224}, False),
    ("MC204", {"shared_expert_num": 5, "shared_expert_rank_num": 5}, True),
    ("MC204", {"shared_expert_num": -1}, True),
    ("MC205", {"shared_expert_rank_num": 31}, False),
    ("MC205", {"shared_expert_rank_num": 32}, True),
    ("MC205", {"shared_expert_rank_num": -1}, True),
    ("MC206", {"shared_expert_num": 1, "shared_expert_rank_num": 0}, False),  # torch_npu default: none
    ("MC206", {"shared_expert_num": 0, "shared_expert_rank_num": 0}, False),
    ("MC206", {"shared_expert_num": 1, "shared_expert_rank_num": 1}, False),
    ("MC206", {"shared_expert_num": 0, "shared_expert_rank_num": 2}, True),
    ("MC206", {"shared_expert_num": 2, "shared_expert_rank_num": 0}, True),  # only (1, 0) normalises
    ("MC207", {"shared_expert_num": 2, "shared_expert_rank_num": 4}, False),
    ("MC207", {"shared_expert_num": 2, "shared_expert_rank_num": 3}, True),
]


@pytest.mark.parametrize("ruleset", ALL)
@pytest.mark.parametrize("code,overrides,fires", SHARED_ROWS)
def test_shared_experts(ruleset, code, overrides, fires):
    assert_rule(code, "A3", ruleset, overrides, fires)


@pytest.mark.parametrize("ruleset", WITH_A3_HIERARCHY)
def test_hierarchy_skips_shared_ranges_but_refuses_shared_ranks(ruleset):
    out = lint_product("A3", ruleset, **A3_HIER, shared_expert_num=5, shared_expert_rank_num=5)
    assert "MC204" not in out.codes and "MC205" not in out.codes  # non-hierarchy checks (§2.1 shared_num)
    assert "MC306" in out.codes


def test_a2_shared_expert_ranks_warn():
    d = lint_product("A2", "latest", shared_expert_rank_num=4).one("MC211")
    assert d.severity == "warning" and "16 ranks" in d.message
    assert "MC211" not in lint_product("A2", "latest", shared_expert_rank_num=0).codes
    assert "MC211" not in lint_product("A3", "latest", shared_expert_rank_num=2, moe_expert_num=240).codes


# ---- MC208 / MC209 / MC210 special experts ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["zero_expert_num", "copy_expert_num", "const_expert_num"])
@pytest.mark.parametrize("value,fires", [(0, False), (-1, True)])
def test_special_expert_sign_a3(name, value, fires):
    assert_rule("MC208", "A3", "latest", {name: value}, fires)
    if fires:
        assert lint_product("A3", "latest", **{name: value}).one("MC208").severity == "error"


@pytest.mark.parametrize("name", ["zero_expert_num", "copy_expert_num"])
@pytest.mark.parametrize("value,fires", [(0, False), (-1, True)])
def test_special_expert_sign_a2_is_a_warning(name, value, fires):
    # A2's tiling checks only that moe + zero + copy fits INT32 (DV2A22 L337-370, combine arch22 L225-313)
    out = lint_product("A2", "latest", **{name: value})
    assert ("MC208" in out.codes) is fires
    if fires:
        d = out.one("MC208")
        assert d.severity == "warning" and "A2's tiling accepts it" in d.message and out.result.valid


def test_a2_negative_const_is_mc210_not_mc208():
    out = lint_product("A2", "latest", const_expert_num=-1)
    assert "MC210" in out.codes and "MC208" not in out.codes


# A3: moe + zero + copy + const <= INT32_MAX; A2: moe + zero + copy (const must be 0 anyway).
SUM_ROWS = [
    ("A3", ALL, {"zero_expert_num": INT32_MAX - 256}, False),
    ("A3", ALL, {"zero_expert_num": INT32_MAX - 256 + 1}, True),
    ("A3", ALL, {"zero_expert_num": INT32_MAX - 256 - 1, "const_expert_num": 2}, True),  # const counts on A3
    ("A3", ALL, {"copy_expert_num": 2**31, "zero_expert_num": 2**31}, True),
    ("A2", ALL, {"zero_expert_num": INT32_MAX - 128}, False),
    ("A2", ALL, {"copy_expert_num": INT32_MAX - 128 + 1}, True),
    ("A2", ALL, {"zero_expert_num": INT32_MAX - 128, "const_expert_num": 5}, False),  # A2 does not add const
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(SUM_ROWS))
def test_special_expert_overflow(product, ruleset, overrides, fires):
    out = assert_rule("MC209", product, ruleset, overrides, fires)
    if fires:
        assert str(INT32_MAX) in out.one("MC209").message


@pytest.mark.parametrize("product,value,fires", [("A2", 0, False), ("A2", 1, True), ("A3", 1, False)])
def test_a2_const_experts(product, value, fires):
    assert_rule("MC210", product, "latest", {"const_expert_num": value}, fires)
