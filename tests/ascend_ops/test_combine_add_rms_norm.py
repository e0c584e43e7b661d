"""op combine_add_rms_norm (MC80x) on top of the dispatch/combine v2 rules: spec §4, seed 001."""
from __future__ import annotations

import pytest

from lintkit import ALL, A3_BASE, rule_cases, run_lint

BASE = {**A3_BASE, "op": "combine_add_rms_norm", "norm_eps": 1e-6}
NEW = ("9.0", "9.1", "latest")


def lint(ruleset="latest", **overrides):
    return run_lint(BASE, cann_version=ruleset, **overrides)


def assert_fires(code, ruleset, overrides, fires):
    out = lint(ruleset, **overrides)
    assert bool(out.of(code)) == fires, out
    return out


def test_valid_base_has_no_error_in_any_ruleset():
    for rs in ALL:
        out = lint(rs)
        assert out.result.valid, out
        assert out.result.op == "combine_add_rms_norm"


# ---- MC800 A3 only -------------------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", ALL)
def test_a2_is_refused_with_one_error_and_no_buffer(ruleset):
    out = lint(ruleset, product="A2")
    assert [d.code for d in out.diagnostics if d.severity == "error"] == ["MC800"]
    assert out.one("MC800").path == "/product"
    assert out.buffers == {} and out.derived == {}
    assert not lint(ruleset, product="910_93").of("MC800")  # alias of A3


# ---- MC801 norm_eps present --------------------------------------------------------------------------------
def test_norm_eps_missing_is_an_error_and_present_is_fine():
    assert lint(norm_eps=None).one("MC801").severity == "error"
    assert not lint(norm_eps=1e-6).of("MC801")


def test_norm_eps_written_as_yaml11_string_is_read_as_number():
    text = "product: A3\ncann_version: latest\nop: combine_add_rms_norm\nbs: 128\nh: 7168\nk: 8\nep_world_size: 32\n" \
           "moe_expert_num: 256\nnorm_eps: 1e-6\nenv:\n  HCCL_BUFFSIZE: 4096\n"
    out = run_lint(text)
    assert out.result.valid and not out.of("MC004"), out


def test_norm_eps_non_positive_warns():
    assert lint(norm_eps=0.0).one("MC801").severity == "warning"
    assert not lint(norm_eps=1e-12).of("MC801")


# ---- MC802 BF16 expand_x in 8.5 ------------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset,dtype,fires", [("8.5", "fp16", True), ("8.5", "bf16", False)]
                         + [(rs, "fp16", False) for rs in NEW])
def test_expand_x_bf16_only_in_85(ruleset, dtype, fires):
    assert_fires("MC802", ruleset, {"x_dtype": dtype}, fires)


# ---- MC803 / MC804 residual_x and gamma ---------------------------------------------------------------------
@pytest.mark.parametrize("overrides,code,fires", [
    ({"residual_x_shape": [128, 1, 7168]}, "MC803", False),
    ({"residual_x_shape": [128, 7168, 1]}, "MC803", True),
    ({"residual_x_shape": [127, 1, 7168]}, "MC803", True),
    ({"residual_x_dtype": "fp16"}, "MC803", True),
    ({"gamma_shape": [7168]}, "MC804", False),
    ({"gamma_shape": [7167]}, "MC804", True),
    ({"gamma_dtype": "fp16"}, "MC804", True),
])
def test_residual_and_gamma(overrides, code, fires):
    for rs in ALL:
        assert_fires(code, rs, overrides, fires)


def test_residual_shape_message_names_expected_shape():
    d = lint(residual_x_shape=[128, 7168, 1]).one("MC803")
    assert "[128, 1, 7168]" in d.message and d.path == "/residual_x_shape"


# ---- combine v2 rules still apply (reused families) -----------------------------------------------------------
def test_v2_rules_apply():
    assert lint(moe_expert_num=250).of("MC201")          # divisibility
    assert lint(h=8200).of("MC104")                      # h range [1024, 8192]
    assert lint(k=17).of("MC105")
    assert lint(env={"HCCL_BUFFSIZE": 955}).of("MC501")  # window 956 MB
    assert not lint(env={"HCCL_BUFFSIZE": 956}).of("MC501")


@pytest.mark.parametrize("ruleset", ALL)
def test_special_expert_minus_one_rejected(ruleset):
    # 8.5's own tiling: "zeroExpertNum is -1"; every release refuses it (MC208)
    for name in ("zero_expert_num", "copy_expert_num", "const_expert_num"):
        assert lint(ruleset, **{name: -1}).of("MC208")
        assert not lint(ruleset, **{name: 0}).of("MC208")


# ---- MC805 8.5 local experts: combine only needs > 0, the dispatch pair keeps 2048 ---------------------------
def test_local_experts_note_in_85_only():
    # ep 32, moe 2080 -> 65 per rank, 65*32 = 2080 > 2048; 2048 -> 64*32 = 2048 ok
    over = {"moe_expert_num": 2080, "env": {"HCCL_BUFFSIZE": 60000}}
    out85 = lint("8.5", **over)
    assert out85.of("MC805") and out85.of("MC202")
    assert out85.one("MC805").severity == "info"
    assert not lint("latest", **over).of("MC805")
    assert not lint("8.5", moe_expert_num=2048, env={"HCCL_BUFFSIZE": 60000}).of("MC805")


# ---- MC806 elastic scale-down ---------------------------------------------------------------------------------
SCALE_ROWS = [
    ("A3", NEW, {"elastic_info": True, "elastic_scale_down": {"ep_world_size": 28}}, False),
    ("A3", NEW, {"elastic_info": True, "elastic_scale_down": {"ep_world_size": 28, "moe_expert_num": 224}}, False),
    ("A3", NEW, {"elastic_info": True, "elastic_scale_down": {"ep_world_size": 28, "moe_expert_num": 225}}, True),
    ("A3", NEW, {"elastic_info": True, "elastic_scale_down": {"ep_world_size": 28, "moe_expert_num": 232}}, True),
    ("A3", NEW, {"elastic_info": True, "elastic_scale_down": {"ep_world_size": 32}}, False),
    ("A3", NEW, {"elastic_info": True, "elastic_scale_down": {"ep_world_size": 33}}, True),
    ("A3", NEW, {"elastic_info": True, "elastic_scale_down": {"ep_world_size": 1}}, True),
    ("A3", NEW, {"elastic_scale_down": {"ep_world_size": 28}}, True),  # needs elastic_info
]


@pytest.mark.parametrize("product,ruleset,overrides,fires", rule_cases(SCALE_ROWS))
def test_elastic_scale_down(product, ruleset, overrides, fires):
    assert_fires("MC806", ruleset, overrides, fires)


def test_elastic_scale_down_keeps_local_experts_message_and_derived():
    out = lint(elastic_info=True, elastic_scale_down={"ep_world_size": 28, "moe_expert_num": 225})
    d = out.one("MC806")
    assert "8 * (28 - 0) = 224" in d.message and d.path == "/elastic_scale_down/moe_expert_num"
    ok = lint(elastic_info=True, elastic_scale_down={"ep_world_size": 28})
    assert ok.derived["elastic_scale_down"] == {"ep_world_size": 28, "shared_expert_rank_num": 0,
                                                 "moe_expert_num": 224, "local_expert_num": 8}
    assert ok.derived["elastic_info_len"] == 4 + 2 * 32


def test_elastic_with_shared_ranks_after():
    # 40 ranks, 8 shared, 256 / 32 = 8 per MoE rank; after: 36 ranks, 4 shared -> 32 MoE ranks -> 256
    over = {"ep_world_size": 40, "shared_expert_rank_num": 8, "shared_expert_num": 1, "elastic_info": True}
    assert not lint(**over, elastic_scale_down={"ep_world_size": 36, "shared_expert_rank_num": 4}).of("MC806")
    assert lint(**over, elastic_scale_down={"ep_world_size": 36, "shared_expert_rank_num": 9}).of("MC806")


@pytest.mark.parametrize("ruleset", ("8.5", "9.0", "9.1"))
def test_elastic_not_with_tp(ruleset):
    # scale-down is not supported with TP: MC114 (8.5-9.1, legacy TP); latest rejects tp >= 2 (MC111)
    out = lint(ruleset, moe_expert_num=32, tp_world_size=2, group_tp="tp", group_ep="ep", elastic_info=True,
               elastic_scale_down={"ep_world_size": 28}, env={"HCCL_BUFFSIZE": 60000})
    assert any("elastic_info" in d.message for d in out.of("MC114")), out
    assert lint("latest", tp_world_size=2, elastic_info=True).of("MC111")


# ---- buffers: the code's window is the verdict, the documented one an info --------------------------------------
def test_documented_window_info_with_both_figures():
    # code: 2 * (128*14848*32*8 + 128*14336*(8+0)) = 2 * (486539264 + 14680064) = 1002438656 B -> 956 MB
    # doc:  2 * (128*2*(7168+128)*(32*8+8+1)) + 2 MB = 2 * 494960640 + 2097152 = 992018432 B -> 947 MB
    out = lint(env={"HCCL_BUFFSIZE": 950})
    assert out.buffers["ep"]["required_bytes"] == 1002438656
    assert out.buffers["ep"]["documented_bytes"] == 992018432
    assert out.buffers["ep"]["documented_mb"] == 947
    info = out.one("MC807")
    assert info.severity == "info" and "956 MB" in info.message and "947 MB" in info.message
    assert out.of("MC501")  # 950 MB passes the documented formula but not the code: the code decides


def test_documented_window_absent_for_hierarchy():
    out = lint(comm_alg="hierarchy", expert_scales=True, bs=32, global_bs=0)
    assert "documented_bytes" not in out.buffers.get("ep", {}) and not out.of("MC807")


def test_outputs_derived():
    out = lint(bs=64)
    assert out.derived["outputs"]["y"] == {"shape": [64, 1, 7168], "dtype": "bf16", "bytes": 64 * 7168 * 2}
    assert out.derived["outputs"]["rstd"] == {"shape": [64, 1, 1], "dtype": "fp32", "bytes": 256}


def test_v2_unknown_key_points_at_owning_op():
    out = run_lint({**A3_BASE, "norm_eps": 1e-6})
    d = out.one("MC003")
    assert "unknown key `norm_eps`" in d.message and "combine_add_rms_norm" in d.message
