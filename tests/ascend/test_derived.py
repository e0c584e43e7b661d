"""Derived values in the report (`derived`): ascend-mc2-rules.md §1 definitions and §2.2 alg_select."""
from __future__ import annotations

import pytest

from lintkit import lint_product


def test_a3_dsv3_ep32():
    d = lint_product("A3", "9.0").derived
    # local 256 / 32 = 8; global_bs 0 -> 128 * 32 = 4096; max_bs 4096 / 32 = 128; A = 4096 * min(8, 8) = 32768
    assert d == {"comm_alg": "fullmesh_v1", "local_expert_num": 8, "max_bs": 128, "global_bs": 4096,
                 "A": 32768, "shared_expert_num": 0}


def test_a3_variable_bs_and_few_local_experts():
    # global_bs 8192 on ep 32: max_bs 256; moe 64: 2 per rank; A = 8192 * min(2, 8) = 16384
    d = lint_product("A3", "9.0", global_bs=8192, moe_expert_num=64).derived
    assert (d["global_bs"], d["max_bs"], d["local_expert_num"], d["A"]) == (8192, 256, 2, 16384)


def test_a3_shared_expert_rank():
    # ep 32, 2 shared experts on 4 ranks: 28 MoE ranks, 224 / 28 = 8 local;
    # A_shared_rank = max_bs * ceil(32 / (4 / 2)) = 128 * 16 = 2048; A (MoE rank) = 4096 * 8 = 32768
    d = lint_product("A3", "9.0", shared_expert_num=2, shared_expert_rank_num=4, moe_expert_num=224).derived
    assert (d["local_expert_num"], d["A"], d["A_shared_rank"], d["shared_expert_num"]) == (8, 32768, 2048, 2)


def test_default_shared_pair_is_normalised():
    d = lint_product("A3", "9.0", shared_expert_num=1, shared_expert_rank_num=0).derived
    assert d["shared_expert_num"] == 0 and "A_shared_rank" not in d


def test_special_expert_id_ranges():
    # IDs after the 256 MoE experts: zero [256, 258), copy [258, 259), const [259, 262)
    d = lint_product("A3", "latest", zero_expert_num=2, copy_expert_num=1, const_expert_num=3).derived
    assert d["zero_expert_ids"] == [256, 258] and d["copy_expert_ids"] == [258, 259]
    assert d["const_expert_ids"] == [259, 262]
    d = lint_product("A3", "latest", copy_expert_num=4).derived
    assert d["copy_expert_ids"] == [256, 260] and "zero_expert_ids" not in d


@pytest.mark.parametrize("comm_alg,expected", [("", "fullmesh_v1"), ("fullmesh_v1", "fullmesh_v1"),
                                               ("fullmesh_v2", "fullmesh_v2"), ("hierarchy", "hierarchy"),
                                               ("bogus", None)])
def test_a3_resolved_comm_alg(comm_alg, expected):
    assert lint_product("A3", "9.0", comm_alg=comm_alg, expert_scales=True).derived["comm_alg"] == expected


def test_a3_85_hierarchy_is_not_resolved():
    assert lint_product("A3", "8.5", comm_alg="hierarchy").derived["comm_alg"] is None


@pytest.mark.parametrize("ruleset,ep,env,expected", [
    ("9.0", 16, {"HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0}, "hierarchy"),
    ("9.0", 16, {"HCCL_INTRA_PCIE_ENABLE": 1}, "fullmesh"),
    ("9.0", 16, {}, "fullmesh"),
    ("9.0", 8, {"HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0}, "fullmesh"),  # ep <= 8 shortcut
    ("8.5", 8, {"HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0}, "hierarchy"),  # no shortcut in 8.5
    ("latest", 16, {"HCCL_INTRA_PCIE_ENABLE": "1", "HCCL_INTRA_ROCE_ENABLE": "0"}, "hierarchy"),  # env strings
])
def test_a2_resolved_comm_alg(ruleset, ep, env, expected):
    out = lint_product("A2", ruleset, comm_alg="", ep_world_size=ep, moe_expert_num=8 * ep, expert_scales=True,
                       env={"HCCL_BUFFSIZE": 4096, **env})
    assert out.derived["comm_alg"] == expected


def test_a2_derived_has_no_shared_fields():
    d = lint_product("A2", "latest", shared_expert_rank_num=4).derived
    # A2 spreads the 128 experts over all 16 ranks: 8 local; A = 64 * 16 * min(8, 8) = 8192
    assert (d["local_expert_num"], d["A"]) == (8, 8192)
    assert "shared_expert_num" not in d and "A_shared_rank" not in d


def test_derived_survives_impossible_layout():
    # shared ranks == ep: no MoE rank, nothing to divide by
    d = lint_product("A3", "latest", shared_expert_num=1, shared_expert_rank_num=32).derived
    assert d["local_expert_num"] is None and d["A"] is None
