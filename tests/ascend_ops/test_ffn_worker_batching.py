"""op ffn_worker_batching (MC84x): spec §6, seed 004, torch_npu afd ScheduleContextHolder."""
from __future__ import annotations

from pathlib import Path

import pytest

from lintkit import run_lint
from moecfg.backends.ascend.ops.ffn_worker_batching.catalog import SCHEDULE_CONTEXT_BYTES
from moecfg.backends.ascend.ops.ffn_worker_batching.analysis import member_offsets, schedule_context_layout

BASE = {"product": "A3", "cann_version": "9.0.1", "op": "ffn_worker_batching", "attention_workers": 64,
        "micro_batch_num": 2, "micro_batch_size": 32, "top_k": 8, "hidden": 7168, "expert_num": 1160,
        "layer_num": 58, "token_dtype": "int8", "need_schedule": 1}
WITH_FFN = ("9.0", "9.1", "latest")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def lint(ruleset="9.0", **overrides):
    return run_lint(BASE, cann_version=ruleset, **overrides)


def test_base_valid_on_both_products():
    for rs in WITH_FFN:
        for product in ("A2", "A3"):
            assert lint(rs, product=product).result.valid, lint(rs, product=product)


def test_not_in_85():
    out = lint("8.5")
    assert out.one("MC840").severity == "error" and out.buffers == {}


CASES = [
    ("MC841", {"expert_num": 8192, "layer_num": 0}, False), ("MC841", {"expert_num": 8193, "layer_num": 0}, True),
    ("MC841", {"expert_num": 0, "layer_num": 0}, True),
    ("MC842", {"attention_workers": 1024}, False), ("MC842", {"attention_workers": 1025}, True),
    ("MC842", {"attention_workers": 0}, True),
    ("MC843", {"micro_batch_size": 1}, False), ("MC843", {"micro_batch_size": 0}, True),
    ("MC843", {"micro_batch_num": 1}, False), ("MC843", {"micro_batch_num": 0}, True),
    ("MC843", {"micro_batch_num": 64}, False), ("MC843", {"micro_batch_num": 65}, True),
    ("MC844", {"top_k": 63}, False), ("MC844", {"top_k": 64}, True), ("MC844", {"top_k": 0}, False),
    ("MC844", {"top_k": -1}, True),
    ("MC845", {"hidden": 1}, False), ("MC845", {"hidden": 0}, True),
    ("MC846", {"need_schedule": 0}, False), ("MC846", {"need_schedule": 2}, True),
    ("MC847", {"layer_num": 1160}, False), ("MC847", {"layer_num": 1161}, True), ("MC847", {"layer_num": -1}, True),
    ("MC847", {"layer_num": 0}, False), ("MC847", {"layer_num": 59}, True),  # 1160 % 59: a warning
    ("MC848", {"attn_to_ffn_token_size": 7680}, False), ("MC848", {"attn_to_ffn_token_size": 7168}, True),
    ("MC848", {"attn_to_ffn_token_size": 7700}, True), ("MC848", {"attn_to_ffn_token_size": 8192}, False),
]


@pytest.mark.parametrize("ruleset", WITH_FFN)
@pytest.mark.parametrize("code,overrides,fires", CASES)
def test_boundaries(ruleset, code, overrides, fires):
    out = lint(ruleset, **overrides)
    assert bool(out.of(code)) == fires, out


def test_code_vs_doc_limits_are_named():
    k = lint(top_k=64).one("MC844")
    assert k.severity == "error" and "K <= 64" in k.message and "K <= 63" in k.message and "code" in k.message
    m = lint(micro_batch_num=65).one("MC843")
    assert m.severity == "warning" and "doc limit" in m.message
    assert lint(layer_num=59).one("MC847").severity == "warning"
    assert lint(layer_num=1161).one("MC847").severity == "error"


def test_token_dtype_accepts_attribute_integers():
    assert lint(token_dtype=1).derived["outputs"]["y"]["dtype"] == "bf16"
    assert lint(token_dtype=3).of("MC006")
    assert lint(token_dtype="float16").derived["outputs"]["y"]["dtype"] == "fp16"


# ---- derived values and buffers (hand-computed) -----------------------------------------------------------------
def test_derived_int8():
    d = lint().derived
    # Y = A * BS * (K + 1) = 64 * 32 * 9 = 18432
    assert d["Y"] == 18432 and d["selected_expert_num"] == 9 and d["group_list_len"] == 1160
    out = d["outputs"]
    assert out["y"] == {"shape": [18432, 7168], "dtype": "int8", "bytes": 18432 * 7168}       # 132120576
    assert out["group_list"]["bytes"] == 1160 * 2 * 8 == 18560
    assert out["token_ids"]["bytes"] == 18432 * 4 and out["dynamic_scale"]["bytes"] == 18432 * 4
    assert out["actual_token_num"]["bytes"] == 8
    # workspace = 512 + 18432*4 + 18432*32 + 1160*4 = 512 + 73728 + 589824 + 4640 = 668704
    assert d["workspace_bytes"] == 668704
    assert d["tiling_key"] == 101 and "32" in d["block_dim"]


def test_derived_bf16_has_empty_dynamic_scale():
    d = lint(token_dtype="bf16", need_schedule=0).derived
    assert d["outputs"]["dynamic_scale"] == {"shape": [0], "dtype": "fp32", "bytes": 0}
    assert d["outputs"]["y"]["bytes"] == 18432 * 7168 * 2 and d["tiling_key"] == 100 and "block_dim" not in d
    assert d["token_slot_bytes"] == 14336  # 7168 * 2, already a multiple of 512


def test_buffers_int8():
    b = lint().buffers
    # token slot: Align512(7168 + 4) = 7680 (15 * 512)
    assert b["token_data_buf"]["terms"]["HS (attn_to_ffn_token_size)"] == 7680
    # token_info = A * M * (8 + 4 * BS * (K+1)) = 64 * 2 * (8 + 4 * 32 * 9) = 128 * 1160 = 148480 (= 290 * 512)
    assert b["token_info_buf"]["required_bytes"] == 148480
    # token_data = A * M * BS * (K+1) * HS = 64 * 2 * 32 * 9 * 7680 = 283115520
    assert b["token_data_buf"]["required_bytes"] == 283115520
    assert b["ffn_window"]["required_bytes"] == 148480 + 283115520
    # output area = Align512(4 * 64) * 3 + Align512(4 * 64 * 32 * 9) = 512 * 3 + 73728 = 75264
    assert b["output_area"]["required_bytes"] == 75264
    assert b["workspace"]["required_bytes"] == 668704
    assert b["schedule_context"]["required_bytes"] == 1024


def test_token_info_alignment_in_window():
    # A=3, M=1, BS=1, K=0: token_info = 3 * (8 + 4) = 36 -> aligned 512; fp16 H 100: slot Align512(200) = 512
    out = lint(attention_workers=3, micro_batch_num=1, micro_batch_size=1, top_k=0, hidden=100, token_dtype="fp16",
               expert_num=4, layer_num=1)
    b = out.buffers
    assert b["token_info_buf"]["required_bytes"] == 36
    assert b["token_data_buf"]["required_bytes"] == 3 * 512
    assert b["ffn_window"]["required_bytes"] == 512 + 1536


@pytest.mark.parametrize("window,fires", [(283264000, False), (283263999, True), (148480, True), (148481, True)])
def test_ffn_window_size(window, fires):
    out = lint(ffn_window_size=window)
    assert bool(out.of("MC849")) == fires, out
    if not fires:
        assert out.buffers["ffn_window"]["sufficient"] is True


def test_ffn_window_message_gives_the_minimum():
    d = lint(ffn_window_size=200 * 2**20).one("MC849")
    assert "283264000" in d.message and "271 MB" in d.message


# ---- ScheduleContext layout (seed 004 struct, #pragma pack(1)) ----------------------------------------------------
def test_schedule_context_is_1024_bytes_with_128_byte_areas():
    layout = schedule_context_layout()
    assert layout == [("common", 0, 128), ("control", 128, 128), ("attention", 256, 128), ("ffn", 384, 256),
                      ("reserve6", 640, 384)]
    assert layout[-1][1] + layout[-1][2] == SCHEDULE_CONTEXT_BYTES == 1024


def test_schedule_context_member_offsets_match_the_struct():
    off = member_offsets()
    # CommonArea: 8 uint32 then reserve0[96]
    assert [off[f"common.{m}"] for m in ("session_num", "micro_batch_num", "micro_batch_size", "selected_expert_num",
            "expert_num", "attn_to_ffn_token_size", "ffn_to_attn_token_size", "schedule_mode", "reserve0")] == \
        [0, 4, 8, 12, 16, 20, 24, 28, 32]
    assert off["control.run_flag"] == 128 and off["control.reserve1"] == 132
    # AttentionArea: 4 uint64, uint32 micro_batch_id, reserve5[92]
    assert (off["attention.token_info_buf"], off["attention.token_data_buf_size"], off["attention.micro_batch_id"],
            off["attention.reserve5"]) == (256, 280, 288, 292)
    # FfnArea input half: 5 uint64 + reserve3[88]; output half: 8 uint64 + uint32 out_num + reserve4[60]
    assert (off["ffn.token_info_buf"], off["ffn.token_info_buf_size"], off["ffn.token_data_buf"],
            off["ffn.token_data_buf_size"], off["ffn.polling_index"], off["ffn.reserve3"]) == (384, 392, 400, 408, 416, 424)
    assert (off["ffn.layer_ids_buf"], off["ffn.session_ids_buf"], off["ffn.micro_batch_ids_buf"],
            off["ffn.expert_ids_buf"], off["ffn.expert_ids_buf_size"], off["ffn.out_num"], off["ffn.reserve4"]) == \
        (512, 528, 544, 560, 568, 576, 580)
    assert off["reserve6.reserve6"] == 640


def test_buffer_command_prints_the_layout():
    from moecfg.cli import main
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), pytest.raises(SystemExit) as exc:
        main(["buffer", str(EXAMPLES / "ffn-worker-64-attention-workers.yaml")])
    text = buf.getvalue()
    assert exc.value.code == 0
    assert "[schedule_context]" in text and "ffn = offset 384, 256 bytes" in text
    assert "ffn.input = offset 384, 128 bytes" in text and "ffn.output = offset 512, 128 bytes" in text
    assert "ffn.token_data_buf = offset 400" in text
