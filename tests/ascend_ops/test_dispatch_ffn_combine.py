"""op dispatch_ffn_combine (MC880-MC884): vllm-ascend@182b75e csrc/mc2/dispatch_ffn_combine* tiling."""
from __future__ import annotations

from pathlib import Path

import pytest

from lintkit import run_lint
from moecfg.backends.ascend.ops.dispatch_ffn_combine import formulas as dx

# DeepSeek-V3 W8A8 on A3, EP 16 (16 experts per rank), M = 512 tokens per rank.
BASE = {"product": "A3", "cann_version": "latest", "op": "dispatch_ffn_combine", "bs": 512, "h": 7168, "k": 8,
        "ep_world_size": 16, "moe_expert_num": 256, "intermediate_hidden": 2048, "max_output_size": 65536,
        "env": {"HCCL_BUFFSIZE": 94}}
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "deepseek-v3-a3-dispatch-ffn-combine.yaml"


def lint(**overrides):
    return run_lint(BASE, **overrides)


def test_base_is_valid():
    assert lint().codes == set()


def test_a2_runs_the_op_but_vllm_ascend_does_not_select_it():
    out = lint(product="A2")
    assert out.codes == {"MC884"} and "A3 only" in out.one("MC884").message and out.result.valid


# ---- HCCL_BUFFSIZE check -----------------------------------------------------------------------------------
def test_window_figure():
    # M * topK * K * 3 + 10 MiB = 512 * 8 * 7168 * 3 + 10485760 = 88080384 + 10485760 = 98566144 = 94 MiB exactly
    b = lint().buffers["hccl_window"]
    assert b["required_bytes"] == 98566144 and b["required_mb"] == 94 and b["sufficient"]
    assert "+ 3MB" in b["note"] and "10 MB" in b["note"]


@pytest.mark.parametrize("mb,fires", [(94, False), (93, True), (65535, False)])
def test_window_boundary(mb, fires):
    out = lint(env={"HCCL_BUFFSIZE": mb})
    assert bool(out.of("MC880")) == fires, out
    if fires:
        assert "set HCCL_BUFFSIZE >= 94" in out.one("MC880").message


def test_unset_is_200():
    out = lint(env={})
    assert out.buffers["hccl_window"]["configured_mb"] == 200 and not out.of("MC880")
    # M = 4096: 4096*8*7168*3 + 10 MiB = 704643072 + 10485760 = 715128832 B = 682 MiB > 200
    big = lint(env={}, bs=4096, max_output_size=4096 * 128)
    assert "= 682 MB, the op reads 200 MB" in big.one("MC880").message


@pytest.mark.parametrize("env,ignored,window", [(65535, False, 65535), (65536, True, 200), (70000, True, 200),
                                                (-1, True, 200)])
def test_uint16_parse(env, ignored, window):
    out = lint(bs=64, max_output_size=8192, env={"HCCL_BUFFSIZE": env})
    assert bool(out.of("MC881")) == ignored, out
    assert out.derived["hccl_window_mb"] == window


def test_ignored_large_value_still_fails_the_check():
    # HCCL_BUFFSIZE = 70000 reads as 200; M = 2048 needs 2048*8*7168*3 + 10 MiB = 362807296 B = 346 MiB
    out = lint(bs=2048, max_output_size=2048 * 128, env={"HCCL_BUFFSIZE": 70000})
    assert out.codes >= {"MC880", "MC881"} and "the op reads 200 MB" in out.one("MC880").message


@pytest.mark.parametrize("dtype", ["int4", "bf16"])
def test_only_the_w8a8_variant_checks(dtype):
    out = lint(weight_dtype=dtype, env={"HCCL_BUFFSIZE": 1})
    assert not out.of("MC880") and "hccl_window" not in out.buffers


# ---- max_output_size and workspace ------------------------------------------------------------------------------
@pytest.mark.parametrize("value,expect", [(65536, {}), (65535, {"MC882": "warning"}), (0, {"MC882": "error"}),
                                          (2**31, {"MC882": "error"}), (65537, {"MC883": "info"})])
def test_max_output_size(value, expect):
    # worst case = 512 * 16 * min(8, 16) = 65536
    out = lint(max_output_size=value)
    assert {d.code: d.severity for d in out.diagnostics} == expect, out


def test_int8_workspace():
    # 512*8*4 + 16*16*16*4*2 + 65536*8 + 65536*7168*2 + 65536*7168 + 16*64 + (16+16)*64
    # = 16384 + 32768 + 524288 + 939524096 + 469762048 + 1024 + 2048 = 1409862656; + 16 MiB = 1426639872
    assert lint().derived["workspace_bytes"] == 1409862656 + 16777216 == 1426639872


def test_default_mega_moe_max_tokens_costs_2_6_gib():
    # max_output_size 131072 doubles the three per-token terms: 1048576 + 1879048192 + 939524096
    # 16384 + 32768 + 1048576 + 1879048192 + 939524096 + 1024 + 2048 = 2819673088; + 16 MiB = 2836450304 (2.64 GiB)
    d = lint(max_output_size=131072).one("MC883")
    assert "2836450304 bytes" in d.message and "1426639872 bytes" in d.message


def test_bf16_and_w4a8_workspaces():
    # bf16: 16384 + 16*16*16*4*3 + 65536*8 + 65536*4096*2 + 65536*7168*2 + 65536*7168*2 + 65536*2048*2 + 1024 + 2048
    #     = 16384 + 49152 + 524288 + 536870912 + 939524096 + 939524096 + 268435456 + 1024 + 2048 = 2684947456
    assert lint(weight_dtype="bf16").derived["workspace_bytes"] == 2684947456 + 16777216
    # w4a8: 16384 + 32768 + 524288 + 65536*max(4096, 7168)*2*2 + 65536*max(7168, 2048) + 1024
    #     = 16384 + 32768 + 524288 + 1879048192 + 469762048 + 1024 = 2349384704
    assert lint(weight_dtype="int4").derived["workspace_bytes"] == 2349384704 + 16777216


def test_formula_functions_directly():
    assert dx.dfc_least_window_bytes(512, 8, 7168) == 98566144
    assert dx.dfc_window_mb(None) == 200 and dx.dfc_window_mb(0) == 0 and dx.dfc_window_mb(65536) == 200


# ---- vllm-ascend selection ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("overrides,fires", [
    ({"ep_world_size": 32, "moe_expert_num": 256, "max_output_size": 512 * 32 * 8}, False),
    ({"ep_world_size": 33, "moe_expert_num": 264, "max_output_size": 512 * 33 * 8}, True),
    # the token count does not change vllm-ascend's choice (ascend_forward_context.py@182b75e L247-254)
    ({"bs": 513, "max_output_size": 513 * 128, "env": {"HCCL_BUFFSIZE": 200}}, False),
])
def test_vllm_selection(overrides, fires):
    out = lint(**{"env": {"HCCL_BUFFSIZE": 200}, **overrides})
    assert bool(out.of("MC884")) == fires, out


def test_example_is_clean():
    out = run_lint(EXAMPLE.read_text())
    assert out.codes == set() and out.buffers["hccl_window"]["required_bytes"] == 98566144


def test_device_bytes():
    # 2 x 94 MiB + workspace 1426639872; with HCCL_BUFFSIZE 70000 HCCL still allocates 2 x 70000 MiB
    assert lint().derived["device_bytes"] == 2 * 94 * 2**20 + 1426639872
    big = lint(bs=64, max_output_size=8192, env={"HCCL_BUFFSIZE": 70000}).derived
    assert big["device_bytes"] == 2 * 70000 * 2**20 + big["workspace_bytes"]


def test_bf16_weights_fail_vllm_ascends_assertion():
    d = lint(weight_dtype="bf16").one("MC884")
    assert d.severity == "warning" and "w1_scale_bias and w2_scale_bias cannot be None" in d.message
    assert not lint(weight_dtype="int4").of("MC884")


# ---- intermediate_hidden: the int8 tiling stores k2 = N / 2 and never reads it (dispatch_ffn_combine_tiling.cpp
# L297-306 @182b75e): an int8 document without it still gets its HCCL_BUFFSIZE verdict ----------------------------
INT8_NO_INTER = {k: v for k, v in BASE.items() if k != "intermediate_hidden"}


@pytest.mark.parametrize("mb,fires", [(94, False), (93, True)])  # 512 * 8 * 7168 * 3 + 10 MiB = 94 MiB exactly
def test_int8_without_intermediate_hidden_gets_the_buffsize_verdict(mb, fires):
    out = run_lint(INT8_NO_INTER, env={"HCCL_BUFFSIZE": mb})
    assert "MC005" not in out.codes and ("MC880" in out.codes) is fires
    assert out.buffers["hccl_window"]["required_mb"] == 94


def test_int8_workspace_does_not_depend_on_intermediate_hidden():
    with_inter, without = lint(), run_lint(INT8_NO_INTER)
    assert with_inter.buffers["workspace"]["required_bytes"] == without.buffers["workspace"]["required_bytes"] > 0


@pytest.mark.parametrize("dtype", ["bf16", "int4"])
def test_bf16_and_w4a8_name_the_figure_that_needs_it(dtype):
    out = run_lint(INT8_NO_INTER, weight_dtype=dtype)
    assert "MC005" not in out.codes and "workspace" not in out.buffers
    assert "intermediate_hidden" in out.one("MC883").message and out.one("MC883").severity == "info"
    assert "workspace" in lint(weight_dtype=dtype).buffers  # given: computed


# ---- the op's `group` (issue 32): modelled like dispatch_v2's group_ep ------------------------------------------
# vllm-ascend@182b75e dispatch_ffn_combine_tiling.cpp:98-99: `groupPtr == nullptr || strlen(groupPtr) == 0` ->
# "group is invalid." (GRAPH_FAILED)

@pytest.mark.parametrize("group, codes", [("hccl_mc2_group", set()), ("", {"MC110"})])
def test_group_name(group, codes):
    out = lint(group=group)
    assert out.codes == codes  # a known key: never MC003
    if codes:
        assert out.one("MC110").severity == "error" and "group is invalid." in out.one("MC110").message
