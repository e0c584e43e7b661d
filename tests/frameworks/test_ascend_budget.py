"""Per-rank memory table of Ascend launches (vllm-ascend, SGLang on Ascend): every HCCL communicator x 2 buffers (+ the
fused MoE op's workspace) against the memory outside --gpu-memory-utilization / --mem-fraction-static (MC954), and
MC950 (the HCCL buffers exceed the whole device). 1 MiB = 2^20 B; A2 / A3 rank = 64 GiB = 65536 MiB.

Group buffers (vllm-ascend@182b75e vllm_ascend/utils.py:70-72,968-1005): mc2 = process HCCL_BUFFSIZE (200 unset),
dp = max(ceil((DP + 1) x 4 / MiB), 50) = 50, dynamic_eplb = 100, every other group 200 (MB).
"""
from __future__ import annotations

import json

import pytest

from moecfg.backends import Options
from moecfg.checking.launch import lint_launch_file
from moecfg.frameworks.vllm_ascend import groups as G
from moecfg.sources.launch import LaunchFile
from test_sglang_ascend import derive as sgl_derive
from vllm_ascend_launches import DSR1_A3_SINGLE_NODE, calls, codes, ctx, derive, launch, serve

MIB = 1 << 20


def ac(**kw) -> str:
    return "--additional-config '" + json.dumps(kw) + "'"


def rows(call) -> dict:
    return {k: v["bytes"] // MIB for k, v in call.derived["memory_budget"]["buffers"].items()}


# ---- the groups and their buffers (pure) ----

def test_dp_buffer_is_50_mb_floor_and_v011_counts_two_flags():
    # ceil((2 + 1) x 4 / MiB) = 1 -> 50; ceil((13 x 2^20 + 1) x 4 / 2^20) = 53 > 50 (main);
    # DP = 12.5 x 2^20 - 1: main (DP + 1) x 4 = 50 MiB exactly -> 50; v0.11 (DP + 2) x 4 = 50 MiB + 4 B -> 51
    assert G.dp_buffer_mb(2, "main") == 50
    assert G.dp_buffer_mb(13 * MIB, "main") == 53
    assert G.dp_buffer_mb(MIB * 25 // 2 - 1, "main") == 50 and G.dp_buffer_mb(MIB * 25 // 2 - 1, "0.11.0") == 51


def test_communicators_per_layout():
    # TP1 DP16: no tp group (one rank); dp 50, ep 200, mc2 = HCCL_BUFFSIZE; PP2 adds pp 200
    got = G.communicators(G.Layout("main", tp=1, dp=16, pp=2), 1024, "HCCL_BUFFSIZE=1024")
    assert [(c.name, c.ranks, c.mb) for c in got] == [("pp", 2, 200), ("dp", 16, 50), ("ep", 16, 200),
                                                        ("mc2", 16, 1024)]
    assert sum(c.bytes for c in got) == 2 * (200 + 50 + 200 + 1024) * MIB


@pytest.mark.parametrize("release,has", [("main", True), ("0.13.0", False)])
def test_dynamic_eplb_group_only_on_main(release, has):
    got = G.communicators(G.Layout(release, tp=4, dp=4, dynamic_eplb=True), 200, "unset")
    assert (("dynamic_eplb", 16, 100) in [(c.name, c.ranks, c.mb) for c in got]) is has


def test_fine_grained_groups_one_per_distinct_size():
    # _group_cache keys on the size: lmhead 2 reuses otp's group (parallel_state.py:100-134)
    cfg = {"oproj_tensor_parallel_size": 2, "lmhead_tensor_parallel_size": 2, "mlp_tensor_parallel_size": 4}
    assert G.fine_grained_groups(cfg, None, "main") == (("otp", 2), ("mlptp", 4))
    assert G.fine_grained_groups(None, {"lmhead_tensor_parallel_size": 8}, "0.11.0") == (("lmheadtp", 8),)


# ---- vllm-ascend launches ----

@pytest.mark.parametrize("version", ["0.11.0", "0.13.0", "main"])
def test_dsr1_tutorial_table(version):
    # DP4 TP4 EP16, HCCL_BUFFSIZE unset (200), --gpu-memory-utilization 0.92 on A3:
    # tp 2 x 200 + dp 2 x 50 + ep 2 x 200 + mc2 2 x 200 = 1300 MiB = 1363148800 B;
    # outside = 64 GiB x 0.08 = 5497558138 B; headroom = 5497558138 - 1363148800 = 4134409338 B
    d = calls(DSR1_A3_SINGLE_NODE, version=version)["decode"]
    assert rows(d) == {"tp": 400, "dp": 100, "ep": 400, "mc2": 400}
    b = d.derived["memory_budget"]
    assert (b["total_bytes"], b["outside_fraction_bytes"], b["headroom_bytes"]) == (1363148800, 5497558138, 4134409338)
    assert b["framework_fraction_from"] == "--gpu-memory-utilization 0.92" and "MC954" not in codes(d.notes)


# The issue's text stops at "--gpu-m" in the copy read, so the fraction is the variable here; the other flags and
# HCCL_BUFFSIZE=1200 are the issue's.
ISSUE_10839 = """# https://github.com/vllm-project/vllm-ascend/issues/10839
export HCCL_BUFFSIZE={mb}
vllm serve MiniMaxAI/MiniMax-M2.7 --tensor-parallel-size 8 --data-parallel-size 2 --enable-expert-parallel \\
  --max-num-seqs 128 --max-model-len 131072 --max-num-batched-tokens 16384 --gpu-memory-utilization {util}
"""


@pytest.mark.parametrize("product", ["A2", "A3"])
@pytest.mark.parametrize("util,fires", [(0.9, False), (0.949, False), (0.95, True)])
def test_issue_10839_fraction(product, util, fires):
    # tp 2 x 200 + dp 2 x 50 + ep 2 x 200 + mc2 2 x 1200 = 3300 MiB on every rank
    # 0.949: 65536 x 0.051 = 3342.3 MiB >= 3300 (fits); 0.95: 65536 x 0.05 = 3276.8 MiB < 3300 -> MC954
    d = calls(ISSUE_10839.format(mb=1200, util=util), product=product, version="main")["decode"]
    assert rows(d) == {"tp": 400, "dp": 100, "ep": 400, "mc2": 2400}
    assert ("MC954" in codes(d.notes)) is fires
    if fires:
        note = next(n for n in d.notes if n.code == "MC954")
        # (65536 - 3300) / 65536 = 0.9496 -> <= 0.94; the note sits on the --gpu-memory-utilization flag (line 4)
        assert "set --gpu-memory-utilization <= 0.94" in note.message and "3.22 GB" in note.message
        assert note.span.line == 4 and "vllm-ascend#10839" in note.message


@pytest.mark.parametrize("mb,fires", [(1188, False), (1189, True)])
def test_issue_10839_hccl_buffsize(mb, fires):
    # at 0.95: 3276.8 MiB outside; 2 x 1188 + 900 = 3276 fits; 2 x 1189 + 900 = 3278 > 3276.8
    d = calls(ISSUE_10839.format(mb=mb, util=0.95), version="main")["decode"]
    assert ("MC954" in codes(d.notes)) is fires
    if fires:  # (int(64 GiB x 0.05) - 900 MiB) // 2 MiB = (3435973836 - 943718400) // 2097152 = 1188
        assert "set HCCL_BUFFSIZE <= 1188" in next(n.message for n in d.notes if n.code == "MC954")


def test_device_memory_override():
    # device_memory_gb 32 at the default 0.9: 32768 x 0.1 = 3276.8 MiB < 3300 -> MC954 (64 GiB: 6553.6, fits)
    text = ISSUE_10839.format(mb=1200, util=0.9)
    d = calls(text, version="main", memory=32)["decode"]
    assert "MC954" in codes(d.notes) and d.derived["memory_budget"]["device_from"] == "device_memory_gb"


def test_mc950_replaces_mc954_beyond_the_device():
    # 2 x 40000 MB alone > 65536 MB: the device, not the fraction, is the limit -> MC950 only (one finding)
    d = calls(serve("-dp 4 -tp 4 --max-num-seqs 16", env="HCCL_BUFFSIZE=40000"), version="main")["decode"]
    assert "MC950" in codes(d.notes) and "MC954" not in codes(d.notes)


def test_no_fraction_flag_points_at_the_hccl_export():
    # default 0.9: 6553.6 MiB outside; 2 x 2900 + 900 = 6700 > 6553.6 -> MC954 at the export (line 1)
    d = calls(serve("-dp 4 -tp 4 --max-num-seqs 16", env="HCCL_BUFFSIZE=2900"), version="main")["decode"]
    note = next(n for n in d.notes if n.code == "MC954")
    assert note.span.line == 1 and "--gpu-memory-utilization 0.9 " in note.message


def test_dcp_pp_dynamic_eplb_and_fine_grained_groups_in_the_table():
    text = serve("-dp 4 -tp 4 -pp 2 -dcp 2 --max-num-seqs 16 "
                 + ac(eplb_config={"dynamic_eplb": True}, finegrained_tp_config={"lmhead_tensor_parallel_size": 4}))
    got = rows(calls(text, version="main")["decode"])
    assert got == {"tp": 400, "dcp": 400, "pp": 400, "dp": 100, "ep": 400, "mc2": 400, "dynamic_eplb": 200,
                   "lmheadtp": 400}


@pytest.mark.parametrize("flags,cann,op", [
    (f"--max-num-seqs 16 --max-num-batched-tokens 4096 --speculative-config '{{\"num_speculative_tokens\": 3}}' "
     + ac(enable_fused_mc2=1), None, "mega_moe"),
    ("--max-num-seqs 16 " + ac(enable_fused_mc2=1), "9.0.1", "dispatch_ffn_combine")])
def test_fused_op_workspace_is_in_the_table(flags, cann, op):
    # the workspace row is the op's own derived workspace_bytes (backends/ascend/ops/<op>.py), counted in the total
    dp = 4 if op == "mega_moe" else 8
    lau = launch(serve(f"-dp {dp} -tp 4 " + flags))
    result = next(r for r in lint_launch_file(LaunchFile([lau]), "run.sh", ctx(version="main", cann=cann), Options())
                  if r.op == op)
    b = result.derived["memory_budget"]
    ws = b["buffers"][f"{op}_workspace"]["bytes"]
    assert ws == result.derived["workspace_bytes"] > 0
    assert b["total_bytes"] == ws + (400 + 100 + 400 + 400) * MIB  # tp, dp, ep, mc2 (HCCL_BUFFSIZE unset)


def test_a2_all_gather_call_has_no_table():
    # A2, EP 8 < 16: no MC2 op runs, the mc2 communicator is never used -> no table on the `none` call
    d = derive(serve("-dp 2 -tp 4 --max-num-seqs 16"), product="A2", version="main")
    assert all(c.kind == "none" and not c.derived for c in d.calls)


# ---- SGLang on Ascend ----

SGL = """export DEEPEP_HCCL_BUFFSIZE={deepep}
export HCCL_BUFFSIZE=300
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 16 --dp-size 2 --enable-dp-attention \\
  --moe-a2a-backend deepep --deepep-mode low_latency --cuda-graph-max-bs 32 {frac}
"""


@pytest.mark.parametrize("deepep,fires", [(1038, False), (1039, True)])
def test_sglang_deepep_group_and_attention_tp(deepep, fires):
    # On NPU moe_ep is its own group (sglang@0005973a parallel_state.py: `moe_ep_size == tp and not _is_npu`):
    # moe_ep (16 ranks): 2 x DEEPEP_HCCL_BUFFSIZE; tp (16 ranks) and attention_tp (16 / 2 = 8): 2 x HCCL_BUFFSIZE 300
    # --mem-fraction-static 0.95: 65536 x 0.05 = 3276.8 MiB; 2 x 1038 + 1200 = 3276 fits, 2 x 1039 + 1200 = 3278 not
    d = sgl_derive(SGL.format(deepep=deepep, frac="--mem-fraction-static 0.95"))
    call = d.calls[0]
    assert rows(call) == {"moe_ep=tp (DeepEP)": 2 * deepep, "tp": 600, "attention_tp": 600}
    assert ("MC954" in codes(call.notes)) is fires
    if fires:
        note = next(n for n in call.notes if n.code == "MC954")
        assert note.span.line == 4 and "--mem-fraction-static <= 0.94" in note.message
        # (3276.8 - 1200) / 2 = 1038.4 MiB -> DEEPEP_HCCL_BUFFSIZE <= 1038, the just-inside value
        assert "set DEEPEP_HCCL_BUFFSIZE <= 1038" in note.message


def test_sglang_hccl_buffsize_sizes_every_group():
    # DEEPEP_HCCL_BUFFSIZE unset: the three groups take HCCL_BUFFSIZE (moe_ep through the option's `or`), raised to
    # 1000: 3 x 2 x 1000 = 6000 MiB > 3276.8 at 0.95; every pair shrinks with it: 3276.8 / 6 = 546.1 -> <= 546
    text = SGL.format(deepep=0, frac="--mem-fraction-static 0.95").replace("export DEEPEP_HCCL_BUFFSIZE=0\n", "")
    text = text.replace("HCCL_BUFFSIZE=300", "HCCL_BUFFSIZE=1000")
    call = sgl_derive(text).calls[0]
    assert rows(call) == {"moe_ep=tp (DeepEP)": 2000, "tp": 2000, "attention_tp": 2000}
    assert "set HCCL_BUFFSIZE <= 546" in next(n.message for n in call.notes if n.code == "MC954")


def test_sglang_window_and_tp_rows_take_different_variables():
    # both set, DEEPEP_HCCL_BUFFSIZE smaller: moe_ep's option is DEEPEP_HCCL_BUFFSIZE 512 (`or` takes the first
    # set one), tp keeps the process HCCL_BUFFSIZE 300 (no option for a group without "moe" in its name)
    call = sgl_derive(SGL.format(deepep=512, frac="")).calls[0]
    assert rows(call) == {"moe_ep=tp (DeepEP)": 1024, "tp": 600, "attention_tp": 600}
    why = {k: v["from"] for k, v in call.derived["memory_budget"]["buffers"].items()}
    assert "DEEPEP_HCCL_BUFFSIZE=512" in why["moe_ep=tp (DeepEP)"] and "HCCL_BUFFSIZE=300" in why["tp"]


def test_sglang_without_fraction_has_no_headroom():
    call = sgl_derive(SGL.format(deepep=4000, frac="")).calls[0]
    b = call.derived["memory_budget"]
    assert "headroom_bytes" not in b and "not known statically" in b["framework_fraction"]
    assert "MC954" not in codes(call.notes)


# ---- bad input: one clear note, no traceback, no headroom ----

@pytest.mark.parametrize("value", ["1.5", "0", "abc", "$UNSET"])
def test_bad_fraction_gives_one_note_and_no_headroom(value):
    text = ISSUE_10839.format(mb=1200, util=value)
    d = derive(text, version="main")  # two calls (decode MC2, prefill all-to-all): the flag is read once
    assert codes(d.notes).count("MC023") == 1
    b = next(c for c in d.calls if c.kind == "ascend").derived["memory_budget"]
    assert "headroom_bytes" not in b and b["total_bytes"] == 3300 * MIB


@pytest.mark.parametrize("env", ["HCCL_BUFFSIZE=abc", "HCCL_BUFFSIZE=-5"])
def test_unusable_hccl_buffsize_gives_no_table(env):
    d = calls(serve("-dp 4 -tp 4 --max-num-seqs 16", env=env), version="main")["decode"]
    assert "memory_budget" not in d.derived and not {"MC950", "MC954"} & set(codes(d.notes))


@pytest.mark.parametrize("frac", ["--mem-fraction-static abc", "--mem-fraction-static 1.5"])
def test_sglang_unusable_fraction_has_no_verdict(frac):
    call = sgl_derive(SGL.format(deepep=4000, frac=frac)).calls[0]
    assert "headroom_bytes" not in call.derived["memory_budget"] and "MC954" not in codes(call.notes)
