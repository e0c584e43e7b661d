"""api (aclnn entry point), context mode (aclnn V5 + ccl_buffer_size) and combine's special-expert tensors.

Sources: libochao-huawei/ops-transformer@5778144 (latest) and cannmirror/ops-transformer tags v9.1.0.pre / v9.0.0 / v8.5.0:
op_api/aclnn_moe_distribute_{dispatch,combine}_v{2,3,4}.cpp (signatures), moe_distribute_{dispatch,combine}_v3
(context mode, ascend910_93 only), moe_distribute_check_win_size.h (window), CV2T CheckZeroComputeExpert.
"""
from __future__ import annotations

import pytest

from lintkit import A3_HIER, ALL, assert_rule, lint_product, rule_cases
from moecfg.backends.ascend.shared import formulas as fx

# DeepSeek-V3, A3, ep 32, bs 128, fullmesh_v1: tok_dispatch = Align512(Align32(2 * 7168) + 44) = 14848,
# tok_combine = Align512(14336) = 14336, local = 256 / 32 = 8;
# need = 2 * (128 * 14848 * 32 * 8 + 128 * 14336 * (8 + 0)) = 2 * (486539264 + 14680064) = 1002438656 B.
NEED = 1_002_438_656
CCL_MIN = NEED + 1_048_576  # window = ccl_buffer_size - 1 MB >= need  ->  ccl >= 1003487232
CTX = {"api": "aclnn_v5"}
WITH_CONTEXT = ("9.0", "9.1", "latest")

API_ROWS = [
    ("A3", ALL, {"api": "aclnn_v2", "elastic_info": True}, True),  # V2 signature has no elasticInfo
    ("A3", ALL, {"api": "aclnn_v3", "elastic_info": True}, False),
    ("A3", ALL, {"api": "aclnn_v2", "zero_expert_num": 8}, True),
    ("A3", ALL, {"api": "aclnn_v3", "zero_expert_num": 8}, False),
    ("A3", ("9.0", "latest"), {"api": "aclnn_v3", "performance_info": True}, True),  # V3: no performanceInfo
    ("A3", ("9.0", "latest"), {"api": "aclnn_v4", "performance_info": True}, False),
    ("A3", ("9.0", "latest"), {"api": "torch_npu", "performance_info": True}, False),
    ("A2", "latest", {"api": "aclnn_v2", "copy_expert_num": 8, "ori_x": True}, True),
    ("A2", "latest", {"api": "aclnn_v3", "copy_expert_num": 8, "ori_x": True}, False),
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(API_ROWS))
def test_aclnn_api_inputs(product, ruleset, overrides, fires):
    assert_rule("MC406", product, ruleset, overrides, fires)


CONTEXT_ROWS = [
    ("A3", WITH_CONTEXT, dict(CTX, ccl_buffer_size=CCL_MIN), False),
    ("A3", "8.5", dict(CTX, ccl_buffer_size=CCL_MIN), True),  # no MoeDistributeDispatchV3 before 9.0
    ("A2", "latest", dict(CTX, ccl_buffer_size=CCL_MIN), True),  # op def: ascend910_93 / ascend950 only
    ("A3", "latest", CTX, True),  # ccl_buffer_size missing
    ("A3", WITH_CONTEXT, dict(CTX, ccl_buffer_size=-1), True),  # "cclBuffSizePtr is invalid."
    # below 1 MB: 9.1+ computes ccl - 1 MB in uint64 and wraps (check passes: MC407 says so); 9.0 fails MC501
    ("A3", ("9.1", "latest"), dict(CTX, ccl_buffer_size=1_048_575), True),
    ("A3", "9.0", dict(CTX, ccl_buffer_size=1_048_575), False),
    # hierarchy: accepted in 9.0 context mode, refused by combine in 9.1 and by both on master
    ("A3", "9.0", dict(CTX, ccl_buffer_size=2**31, **A3_HIER), False),
    ("A3", ("9.1", "latest"), dict(CTX, ccl_buffer_size=2**31, **A3_HIER), True),
    ("A3", "latest", {"ccl_buffer_size": CCL_MIN}, True),  # a warning: only aclnn_v5 reads it
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(CONTEXT_ROWS))
def test_context_mode(product, ruleset, overrides, fires):
    assert_rule("MC407", product, ruleset, overrides, fires)


def test_wrap_message_names_the_rule_set():
    d = lint_product("A3", "9.1", ccl_buffer_size=1_048_575, **CTX).one("MC407")
    assert "(A3, CANN 9.1 rules)" in d.message and "{" not in d.message


def test_ccl_buffer_size_without_context_is_a_warning():
    assert lint_product("A3", "latest", ccl_buffer_size=CCL_MIN).one("MC407").severity == "warning"


@pytest.mark.parametrize("ruleset", WITH_CONTEXT)
@pytest.mark.parametrize(("ccl", "fires"), [(CCL_MIN, False), (CCL_MIN - 1, True)])
def test_context_window_is_ccl_minus_1mb(ruleset, ccl, fires):
    # HCCL_BUFFSIZE 200 MB would fail the plain check (956 MB): context mode does not read it
    out = lint_product("A3", ruleset, env={"HCCL_BUFFSIZE": 200}, ccl_buffer_size=ccl, **CTX)
    assert ("MC501" in out.codes) == fires, out
    assert out.buffers["ep"]["required_bytes"] == NEED
    assert out.buffers["ep"]["window_bytes"] == ccl - 1_048_576
    if fires:
        assert f"set ccl_buffer_size >= {CCL_MIN}" in out.one("MC501").message


def test_context_hierarchy_window_9_0():
    # 9.0 accepts hierarchy in context mode; need = 256 * 128 * 14560 + 404 MB = 900726784 B (test_window_read),
    # window = ccl - 1 MB: ccl 901775360 just fits, one byte less does not
    ok = lint_product("A3", "9.0", ccl_buffer_size=900_726_784 + 1_048_576, **CTX, **A3_HIER)
    bad = lint_product("A3", "9.0", ccl_buffer_size=900_726_784 + 1_048_575, **CTX, **A3_HIER)
    assert "MC501" not in ok.codes and "MC505" not in ok.codes and "MC501" in bad.codes


@pytest.mark.parametrize(("ccl", "wraps", "window"), [
    (CCL_MIN, True, NEED), (CCL_MIN, False, NEED), (1_048_576, True, 0),
    (1_048_575, True, 2**64 - 1), (1_048_575, False, -1), (0, True, 2**64 - 1_048_576),
])
def test_context_window_bytes(ccl, wraps, window):
    assert fx.context_window_bytes(ccl, wraps) == window


SPECIAL_ROWS = [
    ("A3", ALL, {"copy_expert_num": 8}, True),  # "oriX must exist when copyExpertNum > 0"
    ("A3", ALL, {"copy_expert_num": 8, "ori_x": True}, False),
    ("A3", ALL, {"const_expert_num": 8, "ori_x": True, "const_expert_alpha_1": True, "const_expert_alpha_2": True},
     True),  # const_expert_v missing
    ("A3", ALL, {"const_expert_num": 8, "ori_x": True, "const_expert_alpha_1": True, "const_expert_alpha_2": True,
                 "const_expert_v": True}, False),
    ("A3", ALL, {"const_expert_num": 0, "const_expert_v": True}, False),  # unused tensors are accepted on A3
    ("A2", ALL, {"copy_expert_num": 8}, True),
    ("A2", ALL, {"copy_expert_num": 8, "ori_x": True}, False),
    ("A2", ALL, {"const_expert_alpha_1": True}, True),  # A2: "current version does not support ..."
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(SPECIAL_ROWS))
def test_special_expert_tensors(product, ruleset, overrides, fires):
    assert_rule("MC408", product, ruleset, overrides, fires)


def test_const_message_names_the_missing_tensors():
    d = lint_product("A3", "latest", const_expert_num=4, ori_x=True).one("MC408")
    assert "missing const_expert_alpha_1, const_expert_alpha_2, const_expert_v" in d.message
