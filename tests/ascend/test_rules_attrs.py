"""MC1xx attribute ranges: the value just inside and just outside each limit, per product and rule set.

Limits from ascend-mc2-rules.md §2.1 (A3), §2.2 (A2), §3.1/§3.2 (combine) and the §9 timeline.
"""
from __future__ import annotations

import pytest

from lintkit import (A2_HIER, A3_HIER, ALL, LEGACY_TP, WITH_A3_HIERARCHY, assert_rule, lint_product,
                      rule_cases)

# ---- MC101 ep_world_size ---------------------------------------------------------------------------
# A3: [2, 768] (§2.1 ep_range); hierarchy <= 256 and % 16 (ep_16); 8.5 has no hierarchy.
# A2: 8.5 multiples of 8 up to 256; 9.0+ any ep <= 8 or a multiple of 8 up to 384 (a558b78, f11e4d6);
#     hierarchy <= 64 (§2.2 ep).
EP_ROWS = [
    ("A3", ALL, {"ep_world_size": 2}, False),
    ("A3", ALL, {"ep_world_size": 1}, True),
    ("A3", ALL, {"ep_world_size": 768}, False),
    ("A3", ALL, {"ep_world_size": 769}, True),
    ("A3", ALL, {"ep_world_size": 33}, False),  # flat A3 has no alignment rule
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "ep_world_size": 256}, False),
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "ep_world_size": 272}, True),  # % 16 but > 256
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "ep_world_size": 16}, False),
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "ep_world_size": 8}, True),  # not % 16
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "ep_world_size": 40}, True),
    ("A3", "8.5", {**A3_HIER, "ep_world_size": 272}, False),  # hierarchy refused (MC301), flat limit applies
    ("A2", "8.5", {"ep_world_size": 8}, False),
    ("A2", "8.5", {"ep_world_size": 4}, True),  # R85: ep % 8 == 0 always
    ("A2", "8.5", {"ep_world_size": 256}, False),
    ("A2", "8.5", {"ep_world_size": 264}, True),
    ("A2", "8.5", {"ep_world_size": 384}, True),
    ("A2", ("9.0", "9.1", "latest"), {"ep_world_size": 4}, False),
    ("A2", ("9.0", "9.1", "latest"), {"ep_world_size": 1}, False),
    ("A2", ("9.0", "9.1", "latest"), {"ep_world_size": 0}, True),
    ("A2", ("9.0", "9.1", "latest"), {"ep_world_size": 12}, True),
    ("A2", ("9.0", "9.1", "latest"), {"ep_world_size": 16}, False),
    ("A2", ("9.0", "9.1", "latest"), {"ep_world_size": 384}, False),
    ("A2", ("9.0", "9.1", "latest"), {"ep_world_size": 392}, True),
    ("A2", ALL, {**A2_HIER, "ep_world_size": 64}, False),
    ("A2", ALL, {**A2_HIER, "ep_world_size": 72}, True),
    ("A2", "8.5", {**A2_HIER, "ep_world_size": 4}, True),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(EP_ROWS))
def test_ep_world_size(product, ruleset, overrides, fires):
    assert_rule("MC101", product, ruleset, overrides, fires)


def test_ep_message_names_value_and_limit():
    d = lint_product("A3", "9.0", ep_world_size=769).one("MC101")
    assert "769" in d.message and "[2, 768]" in d.message and d.path == "/ep_world_size"
    d = lint_product("A3", "9.0", **A3_HIER, ep_world_size=40).one("MC101")
    assert "multiple of 16" in d.message
    d = lint_product("A2", "9.0", ep_world_size=12).one("MC101")
    assert "12" in d.message and "multiple of 8" in d.message


# ---- MC102 ep_rank_id --------------------------------------------------------------------------------
RANK_ROWS = [
    (p, "latest", {"ep_rank_id": r}, fires)
    for p in ("A3", "A2") for r, fires in ((0, False), (15, False), (16, True), (-1, True))
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(RANK_ROWS))
def test_ep_rank_id(product, ruleset, overrides, fires):
    overrides = {**overrides, "ep_world_size": 16, "moe_expert_num": 128}
    assert_rule("MC102", product, ruleset, overrides, fires)


# ---- MC103 bs ------------------------------------------------------------------------------------------
# A3 [1, 512], hierarchy 256. A2 256, hierarchy 512 since 9.0 (cc81564), 256 in 8.5.
BS_ROWS = [
    ("A3", ALL, {"bs": 512}, False),
    ("A3", ALL, {"bs": 513}, True),
    ("A3", ALL, {"bs": 1}, False),
    ("A3", ALL, {"bs": 0}, True),
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "bs": 256}, False),
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "bs": 257}, True),
    ("A2", ALL, {"bs": 256}, False),
    ("A2", ALL, {"bs": 257}, True),
    ("A2", ALL, {"bs": 0}, True),
    ("A2", "8.5", {**A2_HIER, "bs": 256}, False),
    ("A2", "8.5", {**A2_HIER, "bs": 257}, True),
    ("A2", ("9.0", "9.1", "latest"), {**A2_HIER, "bs": 512}, False),
    ("A2", ("9.0", "9.1", "latest"), {**A2_HIER, "bs": 513}, True),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(BS_ROWS))
def test_bs(product, ruleset, overrides, fires):
    assert_rule("MC103", product, ruleset, overrides, fires)


# ---- MC104 h -------------------------------------------------------------------------------------------
# A3 [1024, 8192], no alignment; hierarchy: hMin 0 (no 1024 floor), <= 7168, % 32 (DV2T[M] L1066-1074).
# A2: % 32, H > 0, <= 7168 fullmesh before 9.1, 10240 from 9.1 (e74eca1), 10240 hierarchy, 5120 INT32 x.
H_ROWS = [
    ("A3", ALL, {"h": 1024}, False),
    ("A3", ALL, {"h": 1023}, True),
    ("A3", ALL, {"h": 8192}, False),
    ("A3", ALL, {"h": 8193}, True),
    ("A3", ALL, {"h": 1025}, False),  # non-hierarchy A3 has no 32-alignment check
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "h": 7168}, False),
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "h": 7200}, True),
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "h": 7184}, True),  # > 7168 although % 16
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "h": 512}, False),  # hierarchy: no 1024 floor
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "h": 32}, False),
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "h": 1000}, True),  # not % 32
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "h": 0}, True),
    ("A2", ("8.5", "9.0"), {"h": 7168}, False),
    ("A2", ("8.5", "9.0"), {"h": 7200}, True),
    ("A2", ("9.1", "latest"), {"h": 7200}, False),
    ("A2", ("9.1", "latest"), {"h": 10240}, False),
    ("A2", ("9.1", "latest"), {"h": 10272}, True),
    ("A2", ALL, {**A2_HIER, "h": 10240}, False),
    ("A2", ALL, {**A2_HIER, "h": 10272}, True),
    ("A2", ALL, {"h": 4100}, True),  # not % 32
    ("A2", ALL, {"h": 32}, False),
    ("A2", ALL, {"h": 0}, True),
    ("A2", "latest", {"x_dtype": "int32", "scales": True, "h": 5120}, False),
    ("A2", "latest", {"x_dtype": "int32", "scales": True, "h": 5152}, True),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(H_ROWS))
def test_hidden_size(product, ruleset, overrides, fires):
    assert_rule("MC104", product, ruleset, overrides, fires)


def test_hidden_message_names_limit_and_mode():
    d = lint_product("A2", "9.0", h=7200).one("MC104")
    assert "7200" in d.message and "7168" in d.message and "fullmesh" in d.message
    d = lint_product("A2", "latest", x_dtype="int32", scales=True, h=5152).one("MC104")
    assert "5120" in d.message and "INT32" in d.message


# ---- MC105 k -------------------------------------------------------------------------------------------
# K in (0, 16] and <= moe + zero + copy (+ const on A3; A2 does not count const, §2.2 k).
K_ROWS = [
    (p, ALL, {"k": 16}, False) for p in ("A3", "A2")
] + [
    (p, ALL, {"k": 17}, True) for p in ("A3", "A2")
] + [
    (p, ALL, {"k": 0}, True) for p in ("A3", "A2")
] + [
    ("A3", "latest", {"moe_expert_num": 8, "k": 8}, False),
    ("A3", "latest", {"moe_expert_num": 8, "k": 9}, True),
    ("A3", "latest", {"moe_expert_num": 8, "zero_expert_num": 1, "k": 9}, False),
    ("A3", "latest", {"moe_expert_num": 8, "copy_expert_num": 1, "k": 9}, False),
    ("A3", "latest", {"moe_expert_num": 8, "const_expert_num": 1, "k": 9}, False),
    ("A2", "latest", {"moe_expert_num": 8, "zero_expert_num": 1, "k": 9}, False),
    ("A2", "latest", {"moe_expert_num": 8, "const_expert_num": 1, "k": 9}, True),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(K_ROWS))
def test_top_k(product, ruleset, overrides, fires):
    assert_rule("MC105", product, ruleset, overrides, fires)


# ---- MC106 moe_expert_num ------------------------------------------------------------------------------
# A3 (0, 1024], hierarchy 512. A2 fullmesh 512 before 9.1, 1024 from 9.1 (e74eca1); hierarchy 512.
MOE_ROWS = [
    ("A3", ALL, {"moe_expert_num": 1024}, False),
    ("A3", ALL, {"moe_expert_num": 1025}, True),
    ("A3", ALL, {"moe_expert_num": 0}, True),
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "moe_expert_num": 512}, False),
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER, "moe_expert_num": 513}, True),
    ("A2", ("8.5", "9.0"), {"moe_expert_num": 512}, False),
    ("A2", ("8.5", "9.0"), {"moe_expert_num": 528}, True),
    ("A2", ("9.1", "latest"), {"moe_expert_num": 1024}, False),
    ("A2", ("9.1", "latest"), {"moe_expert_num": 1040}, True),
    ("A2", ALL, {**A2_HIER, "moe_expert_num": 512}, False),
    ("A2", ALL, {**A2_HIER, "moe_expert_num": 528}, True),
    ("A2", ALL, {"moe_expert_num": -16}, True),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(MOE_ROWS))
def test_moe_expert_num(product, ruleset, overrides, fires):
    assert_rule("MC106", product, ruleset, overrides, fires)


# ---- MC107 quant_mode, MC108 expert_token_nums_type, MC109 expert_shard_type ----------------------------
@pytest.mark.parametrize("product", ["A3", "A2"])
@pytest.mark.parametrize("ruleset", ALL)
@pytest.mark.parametrize("quant,fires", [(0, False), (2, False), (1, True), (3, True), (-1, True)])
def test_quant_mode(product, ruleset, quant, fires):
    out = assert_rule("MC107", product, ruleset, {"quant_mode": quant}, fires)
    if quant == 1:
        assert "static quant" in out.one("MC107").message


@pytest.mark.parametrize("product", ["A3", "A2"])
@pytest.mark.parametrize("value,fires", [(0, False), (1, False), (2, True), (-1, True)])
def test_expert_token_nums_type(product, value, fires):
    assert_rule("MC108", product, "latest", {"expert_token_nums_type": value}, fires)


@pytest.mark.parametrize("product,value,fires", [("A3", 0, False), ("A3", 1, True), ("A2", 1, False)])
def test_expert_shard_type(product, value, fires):
    assert_rule("MC109", product, "9.0", {"expert_shard_type": value}, fires)  # A2 does not check it


# ---- MC110 communicator names -------------------------------------------------------------------------
GROUP_ROWS = [
    (p, "latest", {"group_ep": "g" * 127}, False) for p in ("A3", "A2")
] + [
    (p, "latest", {"group_ep": "g" * 128}, True) for p in ("A3", "A2")
] + [
    (p, "latest", {"group_ep": ""}, True) for p in ("A3", "A2")
] + [
    ("A3", LEGACY_TP, {"tp_world_size": 2, "group_tp": ""}, True),  # R85 L520-527: tp > 1 needs group_tp
    ("A3", LEGACY_TP, {"tp_world_size": 2, "group_tp": "tp"}, False),
    ("A3", LEGACY_TP, {"tp_world_size": 1, "group_tp": ""}, False),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(GROUP_ROWS))
def test_group_names(product, ruleset, overrides, fires):
    assert_rule("MC110", product, ruleset, overrides, fires)


def test_same_tp_and_ep_group_is_a_warning():
    d = lint_product("A3", "9.1", tp_world_size=2, group_ep="g", group_tp="g").one("MC110")
    assert d.severity == "warning"


# ---- MC111 TP ------------------------------------------------------------------------------------------
# A3 8.5-9.1: tp in [0, 2]; tp > 1: tp_rank in [0, tp); else tp_rank == 0 (R85 DV2T L514-531).
# latest (7feca19): dispatch rejects tp >= 2 only, but combine v2 keeps tp in [0, MAX_TP_WORLD_SIZE = 1] and
# "tpRankId should be 0 in NoTp mode" (CV2T[M] L288-302), so the pair refuses tp -1 and tp_rank_id != 0.
# A2 latest: tp >= 2 rejected (CV2A22[M] L272-277); tp_rank_id is not read there.
TP_ROWS = [
    ("A3", LEGACY_TP, {"tp_world_size": 2}, False),
    ("A3", LEGACY_TP, {"tp_world_size": 3}, True),
    ("A3", LEGACY_TP, {"tp_world_size": -1}, True),
    ("A3", LEGACY_TP, {"tp_world_size": 2, "tp_rank_id": 1}, False),
    ("A3", LEGACY_TP, {"tp_world_size": 2, "tp_rank_id": 2}, True),
    ("A3", LEGACY_TP, {"tp_world_size": 1, "tp_rank_id": 1}, True),  # NoTp mode only supports 0
    ("A3", LEGACY_TP, {"tp_world_size": 0, "tp_rank_id": 0}, False),
    ("A3", "latest", {"tp_world_size": 1}, False),
    ("A3", "latest", {"tp_world_size": 2}, True),
    ("A3", "latest", {"tp_world_size": 0}, False),  # just inside [0, 1]
    ("A3", "latest", {"tp_world_size": -1}, True),  # just outside
    ("A3", "latest", {"tp_world_size": 1, "tp_rank_id": 0}, False),
    ("A3", "latest", {"tp_world_size": 1, "tp_rank_id": 1}, True),  # NoTp mode: only 0
    ("A3", "latest", {"tp_world_size": 0, "tp_rank_id": -1}, True),
    ("A2", "latest", {"tp_world_size": 1, "tp_rank_id": 1}, False),
    ("A2", "latest", {"tp_world_size": 1}, False),
    ("A2", "latest", {"tp_world_size": 2}, True),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(TP_ROWS))
def test_tp_world_size(product, ruleset, overrides, fires):
    out = assert_rule("MC111", product, ruleset, overrides, fires)
    if fires:
        assert out.one("MC111").severity == "error"


@pytest.mark.parametrize("ruleset", LEGACY_TP)
def test_a2_tp_before_latest_is_ignored_with_a_warning(ruleset):
    d = lint_product("A2", ruleset, tp_world_size=2).one("MC111")
    assert d.severity == "warning" and "ignores" in d.message


# ---- MC112 comm_quant_mode (combine) ----------------------------------------------------------------------
# A3 {0, 2}; 8.5-9.1 (R85 CV2T L254-256, inside the TP block R90/R91 keep): tp > 1 forces 0.
# A2: flat 0 only, hierarchy {0, 2} (CV2A22[M] L285-293).
CQM_ROWS = [
    ("A3", ALL, {"comm_quant_mode": 0}, False),
    ("A3", ALL, {"comm_quant_mode": 2}, False),
    ("A3", ALL, {"comm_quant_mode": 1}, True),
    ("A3", ALL, {"comm_quant_mode": 3}, True),
    ("A3", LEGACY_TP, {"tp_world_size": 2, "moe_expert_num": 32, "comm_quant_mode": 2}, True),
    ("A3", LEGACY_TP, {"tp_world_size": 2, "moe_expert_num": 32, "comm_quant_mode": 0}, False),
    ("A2", ALL, {"comm_quant_mode": 0}, False),
    ("A2", ALL, {"comm_quant_mode": 2}, True),
    ("A2", ALL, {**A2_HIER, "comm_quant_mode": 2}, False),
    ("A2", ALL, {**A2_HIER, "comm_quant_mode": 1}, True),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(CQM_ROWS))
def test_comm_quant_mode(product, ruleset, overrides, fires):
    assert_rule("MC112", product, ruleset, overrides, fires)


# ---- MC113 x dtype: INT32 x only on A2 latest, with 1-D scales, quant 0, flat (b042695) -------------------
XDT_ROWS = [
    ("A3", ALL, {"x_dtype": "int32", "scales": True}, True),
    ("A3", ALL, {"x_dtype": "fp16"}, False),
    ("A2", ("8.5", "9.0", "9.1"), {"x_dtype": "int32", "scales": True}, True),
    ("A2", "latest", {"x_dtype": "int32", "scales": True}, False),
    ("A2", "latest", {"x_dtype": "int32"}, True),  # needs scales
    ("A2", "latest", {"x_dtype": "int32", "scales": True, "quant_mode": 2}, True),
    ("A2", "latest", {"x_dtype": "int32", "scales": True, **A2_HIER}, True),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(XDT_ROWS))
def test_x_dtype(product, ruleset, overrides, fires):
    assert_rule("MC113", product, ruleset, overrides, fires)


# ---- MC114 tp = 2 needs one expert per rank and no elastic_info (R85 L674-678; kept until 9.1) ------------
TPL_ROWS = [
    ("A3", LEGACY_TP, {"tp_world_size": 2, "moe_expert_num": 32}, False),  # 32 / 32 = 1 expert per rank
    ("A3", LEGACY_TP, {"tp_world_size": 2, "moe_expert_num": 64}, True),  # 2 experts per rank
    ("A3", LEGACY_TP, {"tp_world_size": 2, "moe_expert_num": 32, "elastic_info": True}, True),
    ("A3", LEGACY_TP, {"tp_world_size": 1, "moe_expert_num": 64}, False),
    ("A3", "latest", {"tp_world_size": 2, "moe_expert_num": 64}, False),  # TP gone: MC111 instead
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(TPL_ROWS))
def test_tp_local_experts(product, ruleset, overrides, fires):
    assert_rule("MC114", product, ruleset, overrides, fires)
