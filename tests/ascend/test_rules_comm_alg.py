"""MC3xx comm_alg: accepted names per product and release, algorithm resolution, fullmesh_v2 and hierarchy
restrictions (ascend-mc2-rules.md §2.1 comm_alg/fm2_*/hier_*, §2.2 alg_select, §2.4 UB, §9)."""
from __future__ import annotations

import pytest

from lintkit import A2_HIER, A3_HIER, ALL, WITH_A3_HIERARCHY, assert_rule, lint_product, rule_cases

# ---- MC301 accepted names ------------------------------------------------------------------------------------
ALG_ROWS = [
    ("A3", ALL, {"comm_alg": ""}, False),
    ("A3", ALL, {"comm_alg": "fullmesh_v1"}, False),
    ("A3", ALL, {"comm_alg": "fullmesh_v2"}, False),
    ("A3", "8.5", {**A3_HIER}, True),  # hierarchy arrived in 9.0 (9cc29ae)
    ("A3", WITH_A3_HIERARCHY, {**A3_HIER}, False),
    ("A3", ALL, {"comm_alg": "fullmesh"}, True),  # the A2 name
    ("A3", ALL, {"comm_alg": "0"}, True),
    ("A2", ALL, {"comm_alg": "fullmesh"}, False),
    ("A2", ALL, {"comm_alg": ""}, False),
    ("A2", ALL, {"comm_alg": "0"}, False),
    ("A2", ALL, {**A2_HIER}, False),
    ("A2", ALL, {"comm_alg": "fullmesh_v1"}, True),
    ("A2", ALL, {"comm_alg": "fullmesh_v2"}, True),
    # 9.0+: ep <= 8 always runs fullmesh and comm_alg is not even parsed (a558b78)
    ("A2", ("9.0", "9.1", "latest"), {"ep_world_size": 8, "moe_expert_num": 64, "comm_alg": "fullmesh_v1"}, False),
    ("A2", "8.5", {"ep_world_size": 8, "moe_expert_num": 64, "comm_alg": "fullmesh_v1"}, True),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(ALG_ROWS))
def test_comm_alg_accepted(product, ruleset, overrides, fires):
    assert_rule("MC301", product, ruleset, overrides, fires)


def test_comm_alg_hints():
    assert "9.0 or newer" in lint_product("A3", "8.5", **A3_HIER).one("MC301").message
    assert "A2 name" in lint_product("A3", "9.0", comm_alg="fullmesh").one("MC301").message
    assert "A3 names" in lint_product("A2", "9.0", comm_alg="fullmesh_v2").one("MC301").message


# ---- MC302 how A2 resolved an implicit comm_alg -----------------------------------------------------------------
HIER_ENV = {"HCCL_BUFFSIZE": 4096, "HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0}


@pytest.mark.parametrize("ruleset", ALL)
@pytest.mark.parametrize("env,alg", [
    (HIER_ENV, "hierarchy"),
    ({"HCCL_BUFFSIZE": 4096, "HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 1}, "fullmesh"),
    ({"HCCL_BUFFSIZE": 4096, "HCCL_INTRA_PCIE_ENABLE": 0, "HCCL_INTRA_ROCE_ENABLE": 0}, "fullmesh"),
    ({"HCCL_BUFFSIZE": 4096}, "fullmesh"),
])
def test_a2_empty_comm_alg_follows_env(ruleset, env, alg):
    out = lint_product("A2", ruleset, comm_alg="", env=env, expert_scales=True)
    d = out.one("MC302")
    assert d.severity == "info" and f"resolved comm_alg: {alg}" in d.message
    assert out.derived["comm_alg"] == alg


@pytest.mark.parametrize("ruleset,alg", [("8.5", "hierarchy"), ("9.0", "fullmesh"), ("latest", "fullmesh")])
def test_a2_small_ep_shortcut(ruleset, alg):
    # ep 8 with the hierarchy env: 8.5 follows the env; 9.0+ always runs fullmesh for ep <= 8
    out = lint_product("A2", ruleset, comm_alg="", env=HIER_ENV, ep_world_size=8, moe_expert_num=64,
                       expert_scales=True)
    assert out.derived["comm_alg"] == alg
    if ruleset != "8.5":
        assert "ep_world_size=8 <= 8" in out.one("MC302").message


def test_explicit_a2_comm_alg_is_silent():
    assert "MC302" not in lint_product("A2", "9.0", comm_alg="fullmesh").codes


# ---- MC303 / MC304 fullmesh_v2 bs <= 256, k <= 12 (A3, every release; 6c7079c) -------------------------------
FM2 = {"comm_alg": "fullmesh_v2"}
FM2_ROWS = [
    ("MC303", {**FM2, "bs": 256}, False),
    ("MC303", {**FM2, "bs": 257}, True),
    ("MC303", {"comm_alg": "fullmesh_v1", "bs": 257}, False),
    ("MC304", {**FM2, "k": 12}, False),
    ("MC304", {**FM2, "k": 13}, True),
    ("MC304", {"comm_alg": "", "k": 13}, False),
]


@pytest.mark.parametrize("ruleset", ALL)
@pytest.mark.parametrize("code,overrides,fires", FM2_ROWS)
def test_fullmesh_v2_limits(ruleset, code, overrides, fires):
    assert_rule(code, "A3", ruleset, overrides, fires)


# ---- MC305 fullmesh_v2 features: 8.5 refuses elastic, special experts, 2-D mask, variable BS (lifted in 9.0 by
# f11e4d6); tp = 2 refused 8.5-9.1 -----------------------------------------------------------------------------------
FEATURES = {
    "elastic": {"elastic_info": True},
    "special": {"zero_expert_num": 1},
    "mask2d": {"x_active_mask": "2d"},
    "variable_bs": {"global_bs": 128 * 32 + 32},
    "tp2": {"tp_world_size": 2, "moe_expert_num": 32},
}
FEATURE_ROWS = [
    ("A3", "8.5", {**FM2, **FEATURES[f]}, True) for f in FEATURES
] + [
    ("A3", ("9.0", "9.1", "latest"), {**FM2, **FEATURES[f]}, False) for f in ("elastic", "special", "mask2d", "variable_bs")
] + [
    ("A3", ("9.0", "9.1"), {**FM2, **FEATURES["tp2"]}, True),
    ("A3", "latest", {**FM2, **FEATURES["tp2"]}, False),  # TP itself is refused (MC111)
    ("A3", "8.5", {**FM2, "x_active_mask": "1d"}, False),  # 468e17e: 1-D mask accepted
    ("A3", "8.5", {"comm_alg": "fullmesh_v1", "elastic_info": True}, False),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(FEATURE_ROWS))
def test_fullmesh_v2_features(product, ruleset, overrides, fires):
    assert_rule("MC305", product, ruleset, overrides, fires)


# ---- MC306 / MC307 / MC308 hierarchy (A3 9.0+, A2) -----------------------------------------------------------------
HIER_ROWS = [
    ("MC306", {"elastic_info": True}, True),
    ("MC306", {"zero_expert_num": 1}, True),
    ("MC306", {"copy_expert_num": 1}, True),
    ("MC306", {"const_expert_num": 1}, True),
    ("MC306", {"x_active_mask": "2d"}, True),
    ("MC306", {"x_active_mask": "1d"}, False),
    ("MC306", {"performance_info": True}, True),
    ("MC306", {"shared_expert_num": 1, "shared_expert_rank_num": 2, "moe_expert_num": 240}, True),
    ("MC306", {}, False),
    ("MC307", {"expert_scales": False}, True),
    ("MC307", {}, False),
    ("MC308", {"global_bs": 129 * 32}, True),  # max_bs 129 != bs 128
    ("MC308", {"global_bs": 128 * 32}, False),
]


@pytest.mark.parametrize("ruleset", WITH_A3_HIERARCHY)
@pytest.mark.parametrize("code,overrides,fires", HIER_ROWS)
def test_a3_hierarchy_restrictions(ruleset, code, overrides, fires):
    assert_rule(code, "A3", ruleset, {**A3_HIER, **overrides}, fires)


@pytest.mark.parametrize("ruleset,tp,fires", [("9.0", 1, False), ("9.0", 2, True), ("9.1", 2, True), ("latest", 1, False)])
def test_a3_hierarchy_tp(ruleset, tp, fires):
    out = lint_product("A3", ruleset, **A3_HIER, tp_world_size=tp, moe_expert_num=32)
    assert any("tp_world_size" in d.message for d in out.of("MC306")) is fires


@pytest.mark.parametrize("ruleset", ALL)
def test_a2_hierarchy(ruleset):
    assert "MC307" in lint_product("A2", ruleset, comm_alg="hierarchy").codes
    assert "MC307" not in lint_product("A2", ruleset, **A2_HIER).codes
    d = lint_product("A2", ruleset, **A2_HIER, zero_expert_num=1).one("MC306")
    assert d.severity == "warning"  # only the docs say so
    assert "MC308" not in lint_product("A2", ruleset, **A2_HIER, global_bs=65 * 16).codes  # A3 rule


def test_a3_fullmesh_v1_has_no_hierarchy_restrictions():
    out = lint_product("A3", "latest", comm_alg="fullmesh_v1", elastic_info=True, zero_expert_num=1)
    assert not out.codes & {"MC306", "MC307", "MC308"}


# ---- MC310 fullmesh_v2 UB estimate (9.0+, §2.4) ------------------------------------------------------------------
# The estimate only exceeds 192 KB at the edge: 4 shared experts on 4 ranks, ep 516 (512 MoE ranks, 2 experts each),
# 1024 experts, a 2-D mask, zero experts, elastic_info, k 12, bs 256. The formula's figures are in
# test_formulas_ascend.py; at h = 8144 it is 196256 B, at h = 8145 197408 B; at h = 8192 bs 245 gives 196096 B,
# bs 246 gives 196672 B (limit 196608).
UB_EDGE = dict(comm_alg="fullmesh_v2", bs=256, k=12, ep_world_size=516, moe_expert_num=1024, shared_expert_num=4,
               shared_expert_rank_num=4, x_active_mask="2d", zero_expert_num=1, elastic_info=True)
UB_ROWS = [
    ("A3", ("9.0", "9.1", "latest"), {**UB_EDGE, "h": 8144}, False),
    ("A3", ("9.0", "9.1", "latest"), {**UB_EDGE, "h": 8145}, True),
    ("A3", ("9.0", "9.1", "latest"), {**UB_EDGE, "h": 8192, "bs": 245}, False),
    ("A3", ("9.0", "9.1", "latest"), {**UB_EDGE, "h": 8192, "bs": 246}, True),
    ("A3", "8.5", {**UB_EDGE, "h": 8192}, False),  # no UB check in 8.5
    ("A3", "latest", {**UB_EDGE, "comm_alg": "fullmesh_v1", "h": 8192}, False),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(UB_ROWS))
def test_fullmesh_v2_ub(product, ruleset, overrides, fires):
    out = assert_rule("MC310", product, ruleset, overrides, fires)
    if fires and overrides["h"] == 8145:
        assert "197408 bytes exceeds the 196608-byte UB" in out.one("MC310").message


def test_dsv3_fullmesh_v2_fits_ub():
    out = lint_product("A3", "9.0", comm_alg="fullmesh_v2", quant_mode=2, x_active_mask="2d")
    assert "MC310" not in out.codes
