"""op mega_moe (MC860-MC874): CANN MegaMoE on A2/A3, per release (ops-transformer v9.1.0.pre 121f37d = "9.1",
branch 9.1.0 head 3311e26, master 25fb6b9 = "latest"); buffers against hand-computed figures."""
from __future__ import annotations

from pathlib import Path

import pytest

from lintkit import run_lint
from moecfg.backends.ascend.shared import fused_formulas as ff
from moecfg.backends.ascend.ops.mega_moe import formulas as mx
from moecfg.backends.ascend.ops.mega_moe.catalog import MEGA_MOE_RULES, mega_moe_rules
from moecfg.backends.ascend.ops.mega_moe.model import MegaMoeConfig, derive
from moecfg.backends.ascend.ops.mega_moe import rules

# DeepSeek-V3 W8A8 decode: h 7168, top-8 of 256 experts, EP 16 (16 experts per rank), moe_intermediate 2048.
BASE = {"product": "A3", "cann_version": "latest", "op": "mega_moe", "bs": 32, "h": 7168, "k": 8,
        "ep_world_size": 16, "moe_expert_num": 256, "intermediate_hidden": 2048, "dispatch_quant_mode": 2,
        "dispatch_quant_out_dtype": "int8", "env": {"HCCL_BUFFSIZE": 2048}}
WITH_OP = ("9.1", "latest")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def lint(ruleset="latest", product="A3", **overrides):
    return run_lint(BASE, cann_version=ruleset, product=product, **overrides)


def branch_codes(ruleset: str, **overrides) -> list:
    """Run the checks with a rule-set entry no cann_version selects yet (the 9.1.0 branch head)."""
    values = {**BASE, "weight_dtype": None, "num_max_tokens_per_rank": None, "max_recv_token_num": 0,
              "combine_quant_mode": 0, "comm_alg": "", "activation": "swiglu", "activation_clamp": None,
              "hccl_buffer_size": None, **overrides}
    cfg = MegaMoeConfig.from_values(values)
    facts = derive(cfg, ruleset)
    return [fd for check in rules.CHECKS for fd in check(cfg, facts)]


# ---- availability -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", ["8.5", "9.0"])
@pytest.mark.parametrize("product", ["A2", "A3"])
def test_not_before_91(ruleset, product):
    out = lint(ruleset, product)
    assert out.codes == {"MC860"} and out.one("MC860").severity == "error" and out.buffers == {}


@pytest.mark.parametrize("ruleset", WITH_OP)
@pytest.mark.parametrize("product", ["A2", "A3"])
def test_base_is_valid(ruleset, product):
    out = lint(ruleset, product, max_recv_token_num=4096)
    assert out.codes == set(), out
    assert out.result.valid and "ccl_window" in out.buffers and "workspace" in out.buffers


def test_rule_set_table_and_lookup():
    assert not MEGA_MOE_RULES["8.5"].available and not MEGA_MOE_RULES["9.0"].available
    assert MEGA_MOE_RULES["9.1"].ep_values[-1] == 128 and not MEGA_MOE_RULES["9.1"].auto_max_recv
    assert MEGA_MOE_RULES["9.1"].wrapper_checks is False
    assert MEGA_MOE_RULES["9.1.0"].ep_values == (2, 4, 8, 16, 32, 64) and MEGA_MOE_RULES["9.1.0"].auto_max_recv
    assert MEGA_MOE_RULES["latest"].ep_values == (2, 4, 8, 16, 32, 64, 128)
    # rule sets added later (another helper adds release lines): 9.1.x -> branch head, anything else -> latest
    assert mega_moe_rules("9.1-head") is MEGA_MOE_RULES["9.1.0"]
    assert mega_moe_rules("master-2026-09") is MEGA_MOE_RULES["latest"]


# ---- EP sizes: wrapper vs tiling vs vllm-ascend ------------------------------------------------------------
@pytest.mark.parametrize("ruleset,ep,fires", [
    ("latest", 2, False), ("latest", 32, False), ("latest", 64, True), ("latest", 128, True), ("latest", 48, True),
    ("9.1", 64, False), ("9.1", 128, False), ("9.1", 256, True), ("9.1", 48, True), ("9.1", 1, True),
])
def test_ep_world_size(ruleset, ep, fires):
    out = lint(ruleset, ep_world_size=ep, moe_expert_num=8 * ep, max_recv_token_num=0 if ruleset == "latest"
               else 32 * ep * 8)
    assert bool(out.of("MC861")) == fires, out


def test_ep64_names_every_layer():
    msg = lint(ep_world_size=64, moe_expert_num=512).one("MC861").message
    assert "rejects it first" in msg and "ep_world_size only support {2, 4, 8, 16, 32} on A2/A3, but got 64" in msg
    assert "would accept it" in msg and "EP <= 64 gate lets it through" in msg and "use one of {2, 4, 8, 16, 32}" in msg


def test_branch_910_head_rejects_128_in_the_tiling_too():
    (fd,) = [f for f in branch_codes("9.1.0", ep_world_size=128, moe_expert_num=1024) if f.code == "MC861"]
    assert "rejects it first" in fd.message and "tiling rejects it (one of {2, 4, 8, 16, 32, 64})" in fd.message
    (fd,) = [f for f in branch_codes("9.1.0", ep_world_size=64, moe_expert_num=512) if f.code == "MC861"]
    assert "would accept it" in fd.message
    assert not [f for f in branch_codes("9.1.0", ep_world_size=32, moe_expert_num=256) if f.code == "MC861"]


# ---- experts -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", WITH_OP)
@pytest.mark.parametrize("experts,ep,codes", [
    (1024, 16, set()), (1040, 16, {"MC862"}), (2048, 16, {"MC862"}), (2064, 16, {"MC862", "MC863"}),
    (256, 2, set()), (258, 2, {"MC863"}), (250, 16, {"MC863"}), (8, 16, {"MC863"}),
])
def test_experts(ruleset, experts, ep, codes):
    out = lint(ruleset, moe_expert_num=experts, ep_world_size=ep, max_recv_token_num=0 if ruleset == "latest"
               else 32 * ep * min(8, max(1, experts // ep)))
    assert out.codes & {"MC862", "MC863"} == codes, out


def test_expert_messages_say_which_layer_bites():
    assert "the torch wrapper accepts up to 2048" in lint(moe_expert_num=2048).one("MC862").message
    assert "rejects it first" in lint(moe_expert_num=2064).one("MC862").message
    assert "use 240 or 256" in lint(moe_expert_num=250).one("MC863").message


# ---- tokens -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("overrides,severity", [
    ({"bs": 4096}, None), ({"bs": 4097}, "error"), ({"bs": 1}, None),
    ({"num_max_tokens_per_rank": 4096}, None), ({"num_max_tokens_per_rank": 4097}, "error"),
    ({"num_max_tokens_per_rank": 0}, "error"), ({"num_max_tokens_per_rank": 32}, None),
    ({"num_max_tokens_per_rank": 31}, "warning"),
])
def test_tokens_latest(overrides, severity):
    out = lint(**overrides)
    found = out.of("MC864")
    assert [d.severity for d in found] == ([severity] if severity else []), out


def test_tokens_91_has_no_wrapper_check():
    assert lint("9.1", num_max_tokens_per_rank=4097, max_recv_token_num=4096).one("MC864").severity == "warning"
    assert "never runs" in lint(num_max_tokens_per_rank=16).one("MC864").message


def test_bs_zero_is_an_error_without_buffers():
    out = lint(bs=0)
    assert out.one("MC864").severity == "error" and out.buffers == {}


# ---- shapes ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("code,overrides,fires", [
    ("MC865", {"h": 1024}, False), ("MC865", {"h": 8192}, False), ("MC865", {"h": 512}, True),
    ("MC865", {"h": 8704}, True), ("MC865", {"h": 7424}, True),
    ("MC866", {"intermediate_hidden": 1024}, False), ("MC866", {"intermediate_hidden": 3072}, False),
    ("MC866", {"intermediate_hidden": 1536}, False), ("MC866", {"intermediate_hidden": 512}, True),
    ("MC866", {"intermediate_hidden": 3584}, True), ("MC866", {"intermediate_hidden": 1280}, True),
    ("MC867", {"k": 16}, False), ("MC867", {"k": 17}, True), ("MC867", {"k": 0}, True),
])
@pytest.mark.parametrize("ruleset", WITH_OP)
def test_shape_limits(ruleset, code, overrides, fires):
    assert bool(lint(ruleset, max_recv_token_num=65536, **overrides).of(code)) == fires


def test_intermediate_alignment_quotes_the_code_text():
    assert "should be 512 aligned, but got 2560" in lint(intermediate_hidden=1280).one("MC866").message


# ---- quantisation, attributes ------------------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset,mode,weight,out_dtype,fires", [
    ("latest", 2, "int8", "int8", False), ("latest", 2, "int4", "int8", False), ("latest", 0, "bf16", None, False),
    ("latest", 0, "int8", None, True), ("latest", 2, "bf16", None, True), ("latest", 2, "int8", None, True),
    ("latest", 0, "bf16", "int8", True), ("latest", 4, "int8", "int8", True), ("latest", 1, "int8", "int8", True),
    ("9.1", 1, "int8", "int8", True), ("9.1", 2, "int8", "int8", False),
])
def test_dispatch_quant(ruleset, mode, weight, out_dtype, fires):
    out = lint(ruleset, dispatch_quant_mode=mode, weight_dtype=weight, dispatch_quant_out_dtype=out_dtype,
               max_recv_token_num=4096)
    assert bool(out.of("MC868")) == fires, out


def test_quant_mode_1_names_the_wrapper_on_latest_and_the_tiling_on_91():
    assert "accepts only {0, 2, 4}" in lint(dispatch_quant_mode=1).one("MC868").message
    # weight_dtype defaults to bf16 for mode 1 (only 2 means int8): the tiling expects 0
    assert "tiling expects 0" in lint("9.1", dispatch_quant_mode=1, max_recv_token_num=4096).one("MC868").message


def test_weight_dtype_defaults_from_the_quant_mode():
    assert lint().derived["weight_dtype"] == "int8"
    assert lint(dispatch_quant_mode=0, dispatch_quant_out_dtype=None).derived["weight_dtype"] == "bf16"


@pytest.mark.parametrize("code,overrides,fires", [
    ("MC869", {"combine_quant_mode": 0}, False), ("MC869", {"combine_quant_mode": 2}, True),
    ("MC870", {"comm_alg": ""}, False), ("MC870", {"comm_alg": "fullmesh_v1"}, True),
    ("MC870", {"comm_alg": "hierarchy"}, True),
    ("MC871", {"activation": "swiglu"}, False), ("MC871", {"activation": "gelu"}, True),
    ("MC871", {"activation_clamp": 0.0}, False), ("MC871", {"activation_clamp": -1.0}, True),
])
def test_attributes(code, overrides, fires):
    assert bool(lint(**overrides).of(code)) == fires


# ---- max_recv_token_num --------------------------------------------------------------------------------------
@pytest.mark.parametrize("ruleset,value,expect", [
    ("latest", 0, {}), ("latest", 4096, {}), ("latest", 4095, {"MC872": "warning"}), ("latest", -1, {"MC872": "error"}),
    ("latest", 4097, {"MC874": "info"}),
    ("9.1", 0, {"MC872": "error"}), ("9.1", 4096, {}), ("9.1", 4095, {"MC872": "warning"}),
])
def test_max_recv(ruleset, value, expect):
    # worst case = bs * ep * min(k, experts/rank) = 32 * 16 * min(8, 16) = 4096
    out = lint(ruleset, max_recv_token_num=value)
    got = {d.code: d.severity for d in out.diagnostics if d.code in ("MC872", "MC874")}
    assert got == expect, out


def test_max_recv_91_zero_explains_the_missing_auto():
    msg = lint("9.1").one("MC872").message
    assert "not 'auto' in CANN 9.1" in msg and "aa7907c" in msg and "= 4096" in msg


def test_oversized_reports_the_workspace_bytes():
    # extra = 4096 more tokens * (max(4096, 7168)*2 + max(7168, 2048)*2 + 8) = 4096 * 28680 = 117473280
    assert "117473280 bytes" in lint(max_recv_token_num=8192).one("MC874").message


# ---- CCL window: hand-computed -----------------------------------------------------------------------------------
def test_a3_w8a8_bs32_window():
    # TPE = 16 * CeilAlign(16*128 + 1, 128) * 4 = 16 * 2176 * 4 = 139264
    # tensors = 32*8*(7168+512) + 32*8*7168*2 + 32*8*4 = 1966080 + 3670016 + 1024 = 5637120
    # flags = 16*512 = 8192; + 10 MiB = 10485760 -> 16270336 B = 15.52 MiB (frameworks.md: 15.5 MiB)
    b = lint().buffers["ccl_window"]
    assert b["terms"]["tensors"] == 5637120 and b["terms"]["TPE = ep * CeilAlign(ep * 128 + 1, 128) * 4"] == 139264
    assert b["required_bytes"] == 139264 + 5637120 + 8192 + 10485760 == 16270336
    assert b["required_mb"] == 16 and b["configured_mb"] == 2048 and b["sufficient"]


def test_a3_w8a8_bs4096_window():
    # tensors = 32768*7680 + 32768*14336 + 32768*4 = 251658240 + 469762048 + 131072 = 721551360
    # total = 139264 + 721551360 + 8192 + 10485760 = 732184576 B = 698.27 MiB (frameworks.md: 698 MiB)
    b = lint(bs=4096).buffers["ccl_window"]
    assert b["required_bytes"] == 732184576 and b["required_mb"] == 699


def test_a2_w8a8_bs512_window():
    # max_recv auto = 512 * 16 * min(8, 16) = 65536
    # winIn = 65536*7680 + 4096*14336 = 562036736; winOut = 4096*7680 + 65536*14336 = 970981376
    # tensors = 970981376 + 65536*4 = 971243520; flags = 8192 + 131072 + 1024 = 140288
    # total = 139264 + 971243520 + 140288 + 10485760 = 982008832 B = 936.5 MiB (frameworks.md: 936 MiB)
    b = lint(product="A2", bs=512).buffers["ccl_window"]
    assert b["terms"]["max_recv_token_num"] == 65536 and b["terms"]["flags"] == 140288
    assert b["required_bytes"] == 982008832 and b["required_mb"] == 937


def test_a3_bf16_window():
    # tensors = 256*14336 + 256*14336 = 7340032 (no scales); total = 139264 + 7340032 + 8192 + 10485760 = 17973248
    out = lint(dispatch_quant_mode=0, dispatch_quant_out_dtype=None)
    assert out.buffers["ccl_window"]["required_bytes"] == 17973248 and out.buffers["ccl_window"]["required_mb"] == 18


@pytest.mark.parametrize("product,bs,mb,fires", [("A3", 32, 16, False), ("A3", 32, 15, True),
                                                 ("A2", 512, 937, False), ("A2", 512, 936, True),
                                                 ("A3", 4096, 699, False), ("A3", 4096, 698, True)])
def test_window_boundary(product, bs, mb, fires):
    out = lint(product=product, bs=bs, env={"HCCL_BUFFSIZE": mb})
    assert bool(out.of("MC873")) == fires, out
    if fires:
        d = out.one("MC873")
        assert d.severity == "error" and f"set HCCL_BUFFSIZE >= {mb + 1}" in d.message


def test_pg_option_wins_over_env():
    ok = lint(env={"HCCL_BUFFSIZE": 15}, hccl_buffer_size={"ep": 16})
    assert not ok.of("MC873") and ok.buffers["ccl_window"]["configured_from"] == "hccl_buffer_size.ep"
    bad = lint(env={"HCCL_BUFFSIZE": 16}, hccl_buffer_size={"ep": 15}).one("MC873")
    assert "set hccl_buffer_size.ep >= 16" in bad.message and bad.path == "/hccl_buffer_size/ep"


def test_unset_buffsize_is_hccls_200():
    out = lint(env={}, bs=256)
    assert out.buffers["ccl_window"]["configured_mb"] == 200 and not out.of("MC873")


def test_window_sized_for_num_max_tokens_is_a_warning():
    out = lint(num_max_tokens_per_rank=4096, env={"HCCL_BUFFSIZE": 200})
    d = out.one("MC873")
    assert d.severity == "warning" and "set HCCL_BUFFSIZE >= 699" in d.message
    assert out.buffers["ccl_window_max_tokens"]["required_bytes"] == 732184576


def test_tiling_suggestion_is_floor_plus_one():
    assert mx.mega_moe_suggested_mb(16270336) == 16  # 15.5 MiB -> 15 + 1
    assert mx.mega_moe_suggested_mb(16 * ff.MIB) == 17  # an exact multiple: the tiling suggests one more


# ---- workspace (hand-computed) ----------------------------------------------------------------------------------
def test_a3_workspace_bs32():
    # max_recv = 4096; N = 4096, n2 = 7168, k2 = 2048
    # 256*8*4 + 16*16*16*4 + 4096*7168*2 + 4096*7168*2 + 16*31//16*16*4 + 16*4*16 + 4096*8
    # = 8192 + 16384 + 58720256 + 58720256 + 1984 + 1024 + 32768 = 117500864; + 16 MiB = 134278080
    assert lint().derived["workspace_bytes"] == 117500864 + 16777216 == 134278080


def test_a2_workspace_bs512():
    # 512*8*4 + Align128(257)*(16+2)*4 + 65536*7168*2 + 65536*7168*1 + 16*64 + 65536*8
    # = 16384 + 27648 + 939524096 + 469762048 + 1024 + 524288 = 1409855488; + 16 MiB = 1426632704
    assert lint(product="A2", bs=512).derived["workspace_bytes"] == 1426632704


def test_w4a8_adds_a_gmm_output():
    # W4A8 adds max_recv * max(N, n2) * 2 = 4096 * 7168 * 2 = 58720256
    assert lint(weight_dtype="int4").derived["workspace_bytes"] == 134278080 + 58720256


# ---- examples -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,required", [("deepseek-v3-a3-mega-moe.yaml", 33181696),
                                           ("deepseek-v3-a2-mega-moe.yaml", 982008832)])
def test_examples_are_clean_and_match_their_comments(name, required):
    out = run_lint((EXAMPLES / name).read_text())
    assert out.codes == set(), out
    assert out.buffers["ccl_window"]["required_bytes"] == required


@pytest.mark.parametrize("dtype,fires", [("bf16", False), ("bfloat16", False), ("fp16", True), ("float16", True)])
def test_x_dtype(dtype, fires):
    assert bool(lint(x_dtype=dtype).of("MC875")) == fires


def test_device_bytes_counts_the_buffer_pair_and_the_workspace():
    # HCCL_BUFFSIZE 2048 -> 2 x 2048 MiB = 4294967296; + workspace 134278080
    assert lint().derived["device_bytes"] == 2 * 2048 * 2**20 + 134278080


def test_catalog_entries_validate_strictly_and_are_frozen():
    import dataclasses

    from pydantic import TypeAdapter
    from test_catalogs import strict_check

    from moecfg.backends.ascend.ops.dispatch_ffn_combine.catalog import DFC_RULES, DfcRules
    from moecfg.backends.ascend.ops.mega_moe.catalog import MegaMoeRules

    for name, entry in MEGA_MOE_RULES.items():
        strict_check(entry, f"MEGA_MOE_RULES[{name}]")
        assert TypeAdapter(MegaMoeRules).validate_python(dataclasses.asdict(entry)) == entry
    strict_check(DFC_RULES, "DFC_RULES")
    assert TypeAdapter(DfcRules).validate_python(dataclasses.asdict(DFC_RULES)) == DFC_RULES
    with pytest.raises(dataclasses.FrozenInstanceError):
        MEGA_MOE_RULES["latest"].bs_max = 8192


def test_intermediate_twice_a_valid_width_names_vllm_ascends_argument():
    # vllm-ascend passes 2 x intermediate_size_per_partition to get_symm_buffer_for_mega_moe (stored, unused)
    assert "the width the tiling checks is 2048" in lint(intermediate_hidden=4096).one("MC866").message
    assert "vllm-ascend" not in lint(intermediate_hidden=3584).one("MC866").message  # 1792 is not 512-aligned


def test_vllm_ascend_14273_prefill_into_a_decode_sized_buffer():
    # https://github.com/vllm-project/vllm-ascend/issues/14273: TP4 DP4 EP16, max_num_seqs 16 x (1 + 7 draft)
    # / TP 4 -> num_max_tokens_per_rank 32; a 477-token prefill batch reached the op (NaNs, 507035).
    # vllm-ascend passes max_recv_token_num = 32 * 16 * min(8, 16) = 4096, the worst case is 477 * 128 = 61056.
    # (DeepSeek-V3 dims stand in for the DeepSeek-V4 W8A8.)
    out = lint(bs=477, num_max_tokens_per_rank=32, max_recv_token_num=4096)
    assert out.one("MC864").severity == "warning" and "vllm-ascend#14273" in out.one("MC864").message
    assert out.one("MC872").severity == "warning" and "= 61056" in out.one("MC872").message
    assert out.result.valid  # nothing in CANN refuses it: that is why it crashed at run time
