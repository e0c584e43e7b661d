"""Ascend buffer and shape formulas against hand-computed figures (ascend-mc2-rules.md §1, §2.3, §2.4, §2.6).

DeepSeek-V3 decode shapes throughout: h 7168, k 8, 256 routed experts. MB = 2**20 = 1048576.
"""
from __future__ import annotations

import pytest

from moecfg.backends.ascend.shared import formulas as fx

from lintkit import A2_BASE, A3_BASE, lint_product, run_lint

MB = 1 << 20


# ---- token slots ------------------------------------------------------------------------------------------
def test_token_slots_dsv3():
    # combine: Align512(2 * 7168) = Align512(14336) = 14336 (= 28 * 512)
    assert fx.a3_combine_token_bytes(7168) == 14336
    # dispatch: Align32(14336) + 44 = 14380 -> Align512: ceil(14380 / 512) = 29 -> 29 * 512 = 14848
    assert fx.a3_dispatch_token_bytes(7168, fullmesh_v2=False) == 14848
    # fullmesh_v2 "480Align512": ceil(14380 / 480) = 30 (480 * 29 = 13920 < 14380) -> 30 * 512 = 15360
    assert fx.a3_dispatch_token_bytes(7168, fullmesh_v2=True) == 15360


def test_token_slots_h4096():
    # Align32(8192) + 44 = 8236; Align512: ceil(8236 / 512) = 17 -> 8704; 480Align512: ceil(8236 / 480) = 18 -> 9216
    assert fx.a3_dispatch_token_bytes(4096, False) == 8704
    assert fx.a3_dispatch_token_bytes(4096, True) == 9216
    # odd h: Align32(2 * 7000 = 14000) = 14016 (438 * 32); + 44 = 14060 -> Align512 = 14336 (28 * 512)
    assert fx.a3_dispatch_token_bytes(7000, False) == 14336


def test_align480_512_edges():
    # 480 -> 1 block of 512; 481 -> 2 blocks = 1024; 0 -> 0
    assert (fx.align480_512(480), fx.align480_512(481), fx.align480_512(0)) == (512, 1024, 0)


# ---- A3 EP window, fullmesh_v1 ("" ) ----------------------------------------------------------------------------
# 2 * (max_bs * tok_dispatch * ep * local + max_bs * tok_combine * (k + shared_num)); with no shared experts
# ep * local = moe = 256, so for a fixed bs the figure does not depend on ep:
#   bs 128: dispatch 128 * 14848 * 256 = 486539264; combine 128 * 14336 * 8 = 14680064
#           2 * (486539264 + 14680064) = 1002438656 = 956 * 1048576 -> exactly 956 MB
@pytest.mark.parametrize("ep,local", [(16, 16), (32, 8), (64, 4)])
def test_a3_fullmesh_v1_dsv3_bs128(ep, local):
    need = fx.a3_ep_window_bytes(7168, 8, ep, local, 128, 0)
    assert need == 1002438656 and fx.ceil_mb(need) == 956
    out = lint_product("A3", "9.0", ep_world_size=ep)
    assert out.buffers["ep"]["required_bytes"] == 1002438656 and out.buffers["ep"]["required_mb"] == 956


@pytest.mark.parametrize("ep,bs,need,mb", [
    # ep 16, bs 64: 2 * (64 * 14848 * 256 + 64 * 14336 * 8) = 2 * (243269632 + 7340032) = 501219328 = 478 MB
    (16, 64, 501219328, 478),
    # ep 32, bs 96: 2 * (96 * 14848 * 256 + 96 * 14336 * 8) = 2 * (364904448 + 11010048) = 751828992 = 717 MB
    (32, 96, 751828992, 717),
    # ep 64, bs 3: 2 * (3 * 14848 * 256 + 3 * 14336 * 8) = 2 * (11403264 + 344064) = 23494656 = 22.4 -> 23 MB
    (64, 3, 23494656, 23),
])
def test_a3_fullmesh_v1_dsv3_other_bs(ep, bs, need, mb):
    out = lint_product("A3", "9.0", ep_world_size=ep, bs=bs)
    assert out.buffers["ep"]["required_bytes"] == need and out.buffers["ep"]["required_mb"] == mb


def test_a3_window_with_shared_experts():
    # ep 32, 2 shared ranks with 1 shared expert: 30 MoE ranks, 240 / 30 = 8 local experts, K + shared = 9
    # dispatch 128 * 14848 * 32 * 8 = 486539264; combine 128 * 14336 * 9 = 16515072
    # 2 * (486539264 + 16515072) = 1006108672 = 959.5 MB -> 960 MB
    out = lint_product("A3", "9.0", shared_expert_num=1, shared_expert_rank_num=2, moe_expert_num=240)
    assert out.buffers["ep"]["required_bytes"] == 1006108672 and out.buffers["ep"]["required_mb"] == 960


def test_a3_window_uses_max_bs_from_global_bs():
    # bs 64 but global_bs 4096 on ep 32: max_bs 128, so the bs-128 figure 1002438656 applies
    out = lint_product("A3", "9.0", bs=64, global_bs=4096)
    assert out.buffers["ep"]["required_bytes"] == 1002438656


def test_a3_fullmesh_v2_dsv3():
    # 2 * (128 * 15360 * 256 + 128 * 14336 * 8) = 2 * (503316480 + 14680064) = 1035993088 = 988 MB exactly
    assert fx.a3_ep_window_bytes(7168, 8, 32, 8, 128, 0, fullmesh_v2=True) == 1035993088
    out = lint_product("A3", "9.0", comm_alg="fullmesh_v2")
    assert out.buffers["ep"]["required_bytes"] == 1035993088 and out.buffers["ep"]["required_mb"] == 988


# ---- A3 hierarchy: moe * max_bs * (2H + ((3 * (K + 7)) / 8 * 8) * 4 + 64) + 404 MB ---------------------------------
@pytest.mark.parametrize("k,tok", [
    (8, 14560),  # (3 * 15) / 8 = 5 -> 40 -> 160 B; 14336 + 160 + 64 = 14560   (3 * Align8(8) * 4 would be 96)
    (6, 14528),  # (3 * 13) / 8 = 4 -> 32 -> 128 B; 14336 + 128 + 64 = 14528   (3 * Align8(6) * 4 would be 96)
    (1, 14496),  # (3 * 8) / 8 = 3 -> 24 -> 96 B;  14336 + 96 + 64 = 14496
])
def test_a3_hierarchy_token_c_order(k, tok):
    assert fx.a3_hierarchy_token_bytes(7168, k) == tok


def test_a3_hierarchy_dsv3():
    # 256 * 128 * 14560 = 477102080; + 404 * 1048576 = 423624704 -> 900726784 = 859 MB (14560 / 32 = 455; + 404)
    assert fx.a3_hierarchy_window_bytes(7168, 8, 256, 128) == 900726784
    out = lint_product("A3", "9.0", comm_alg="hierarchy", expert_scales=True)
    ep = out.buffers["ep"]
    assert (ep["required_bytes"], ep["required_mb"]) == (900726784, 859)
    # the torch_npu docs' formula: 256 * 128 * (14336 + 4 * 8 * 4) + 404 MB = 32768 * 14464 + 423624704
    #   = 473956352 + 423624704 = 897581056 (856 MB): the code needs 3 MB more
    assert fx.a3_doc_hierarchy_window_bytes(7168, 8, 256, 128, 2) == 897581056
    assert "897581056" in ep["note"]


def test_a3_hierarchy_k6():
    # 256 * 128 * 14528 = 476053504; + 423624704 = 899678208 = 858 MB
    assert fx.a3_hierarchy_window_bytes(7168, 6, 256, 128) == 899678208


# ---- A3 TP window (8.5-9.1, tp_world_size = 2): A * (tok_dispatch + tok_combine) * 2 ------------------------------------
def test_a3_tp_window():
    # moe 32 on ep 32: one expert per rank; A = global_bs * min(1, 8) = 4096
    # 4096 * (14848 + 14336) * 2 = 4096 * 29184 * 2 = 239075328 = 228 MB
    assert fx.a3_tp_window_bytes(4096, 7168) == 239075328
    out = lint_product("A3", "9.1", tp_world_size=2, moe_expert_num=32)
    assert out.buffers["tp"]["required_bytes"] == 239075328 and out.buffers["tp"]["required_mb"] == 228
    assert "tp" not in lint_product("A3", "latest", tp_world_size=1, moe_expert_num=32).buffers
    assert "tp" not in lint_product("A3", "9.1", tp_world_size=1, moe_expert_num=32).buffers


# ---- A2 (Qwen3-235B: h 4096, k 8, 128 experts, ep 16, bs 64) --------------------------------------------------------------
def test_a2_flat_code_formula():
    # 2 * (max_bs * ep * min(local, K) * H * 2 + 2 MB) = 2 * (64 * 16 * 8 * 8192 + 2097152)
    #   = 2 * (67108864 + 2097152) = 138412032 = 132 MB
    assert fx.a2_flat_window_bytes(4096, 8, 16, 8, 64) == 138412032
    out = lint_product("A2", "9.0")
    assert out.buffers["ep"]["required_bytes"] == 138412032 and out.buffers["ep"]["enforced"] == "warning"


def test_a2_flat_int32_x():
    # latest, INT32 x: token H * 4 + 32 = 16416; 2 * (64 * 16 * 8 * 16416 + 2097152) = 2 * (134479872 + 2097152)
    #   = 273154048 (260.5 -> 261 MB)
    assert fx.a2_flat_window_bytes(4096, 8, 16, 8, 64, x_bytes=4, x_int32=True) == 273154048
    out = lint_product("A2", "latest", x_dtype="int32", scales=True)
    assert out.buffers["ep"]["required_bytes"] == 273154048 and out.buffers["ep"]["required_mb"] == 261


def test_a2_layered_code_formula():
    # token: 4096 * 2 + 4 * Align8(8) * 4 = 8192 + 128 = 8320; 64 * 8320 = 532480 (already 512-aligned: 1040 * 512)
    # * (moe + ep / 8 * 2) = * (128 + 4) = 70287360; + 8 MB = 78675968 -> 75.03 MB -> 76 MB
    assert fx.a2_layered_window_bytes(4096, 8, 16, 128, 64) == 78675968
    out = lint_product("A2", "9.0", comm_alg="hierarchy", expert_scales=True)
    assert (out.buffers["ep"]["required_bytes"], out.buffers["ep"]["required_mb"]) == (78675968, 76)


def test_a2_85_documented_formulas():
    # flat (torch_npu doc): 2 * (BS * ep * min(local, K) * H * sizeof(uint16) + 2 MB) = 138412032 with BS 64
    out = lint_product("A2", "8.5")
    assert out.buffers["ep"]["required_bytes"] == 138412032
    assert "documented" in out.buffers["ep"]["note"]
    # hierarchy: moe * BS * (H * 2 + 4 * Align8(K) * 4) + 4 MB + 100 MB = 128 * 64 * 8320 + 104 MB
    #   = 68157440 + 109051904 = 177209344 = 169 MB (65 + 104)
    out = lint_product("A2", "8.5", comm_alg="hierarchy", expert_scales=True)
    assert (out.buffers["ep"]["required_bytes"], out.buffers["ep"]["required_mb"]) == (177209344, 169)


def test_a2_85_doc_uses_bs_but_code_uses_max_bs():
    # global_bs 2048 on ep 16: max_bs 128. 9.0 code: 2 * (128 * 16 * 8 * 8192 + 2 MB) = 2 * (134217728 + 2097152)
    #   = 272629760 = 260 MB; the 8.5 documented formula uses BS = 64: 132 MB
    assert lint_product("A2", "9.0", global_bs=2048).buffers["ep"]["required_mb"] == 260
    assert lint_product("A2", "8.5", global_bs=2048).buffers["ep"]["required_mb"] == 132


# ---- fullmesh_v2 UB estimate (§2.4) -------------------------------------------------------------------------------------
def test_fullmesh_v2_ub_dsv3_quant2():
    # bs 128, h 7168, k 8, moe 256, quant 2, no mask/scales/shared/special, 48 AIV:
    #   32 + inQueue 14336 * 2 = 28704
    #   h_out 7168 -> +4 = 7172 -> Align32 7200 -> +32 = 7232; outBuf ceil(7232/480) = 16 blocks * 512 * 2 = 16384 -> 45088
    #   expert ids Align256(128 * 8 * 4) = 4096 -> 49184
    #   quant: Align32(7232) + 2 * max(28672, 4096, 128 * 32 * 2 = 8192, 2048) = 7232 + 57344 -> 113760
    #   moe: AIV 48 - min(8, 24) = 40; mask Align32(4096 / 4 / 8 = 128) * (Align40(256) / 40 = 7) = 896;
    #        + Align32(256 * 4) = 1024 -> 115680; bs is not < 128
    ub = fx.a3_fullmesh_v2_ub_bytes(bs=128, h=7168, k=8, moe_expert_num=256, shared_expert_rank_num=0,
                                    shared_expert_num=0, quant_mode=2, has_scales=False, scales_col=0,
                                    scales_tsize=4, has_mask=False, is_expert_mask=False, special_experts=0,
                                    elastic=False, ep_world_size=32, aiv_num=48)
    assert ub == 115680


# ---- derived counts (§1) ------------------------------------------------------------------------------------------------
def test_shared_group_and_recv_tokens():
    # ceil(ep / (shared_rank / shared_num)): ep 32, 4 shared ranks, 2 shared experts -> ceil(32 / 2) = 16
    assert fx.max_shared_group_num(32, 2, 4) == 16
    # ep 30, 4 ranks for 1 expert -> ceil(30 / 4) = 8 (the docs' BS * ep * num / ranks would give 7.5)
    assert fx.max_shared_group_num(30, 1, 4) == 8
    assert fx.max_shared_group_num(32, 0, 0) == 0
    assert fx.recv_tokens_moe_rank(4096, 8, 8) == 32768  # 4096 * min(8, 8)
    assert fx.recv_tokens_moe_rank(4096, 2, 8) == 8192  # 4096 * min(2, 8)
    assert fx.normalized_shared_expert_num(1, 0) == 0 and fx.normalized_shared_expert_num(2, 0) == 2


# ---- ceil-MB boundary and the value compared --------------------------------------------------------------------------
@pytest.mark.parametrize("configured,ok", [(956, True), (955, False)])
def test_exact_mb_boundary_env(configured, ok):
    out = lint_product("A3", "9.0", env={"HCCL_BUFFSIZE": configured})
    assert out.buffers["ep"]["sufficient"] is ok and out.buffers["ep"]["configured_mb"] == configured
    assert ("MC501" in out.codes) is (not ok)
    if not ok:
        d = out.one("MC501")
        assert "set HCCL_BUFFSIZE >= 956" in d.message and "1002438656 bytes = 956 MB" in d.message
        assert d.path == "/env/HCCL_BUFFSIZE"


@pytest.mark.parametrize("configured,ok", [(23, True), (22, False)])
def test_fractional_mb_rounds_up(configured, ok):
    # 23494656 B = 22.4 MB: 22 MB is 23068672 B < need, 23 MB = 24117248 B >= need
    out = lint_product("A3", "9.0", ep_world_size=64, bs=3, env={"HCCL_BUFFSIZE": configured})
    assert out.buffers["ep"]["sufficient"] is ok
    assert ("set HCCL_BUFFSIZE >= 23" in " ".join(d.message for d in out.of("MC501"))) is (not ok)


def test_option_beats_env_beats_default():
    ep = lint_product("A3", "9.0", env={"HCCL_BUFFSIZE": 100}, hccl_buffer_size={"ep": 956}).buffers["ep"]
    assert (ep["configured_mb"], ep["configured_from"], ep["sufficient"]) == (956, "hccl_buffer_size.ep", True)
    out = lint_product("A3", "9.0", env={"HCCL_BUFFSIZE": 4096}, hccl_buffer_size={"ep": 955})
    assert "set hccl_buffer_size.ep >= 956" in out.one("MC501").message
    assert out.one("MC501").path == "/hccl_buffer_size/ep"
    ep = lint_product("A3", "9.0", env={"HCCL_BUFFSIZE": 956}).buffers["ep"]
    assert (ep["configured_mb"], ep["configured_from"]) == (956, "env HCCL_BUFFSIZE")
    out = lint_product("A3", "9.0", env={})
    assert out.buffers["ep"]["configured_mb"] == 200 and "HCCL default" in out.buffers["ep"]["configured_from"]
    assert "set HCCL_BUFFSIZE >= 956" in out.one("MC501").message
    # hccl_buffer_size.tp does not count for the EP window
    assert lint_product("A3", "9.0", env={}, hccl_buffer_size={"tp": 4096}).buffers["ep"]["configured_mb"] == 200


def test_hierarchy_reads_env_only():
    out = lint_product("A3", "9.0", comm_alg="hierarchy", expert_scales=True, env={}, hccl_buffer_size={"ep": 2000})
    assert out.buffers["ep"]["configured_mb"] == 200 and not out.buffers["ep"]["sufficient"]
    assert "set HCCL_BUFFSIZE >= 859" in out.one("MC501").message
    assert out.one("MC505").severity == "warning"
    for mb, ok in ((859, True), (858, False)):
        out = lint_product("A3", "9.0", comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": mb})
        assert ("MC501" in out.codes) is (not ok)


def test_tp_window_check_and_option():
    out = lint_product("A3", "9.1", tp_world_size=2, moe_expert_num=32, env={"HCCL_BUFFSIZE": 4096},
                       hccl_buffer_size={"tp": 227})
    d = out.one("MC502")
    assert "set hccl_buffer_size.tp >= 228" in d.message and d.path == "/hccl_buffer_size/tp"
    out = lint_product("A3", "9.1", tp_world_size=2, moe_expert_num=32, hccl_buffer_size={"tp": 228})
    assert "MC502" not in out.codes


@pytest.mark.parametrize("ruleset,text", [("8.5", "HCCL_BUFFSIZE is too SMALL"),
                                          ("9.0", "HCCL_BUFFSIZE_EP is too SMALL"),
                                          ("latest", "HCCL_BUFFSIZE_EP is too SMALL")])
def test_window_error_text_per_release(ruleset, text):
    assert lint_product("A3", ruleset, env={}).one("MC501").message.startswith(text)


@pytest.mark.parametrize("ruleset", ["8.5", "9.0", "latest"])
def test_a2_buffer_is_only_a_warning(ruleset):
    out = lint_product("A2", ruleset, env={"HCCL_BUFFSIZE": 131})
    d = out.one("MC503")
    assert d.severity == "warning" and "set HCCL_BUFFSIZE >= 132" in d.message and out.result.valid
    assert "MC503" not in lint_product("A2", ruleset, env={"HCCL_BUFFSIZE": 132}).codes


def test_a2_layered_fractional_boundary():
    # 78675968 B = 75.03 MB: 76 suffices, 75 warns
    for mb, warns in ((76, False), (75, True)):
        out = lint_product("A2", "9.0", comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": mb})
        assert ("MC503" in out.codes) is warns


@pytest.mark.parametrize("env,hbs,code,severity", [
    ({"HCCL_BUFFSIZE": 0}, None, "MC504", "error"),
    ({"HCCL_BUFFSIZE": -5}, None, "MC504", "error"),
    ({"HCCL_BUFFSIZE": 65536}, None, "MC504", "warning"),
    ({}, {"ep": 0}, "MC504", "error"),
])
def test_buffer_values(env, hbs, code, severity):
    out = lint_product("A3", "9.0", env=env, **({"hccl_buffer_size": hbs} if hbs else {}))
    assert out.one(code).severity == severity
    assert "MC501" not in out.codes  # no "too small" on top of a nonsensical size


def test_buffer_value_in_range_is_silent():
    assert "MC504" not in lint_product("A3", "9.0", env={"HCCL_BUFFSIZE": 65535}).codes


def test_broken_document_has_no_buffers():
    out = run_lint({**A3_BASE, "bs": "many"})
    assert out.buffers == {} and "MC004" in out.codes
    out = run_lint({**A2_BASE, "h": 8.0})
    assert out.buffers == {}
