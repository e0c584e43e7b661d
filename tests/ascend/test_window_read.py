"""Which HCCL_BUFFSIZE value the A3 window check compares, as the tiling reads it.

hierarchy: CheckWinSize -> GetEpWinSize(isLayered) -> Mc2TilingUtils::GetMaxWindowSize(), which keeps the env
value in a uint16_t (libochao-huawei/ops-transformer@5778144 mc2/common/op_host/op_tiling/mc2_tiling_utils.cpp
L344-360, mc2_tiling_utils.h L257-258; R90 mc2/common/src/mc2_tiling_utils.cpp L348-354). Other algorithms ask
HCCL for the communicator's buffer (CommGetCclBufferSizeByGroup), which is not truncated.
"""
from __future__ import annotations

import pytest

from lintkit import A3_HIER, WITH_A3_HIERARCHY, lint_product
from moecfg.backends.ascend.shared import formulas as fx

# DeepSeek-V3 on A3, ep 32, bs 128, hierarchy: tok = 2*7168 + (3*(8+7)/8*8)*4 + 64 = 14336 + 40*4 + 64 = 14560;
# need = 256 * 128 * 14560 + 404 MB = 477102080 + 423624704 = 900726784 B = 455 MB + 404 MB = 859 MB exactly.
NEED_MB = 859


@pytest.mark.parametrize(("env", "read"), [
    (None, 200), (200, 200), (65535, 65535), (65536, 0), (65536 + 858, 858), (65536 + 859, 859),
    (2 * 65536 + 5, 5), (2**31 - 1, (2**31 - 1) % 65536), (2**31, 200),  # stoi throws: the default stays
])
def test_max_window_size_mb(env, read):
    assert fx.max_window_size_mb(env) == read


@pytest.mark.parametrize("ruleset", WITH_A3_HIERARCHY)
@pytest.mark.parametrize(("env", "fires"), [
    (NEED_MB, False), (NEED_MB - 1, True),  # plain values: just inside / just outside
    (65535, False),  # the largest value that does not wrap
    (65536 + NEED_MB, False), (65536 + NEED_MB - 1, True),  # wrapped: 66395 -> 859 fits, 66394 -> 858 does not
    (65536, True),  # wraps to 0 MB
    (2**31, True),  # above INT32_MAX: GetMaxWindowSize keeps its 200 MB default
])
def test_hierarchy_compares_the_uint16_value(ruleset, env, fires):
    out = lint_product("A3", ruleset, env={"HCCL_BUFFSIZE": env}, **A3_HIER)
    assert ("MC501" in out.codes) == fires, out
    if fires and env > 65535:
        d = out.one("MC501")
        assert f"GetMaxWindowSize reads as {fx.max_window_size_mb(env)}" in d.message and str(env) in d.message
        assert "859 MB" in d.message and ("<= 65535" in d.message or "no HCCL_BUFFSIZE fits" in d.message)
    assert out.buffers["ep"]["required_bytes"] == 900726784


@pytest.mark.parametrize("ruleset", WITH_A3_HIERARCHY)
def test_hierarchy_need_above_uint16_has_no_fix_by_env(ruleset):
    # moe 512, bs 256 (hierarchy maxima), h 7168, k 8: 512 * 256 * 14560 + 404 MB = 1908408320 + 423624704 B
    # = 1820 MB + 404 MB = 2224 MB: fits. The uint16 cap only bites above 65535 MB, which the hierarchy limits
    # (moe <= 512, bs <= 256, h <= 7168) cannot reach: 512 * 256 * (14336 + 1024 + 64) B < 2 GB.
    out = lint_product("A3", ruleset, bs=256, moe_expert_num=512, env={"HCCL_BUFFSIZE": 2223}, **A3_HIER)
    assert "set HCCL_BUFFSIZE >= 2224 (and <= 65535" in out.one("MC501").message


@pytest.mark.parametrize("env", [66394, 2**31])
def test_fullmesh_reads_hccl_not_uint16(env):
    # fullmesh_v1 asks HCCL for the buffer: the full value counts; only MC504 warns about the wrap
    out = lint_product("A3", "latest", env={"HCCL_BUFFSIZE": env})
    assert "MC501" not in out.codes
    assert out.one("MC504").severity == "warning"
    assert f"reads it as {fx.max_window_size_mb(env)} MB" in out.one("MC504").message
