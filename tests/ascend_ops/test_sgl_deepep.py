"""ops sgl_deepep_normal / sgl_deepep_low_latency (MC890-MC899): sgl-kernel-npu csrc/deepep @f425bdf.

Each limit just inside and just outside, per tiling (A3 build; A2 build single server / across servers), and the
buffer formulas against hand-computed figures.
"""
from __future__ import annotations

import pytest

from lintkit import run_lint
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.ops.sgl_deepep import formulas as sx

MiB = 1 << 20
DSV3 = {"h": 7168, "k": 8, "num_experts": 256}
N3 = {"product": "A3", "op": "sgl_deepep_normal", "bs": 4096, "ep_world_size": 16, **DSV3,
      "env": {"HCCL_BUFFSIZE": 4096}}
N2 = dict(N3, product="A2", ep_world_size=8, bs=2048)  # A2 build, one server: CamMoeDispatchNormal (ops2)
N2X = dict(N3, product="A2", env={"HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0})  # ep 16: DispatchNormalA2
L3 = {"product": "A3", "op": "sgl_deepep_low_latency", "num_max_dispatch_tokens_per_rank": 128, "ep_world_size": 16,
      **DSV3, "env": {"HCCL_BUFFSIZE": 1024}}  # needs 956 MB (the combine tiling)
L2S = dict(L3, product="A2", ep_world_size=8, env={"HCCL_BUFFSIZE": 4096})  # A2 single server
L2M = dict(L3, product="A2", env={"HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0})  # A2, ep 16
BASES = {"N3": N3, "N2": N2, "N2X": N2X, "L3": L3, "L2S": L2S, "L2M": L2M}
BIG = {"HCCL_BUFFSIZE": 16384}


def lint(base, **overrides):
    return run_lint(BASES[base], **overrides)


@pytest.mark.parametrize("base", BASES)
def test_bases_are_clean(base):
    out = lint(base)
    assert out.diagnostics == [], out


ROWS = {
    "MC890": [("N3", {"ep_world_size": 2}, False), ("N3", {"ep_world_size": 384, "num_experts": 384}, False),
              ("N3", {"ep_world_size": 385, "num_experts": 385}, True), ("N3", {"ep_world_size": 1}, True),
              ("N2X", {"ep_world_size": 256, "num_experts": 512}, False),
              ("N2X", {"ep_world_size": 24, "num_experts": 264}, False),
              ("N2X", {"ep_world_size": 20, "num_experts": 260}, True),  # not a multiple of 8
              ("N2X", {"ep_world_size": 264, "num_experts": 264}, True),
              ("L3", {"ep_world_size": 768, "num_experts": 768, "env": BIG}, False),
              ("L3", {"ep_world_size": 769, "num_experts": 769, "env": BIG}, True),
              ("L2M", {"ep_world_size": 256, "num_experts": 512}, False),
              ("L2M", {"ep_world_size": 12, "num_experts": 240}, True),
              ("L2S", {"ep_world_size": 2}, False), ("L2S", {"ep_world_size": 1}, True)],
    "MC891": [("N3", {"num_experts": 1024}, False), ("N3", {"num_experts": 1040}, True),
              ("N3", {"num_experts": 250}, True), ("N2", {"num_experts": 512}, False),
              ("N2", {"num_experts": 520}, True), ("N2X", {"num_experts": 520}, True),
              ("L3", {"num_experts": 1024, "env": BIG}, False), ("L3", {"num_experts": 1040, "env": BIG}, True),
              ("L3", {"num_experts": 240, "env": {"HCCL_BUFFSIZE": 1024, "MOE_SHARED_EXPERT_RANK_NUM": 1}}, False),
              ("L3", {"env": {"HCCL_BUFFSIZE": 1024, "MOE_SHARED_EXPERT_RANK_NUM": 1}}, True)],  # 256 % 15
    "MC892": [("N3", {"h": 1024}, False), ("N3", {"h": 1023}, True), ("N3", {"h": 8192}, False),
              ("N3", {"h": 8193}, True), ("N2", {"h": 7168}, False), ("N2", {"h": 7200}, True),
              ("N2X", {"h": 7136}, False), ("N2X", {"h": 7144}, True), ("L2M", {"h": 7144}, True),
              ("L3", {"h": 1024}, False), ("L3", {"h": 1023}, True), ("L3", {"h": 8193, "env": BIG}, True)],
    "MC893": [("N3", {"k": 16}, False), ("N3", {"k": 17}, True), ("N3", {"k": 0}, True),
              ("N3", {"k": 16, "num_experts": 16}, False), ("N3", {"k": 9, "num_experts": 8, "ep_world_size": 8}, True),
              ("N2X", {"k": 2}, False), ("N2X", {"k": 1}, True),
              ("L3", {"k": 16, "env": BIG}, False), ("L3", {"k": 17, "env": BIG}, True)],
    "MC894": [("N3", {"bs": 8192, "env": {"HCCL_BUFFSIZE": 4096}}, False), ("N3", {"bs": 8193}, True),
              ("N3", {"bs": 16384, "env": {"HCCL_BUFFSIZE": 8192, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 2,
                                          "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 8192}}, False),
              ("N3", {"bs": 16385, "env": {"HCCL_BUFFSIZE": 8192, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 2,
                                          "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 8192}}, True),
              ("N2", {"bs": 65536, "env": {"HCCL_BUFFSIZE": 4096, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 16,
                                          "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 8192}}, False),
              ("N2", {"bs": 65537, "env": {"HCCL_BUFFSIZE": 4096, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 16,
                                          "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 8192}}, True),
              ("N2X", {"bs": 4096}, False), ("N2X", {"bs": 4097}, True),
              ("L3", {"bs": 128}, False), ("L3", {"bs": 129}, True),
              ("L3", {"num_max_dispatch_tokens_per_rank": 512, "env": BIG}, False),
              ("L3", {"num_max_dispatch_tokens_per_rank": 513, "env": BIG}, True),
              ("L3", {"num_max_dispatch_tokens_per_rank": 0}, True)],
    "MC895": [("N3", {"quant_mode": "int8"}, False), ("N3", {"quant_mode": "mx_fp8_e4m3"}, True),
              ("N3", {"quant_mode": "pertoken_fp8_e4m3"}, True), ("L3", {"quant_mode": "none"}, False),
              ("L3", {"quant_mode": "mx_fp4_e2m1"}, True), ("N2X", {"quant_mode": "bf16"}, False),
              ("N2X", {"quant_mode": "int8"}, True)],
    "MC896": [("L2S", {"kernel_build": "deepep2"}, False), ("L2S", {"kernel_build": "deepep"}, True),
              ("L3", {"comm_alg": "ccu"}, False), ("L3", {"comm_alg": "fullmesh_v2"}, False),
              ("L3", {"comm_alg": "hierarchy"}, True), ("L3", {"kernel_build": "deepep2"}, True),
              ("L2M", {"comm_alg": "fullmesh_v1"}, False),  # the layered env overrides commAlg (ops2 L1215-1222)
              ("L2M", {"comm_alg": "fullmesh_v1", "env": {}}, True)],
    "MC897": [("N3", {"env": {"HCCL_BUFFSIZE": 4096, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 2}}, True),
              ("N3", {"env": {"HCCL_BUFFSIZE": 4096, "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 512}}, True),
              ("N3", {"env": {"HCCL_BUFFSIZE": 4096, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 256,
                              "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 512}}, False),  # 131072
              ("N3", {"env": {"HCCL_BUFFSIZE": 4096, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 257,
                              "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 32}}, True),
              ("N3", {"env": {"HCCL_BUFFSIZE": 4096, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 1,
                              "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 31}}, True),
              ("N3", {"env": {"HCCL_BUFFSIZE": 4096, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 1,
                              "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 8193}}, True),
              ("N3", {"env": {"HCCL_BUFFSIZE": 8192, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 16,
                              "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 8192}}, False),
              ("N3", {"env": {"HCCL_BUFFSIZE": 8192, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 17,
                              "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 8192}}, True),  # 139264 > 131072
              ("N3", {"env": {"HCCL_BUFFSIZE": 4096, "HCCL_OP_EXPANSION_MODE": "AIV"}}, False),
              ("N2", {"env": {"HCCL_BUFFSIZE": 4096, "HCCL_OP_EXPANSION_MODE": "AIV"}}, True),
              ("N2X", {"env": {}}, True)],  # A2 across servers without the hierarchical env pair
}
CASES = [pytest.param(code, base, ov, fires, id=f"{code}-{base}-{'-'.join(f'{k}={v}' for k, v in ov.items())}")
         for code, rows in ROWS.items() for base, ov, fires in rows]


@pytest.mark.parametrize("code, base, overrides, fires", CASES)
def test_limit(code, base, overrides, fires):
    out = lint(base, **overrides)
    assert bool(out.of(code)) == fires, out
    if fires:
        assert all(d.line > 0 for d in out.of(code))


def test_comm_alg_message_quotes_the_fork_and_the_issue():
    msg = lint("L2S", kernel_build="deepep").one("MC896").message
    assert "but got commAlg = fullmesh." in msg and "#238/#239" in msg and "deepep2" in msg


def test_a5_quant_message_is_the_upstream_text():
    msg = lint("N3", quant_mode="mx_fp8_e4m3").one("MC895").message
    assert "mx_fp8_e4m3 is not supported on this device, please use int8 or bf16 instead." in msg


# ---- buffers -------------------------------------------------------------------------------------------------

def test_normal_token_sizes_dsv3():
    # tokDispatch = Align512(Align32(2 * 7168) + 44) = Align512(14336 + 44 = 14380) = 14848; tokCombine = Align512(14336)
    assert fx.a3_dispatch_token_bytes(7168, False) == 14848
    assert sx.normal_combine_token_bytes(7168, 1) == 14336
    assert sx.normal_combine_token_bytes(7168, 2) == 28672  # round > 1: combine double buffer


@pytest.mark.parametrize("per_round, mb", [(8192, 3860), (4096, 2036), (2048, 1124)])
def test_normal_a3_window_worked_numbers(per_round, mb):
    # frameworks.md: (per_round * 8 * (14848 + 14336) + 4 MiB + 102 MiB) * 2;
    # 8192 * 8 * 29184 = 1,912,602,624 B = 1824 MiB -> (1824 + 106) * 2 = 3860; 4096 -> 912 -> 2036; 2048 -> 456 -> 1124
    need = sx.normal_window_bytes("A3", 7168, 8, sx.normal_max_bs(per_round, 131072), 1)
    assert need == mb * MiB and fx.ceil_mb(need) == mb


def test_normal_a2_window():
    # A2 (ops2): (2048 * 8 * 29184 + 8 MiB + 404 MiB) * 2 + 8 MiB = (456 + 412) * 2 + 8 = 1744 MiB
    assert sx.normal_window_bytes("A2", 7168, 8, 2048, 1) == 1744 * MiB


def test_normal_max_bs_is_min_of_per_round_and_tokens():
    # deep_ep.cpp L325: global_bs = min(per_round_tokens, real_max_bs) * ranks
    assert sx.normal_max_bs(8192, 3000) == 3000 and sx.normal_max_bs(2048, 3000) == 2048


def test_normal_buffer_exact_boundary():
    assert not lint("N3", env={"HCCL_BUFFSIZE": 2036}).of("MC898")
    out = lint("N3", env={"HCCL_BUFFSIZE": 2035})
    assert "set HCCL_BUFFSIZE >= 2036" in out.one("MC898").message
    assert out.buffers["ep"]["required_bytes"] == 2036 * MiB


def test_normal_buffer_uses_per_round_tokens_and_rounds():
    # ROUND 4 x PER_ROUND 2048, bs 8192: max_bs = 2048, combine doubled:
    # (2048 * 8 * (14848 + 28672) + 106 MiB) * 2 = (713,031,680 + 111,149,056) * 2 = 1,648,361,472 B = 1572 MiB
    out = lint("N3", bs=8192, env={"HCCL_BUFFSIZE": 1572, "DEEPEP_NORMAL_LONG_SEQ_ROUND": 4,
                                   "DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS": 2048})
    assert out.diagnostics == [], out
    assert out.buffers["ep"]["required_bytes"] == 1_648_361_472 == 1572 * MiB


def test_low_latency_int8_dispatch_half_but_combine_binds():
    # dispatch tiling, int8 (use_fp8 default): tokD = Align512(Align32(7168) + 44 = 7212) = 7680;
    # 2 * (128 * 7680 * 16 * 16 + 128 * 14336 * 8) = 2 * (251,658,240 + 14,680,064) = 532,676,608 B = 508 MiB.
    # combine tiling: 2-byte slots, tokD 14848: 2 * (128 * 14848 * 256 + 14,680,064) = 1,002,438,656 B = 956 MiB
    out = lint("L3", env={"HCCL_BUFFSIZE": 956})
    terms = out.buffers["ep"]["terms"]
    assert (terms["dispatch_window"], terms["combine_window"]) == (508 * MiB, 1_002_438_656)
    assert out.buffers["ep"]["required_bytes"] == 1_002_438_656 and not out.of("MC898")
    msg = lint("L3", env={"HCCL_BUFFSIZE": 955}).one("MC898").message
    assert "dispatch tiling 508 MB" in msg and "combine tiling 956 MB" in msg
    bf16 = lint("L3", use_fp8=False, env={"HCCL_BUFFSIZE": 956})
    assert bf16.buffers["ep"]["terms"]["dispatch_window"] == 1_002_438_656 and bf16.derived["quant_mode"] == "none"


def test_low_latency_fullmesh_v2_alignment():
    # fullmesh_v2, int8: 480Align512(7212) = ceil(7212 / 480) * 512 = 16 * 512 = 8192
    out = lint("L3", comm_alg="fullmesh_v2", env={"HCCL_BUFFSIZE": 4096})
    assert out.buffers["ep"]["terms"]["tok_dispatch"] == 8192
    # bf16: 480Align512(14380) = 30 * 512 = 15360 > 14848: the dispatch tiling binds,
    # 2 * (128 * 15360 * 256 + 14,680,064) = 2 * (503,316,480 + 14,680,064) = 1,035,993,088 B
    bf16 = lint("L3", comm_alg="fullmesh_v2", use_fp8=False, env={"HCCL_BUFFSIZE": 4096})
    assert bf16.buffers["ep"]["required_bytes"] == 1_035_993_088


def test_a2_single_server_counts_two_bytes_even_for_int8():
    # ops2 L940-964: 2 * (128 * 14848 * 8 * 32 + 128 * 14336 * 8) = 2 * (486,539,264 + 14,680,064) = 956 MiB
    out = lint("L2S")
    assert out.buffers["ep"]["required_bytes"] == 1_002_438_656 and out.derived["quant_mode"] == "int8"


def test_a2_across_servers_has_no_host_buffer_check():
    assert lint("N2X").buffers == {} and lint("L2M").buffers == {}


def test_ccu_window_is_not_modelled():
    assert lint("L3", comm_alg="ccu").buffers == {}


# ---- the buffer size the tiling reads -------------------------------------------------------------------------

@pytest.mark.parametrize("deepep, hccl, expected", [
    (None, None, (200, "")), (None, 1024, (1024, "HCCL_BUFFSIZE")), (2048, 1024, (2048, "DEEPEP_HCCL_BUFFSIZE")),
    (70000, None, (70000 - 65536, "DEEPEP_HCCL_BUFFSIZE")),  # stoi into uint16_t: 70000 mod 65536 = 4464
    (2**31, None, (200, "DEEPEP_HCCL_BUFFSIZE"))])  # stoi out_of_range: the default stays
def test_tiling_window_precedence_and_parse(deepep, hccl, expected):
    assert sx.tiling_window_mb(deepep, hccl) == expected


def test_deepep_buffsize_wins_in_the_tiling():
    out = lint("N3", env={"HCCL_BUFFSIZE": 1024, "DEEPEP_HCCL_BUFFSIZE": 2048})
    assert not out.of("MC898") and out.buffers["ep"]["configured_from"] == "DEEPEP_HCCL_BUFFSIZE"
    # ... but HCCL allocated 1024 MB for the group: the check passes, the window is too small
    assert "EP group's HCCL window is 1024 MB" in out.one("MC899").message


@pytest.mark.parametrize("overrides, fires", [
    ({"env": {"DEEPEP_HCCL_BUFFSIZE": 2048}}, True),  # HCCL default 200 MB window
    ({"env": {"DEEPEP_HCCL_BUFFSIZE": 2048}, "hccl_buffer_size": 2048}, False),  # SGLang's moe group option
    ({"env": {"DEEPEP_HCCL_BUFFSIZE": 2048, "HCCL_BUFFSIZE": 2036}}, False),
    ({"env": {"DEEPEP_HCCL_BUFFSIZE": 2048, "HCCL_BUFFSIZE": 2035}}, True),
    ({"env": {"HCCL_BUFFSIZE": 65535}}, False), ({"env": {"HCCL_BUFFSIZE": 65536}}, True)])
def test_buffsize_source(overrides, fires):
    assert bool(lint("N3", **overrides).of("MC899")) == fires


def test_wrapped_value_is_what_the_tiling_compares():
    out = lint("N3", env={"HCCL_BUFFSIZE": 67572})  # 67572 - 65536 = 2036: passes the tiling check
    assert out.buffers["ep"]["configured_mb"] == 2036 and not out.of("MC898") and out.of("MC899")


def test_defaults_derived():
    d = lint("L3", env={"HCCL_BUFFSIZE": 1024, "MOE_ENABLE_CCU": 1}).derived
    assert d["comm_alg"] == "ccu" and d["global_bs"] == 128 * 16
    assert lint("L2S").derived["comm_alg"] == "fullmesh" and lint("L2S").derived["kernel_build"] == "deepep2"
    assert lint("N3", env={"HCCL_BUFFSIZE": 4096, "DEEP_NORMAL_MODE_USE_INT8_QUANT": 1}).derived["quant_mode"] == "int8"


def test_unknown_env_and_wrong_types_are_reported_not_raised():
    out = lint("N3", env={"HCCL_BUFFSIZE": 4096, "DEEPEP_NORMAL_LONG_SEQ_ROUNDS": 2})
    assert out.of("MC013")
    assert lint("N3", bs="many").of("MC004") and lint("L3", num_max_dispatch_tokens_per_rank=None).of("MC005")
