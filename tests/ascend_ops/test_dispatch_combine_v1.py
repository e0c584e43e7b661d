"""op dispatch_combine_v1 (MC82x): spec §5 (A3 constants of R85, unchanged in [M]; A2 v1 rules)."""
from __future__ import annotations

import pytest

from lintkit import ALL, rule_cases, run_lint

A3 = {"product": "A3", "op": "dispatch_combine_v1", "bs": 64, "h": 7168, "k": 8, "ep_world_size": 32,
      "moe_expert_num": 256, "env": {"HCCL_BUFFSIZE": 4096}}
A2 = {"product": "A2", "op": "dispatch_combine_v1", "bs": 64, "h": 4096, "k": 8, "ep_world_size": 16,
      "moe_expert_num": 128, "env": {"HCCL_BUFFSIZE": 4096}}


def lint(product, ruleset, **overrides):
    return run_lint(A3 if product == "A3" else A2, cann_version=ruleset, **overrides)


def check(code, product, ruleset, overrides, fires):
    out = lint(product, ruleset, **overrides)
    assert bool(out.of(code)) == fires, out
    return out


def test_bases_are_valid():
    for rs in ALL:
        for p in ("A3", "A2"):
            assert lint(p, rs).result.valid, lint(p, rs)


ROWS = {
    "MC820": [("A3", ALL, {"ep_world_size": ep, "moe_expert_num": 288 if ep in (144, 288) else 256}, False)
              for ep in (8, 16, 32, 64, 128, 144, 256, 288)]
             + [("A3", ALL, {"ep_world_size": ep}, True) for ep in (4, 24, 48, 96, 512)]
             + [("A2", ALL, {"ep_world_size": 256, "moe_expert_num": 512, "bs": 8}, False),
                ("A2", ALL, {"ep_world_size": 264, "moe_expert_num": 264}, True),
                ("A2", ALL, {"ep_world_size": 8, "moe_expert_num": 128, "env": {"HCCL_BUFFSIZE": 4096,
                             "HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0}}, False),
                ("A2", ALL, {"ep_world_size": 12, "moe_expert_num": 120}, True)],
    "MC821": [("A3", ALL, {"h": 7168}, False), ("A3", ALL, {"h": 7136}, True), ("A3", ALL, {"h": 7200}, True),
              ("A2", ALL, {"h": 7168}, False), ("A2", ALL, {"h": 7200}, True), ("A2", ALL, {"h": 4080}, True)],
    "MC822": [("A3", ALL, {"k": 8}, False), ("A3", ALL, {"k": 9}, True), ("A3", ALL, {"k": 0}, True),
              ("A2", ALL, {"k": 16}, False), ("A2", ALL, {"k": 17}, True),
              ("A2", ALL, {"k": 16, "moe_expert_num": 16, "ep_world_size": 16}, False),
              ("A2", ALL, {"k": 16, "moe_expert_num": 8, "ep_world_size": 8}, True)],
    "MC823": [("A3", ALL, {"shared_expert_num": 1}, False), ("A3", ALL, {"shared_expert_num": 0}, True),
              ("A3", ALL, {"shared_expert_num": 2, "shared_expert_rank_num": 2, "moe_expert_num": 240}, True),
              ("A3", ALL, {"shared_expert_rank_num": 2, "moe_expert_num": 240}, False),
              ("A3", ALL, {"shared_expert_rank_num": 3, "moe_expert_num": 232}, True),   # 32 % 3
              ("A3", ALL, {"shared_expert_rank_num": 32}, True)],
    "MC824": [("A3", ALL, {"moe_expert_num": 512, "env": {"HCCL_BUFFSIZE": 8192}}, False),
              ("A3", ALL, {"moe_expert_num": 544}, True),
              ("A3", ALL, {"moe_expert_num": 250}, True),
              ("A2", ALL, {"moe_expert_num": 384}, False),  # 24 per rank
              ("A2", ALL, {"moe_expert_num": 400}, True),   # 25 per rank, fullmesh
              ("A2", ALL, {"moe_expert_num": 400, "env": {"HCCL_INTRA_PCIE_ENABLE": 1,
                                                          "HCCL_INTRA_ROCE_ENABLE": 0}}, False),  # layered
              ("A2", ALL, {"moe_expert_num": 120}, True)],
    "MC825": [("A3", ALL, {"bs": 512, "env": {"HCCL_BUFFSIZE": 8192}}, False), ("A3", ALL, {"bs": 513}, True),
              ("A3", ALL, {"bs": 0}, True), ("A2", ALL, {"bs": 256}, False), ("A2", ALL, {"bs": 257}, True)],
    "MC826": [("A3", ALL, {"tp_world_size": 2, "tp_rank_id": 1}, False), ("A3", ALL, {"tp_world_size": 3}, True),
              ("A3", ALL, {"tp_world_size": 2, "tp_rank_id": 2}, True)],
    "MC827": [("A3", ALL, {"comm_quant_mode": 2}, False), ("A3", ALL, {"comm_quant_mode": 1}, True)],
}
CASES = [pytest.param(code, *p.values, id=f"{code}-{p.id}") for code, rows in ROWS.items() for p in rule_cases(rows)]


@pytest.mark.parametrize("code,product,ruleset,overrides,fires", CASES)
def test_v1_boundaries(code, product, ruleset, overrides, fires):
    check(code, product, ruleset, overrides, fires)


def test_v2_only_fields_are_unknown_in_v1():
    out = lint("A3", "latest", comm_alg="fullmesh_v2")
    assert "comm_alg" in out.one("MC003").message


def test_generic_rules_reused():
    assert lint("A3", "latest", quant_mode=1).of("MC107")
    assert lint("A3", "latest", ep_rank_id=32).of("MC102")
    assert lint("A3", "latest", expert_token_nums_type=2).of("MC108")


# ---- windows ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", ALL)
def test_a3_ep_window(ruleset):
    # ep 32, max_bs 64, h 7168, local 8: 32 * 64 * 7168 * 2 * 2 * 8 = 469762048 B = exactly 448 MB
    out = lint("A3", ruleset, env={"HCCL_BUFFSIZE": 448})
    assert out.buffers["ep"]["required_bytes"] == 469762048 and out.buffers["ep"]["required_mb"] == 448
    assert not out.of("MC828")
    small = lint("A3", ruleset, env={"HCCL_BUFFSIZE": 447}).one("MC828")
    assert small.severity == "error" and "448" in small.message


def test_a3_window_with_global_bs_and_shared_ranks():
    # global_bs 4096 -> max_bs 128; 2 shared ranks -> local 240 / 30 = 8: 32 * 128 * 7168 * 4 * 8 = 939524096
    out = lint("A3", "latest", global_bs=4096, shared_expert_rank_num=2, moe_expert_num=240)
    assert out.buffers["ep"]["required_bytes"] == 939524096
    assert out.derived["A_shared_rank"] == 4096 // 2 and out.derived["A"] == 4096 * 8
    assert out.derived["scales_dim0"] == 241 and out.derived["expand_idx_len"] == 64 * 8


@pytest.mark.parametrize("ruleset", ALL)
def test_a3_tp_window(ruleset):
    # tp 2, moe 32 -> local 1, A = 64 * 32 * min(1, 8) = 2048: 2048 * (2 * 7168 + 128) * 2 = 59244544 B (56.5 MB)
    out = lint("A3", ruleset, moe_expert_num=32, tp_world_size=2, tp_rank_id=0,
               hccl_buffer_size={"ep": 4096, "tp": 57})
    assert out.buffers["tp"]["required_bytes"] == 59244544 and not out.of("MC829")
    assert lint("A3", ruleset, moe_expert_num=32, tp_world_size=2, hccl_buffer_size={"ep": 4096, "tp": 56}).of("MC829")


LAYERED = {"env": {"HCCL_BUFFSIZE": 4096, "HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0}}


def test_a2_layered_window_warning_latest_only():
    # (128 + 16/8*2) * 64 * (2*4096 + 16*8) + 6 MB = 132 * 64 * 8320 + 6291456 = 70287360 + 6291456 = 76578816 B (74 MB)
    out = lint("A2", "latest", **LAYERED)
    assert out.buffers["ep"]["required_bytes"] == 76578816
    warn = lint("A2", "latest", env={**LAYERED["env"], "HCCL_BUFFSIZE": 73}).one("MC828")
    assert warn.severity == "warning"
    assert not lint("A2", "latest", env={**LAYERED["env"], "HCCL_BUFFSIZE": 74}).of("MC828")
    for rs in ("8.5", "9.0", "9.1"):
        assert lint("A2", rs, **LAYERED).buffers == {}


def test_a2_algorithm_only_from_environment():
    assert lint("A2", "latest", **LAYERED).derived["comm_alg"] == "hierarchy"
    flat = lint("A2", "latest")
    assert flat.derived["comm_alg"] == "fullmesh"
    assert "HCCL_INTRA_PCIE_ENABLE" in flat.one("MC302").message
