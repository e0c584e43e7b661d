"""frameworks/sglang: SGLang launches on Ascend -> sgl-kernel-npu DeepEP calls, judged by MC890-MC899 / MC960-MC962.

Launch objects are built directly (no shell reader): `script()` turns `export NAME=VALUE` lines into EnvEntry and the
command lines into Words, each with its line and column, so findings can be checked at the feeding flag or env line.
"""
from __future__ import annotations

import pytest

from moecfg.backends import Options
from moecfg.checking.launch import lint_launch_file
from moecfg.frameworks import LaunchContext, recognise
from moecfg.frameworks import sglang
from moecfg.sources.launch import EnvEntry, Launch, LaunchFile, Word
from moecfg.sources.textmap import Span

MiB = 1 << 20
A3 = LaunchContext(product="A3", product_source="--product")
A2 = LaunchContext(product="A2", product_source="--product")


def script(text: str, image: str | None = None) -> Launch:
    env, words = {}, []
    for n, line in enumerate(text.strip("\n").splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("export "):
            name, _, value = stripped[7:].partition("=")
            col = line.index(name) + 1
            env[name] = EnvEntry(name, value, Span(n, col, n, col + len(name) + 1 + len(value)))
            continue
        col = 0
        for w in stripped.rstrip("\\").split():
            col = line.index(w, col)
            words.append(Word(w, Span(n, col + 1, n, col + 1 + len(w))))
            col += len(w)
    return Launch(tuple(words), env, image=image)


def derive(text: str, ctx=A3, image=None):
    launch = script(text, image)
    return sglang.derive(launch, ctx)


def lint(text: str, ctx=A3, image=None):
    return lint_launch_file(LaunchFile([script(text, image)]), "run.sh", ctx, Options())


def codes(results) -> list:
    return sorted({d.code for r in results for d in r.diagnostics})


def by_op(results, op):
    return next(r for r in results if r.op == op)


# ---- recognition and dispatch by device ----------------------------------------------------------------------

@pytest.mark.parametrize("command, yes", [
    ("python -m sglang.launch_server --model-path x", True), ("python3 -m sglang.launch_server --tp 2", True),
    ("/usr/bin/python3.11 -m sglang.launch_server", True), ("sglang serve --model-path x", True),
    ("python -m sglang.bench_serving --model x", False), ("vllm serve x", False), ("python train.py", False)])
def test_recognise(command, yes):
    launch = script(command)
    assert sglang.recognise(launch) is yes
    assert (recognise(launch) is sglang) is yes


def test_gpu_launch_goes_to_gpu_py():  # the NVIDIA derivation is tested in test_sglang_gpu.py
    d = derive("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --moe-a2a-backend deepep",
               ctx=LaunchContext())
    assert [(c.kind, c.arguments["mode"]) for c in d.calls] == [("deepep", "auto")]


@pytest.mark.parametrize("text, ctx", [
    ("python -m sglang.launch_server --device npu --model-path deepseek-ai/DeepSeek-V3", LaunchContext()),
    ("export HCCL_BUFFSIZE=1024\npython -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3", LaunchContext()),
    ("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3", A3)])
def test_ascend_is_recognised_by_device_env_or_product(text, ctx):
    assert sglang.on_ascend(script(text), ctx, sglang.parse_flags(script(text).argv[3:], sglang.ascend.FLAGS)
                            .value("--device"))


def test_product_unknown_is_mc042_without_calls():
    d = derive("python -m sglang.launch_server --device npu --model-path deepseek-ai/DeepSeek-V3 "
               "--moe-a2a-backend deepep --tp 16", ctx=LaunchContext())
    assert d.calls == [] and "MC042" in [n.code for n in d.notes]


def test_model_unknown_is_mc042_at_the_model_flag():
    text = "python -m sglang.launch_server --device npu --model-path /data/model --moe-a2a-backend deepep"
    d = derive(text)
    note = [n for n in d.notes if n.code == "MC042"][0]
    assert d.calls == [] and note.span.column == text.index("--model-path") + 1 and "models:" in note.message


def test_other_a2a_backend_runs_no_deepep():
    d = derive("python -m sglang.launch_server --device npu --model-path deepseek-ai/DeepSeek-V3 --tp 16")
    assert [(c.kind, c.role) for c in d.calls] == [("none", "serve")] and "none" in d.calls[0].why_none


def test_image_tag_pins_the_version():
    d = derive("python -m sglang.launch_server --device npu --model-path x", image="lmsysorg/sglang:v0.5.4-cann8.3-a3")
    # the result names the version the image runs and the table it was derived with (one table: the newest read)
    # issue 36 item 9: the version the launch runs, not "(derived as main-...)": its own release facts are used
    assert d.version == "0.5.4" and "derived as" not in d.version and not [n for n in d.notes if n.code == "MC040"]


# ---- published launches ----------------------------------------------------------------------------------------

# https://github.com/sgl-project/sglang/blob/0ec96eab063d6435dfa71f93599885af1e59b9ce/docs/platforms/ascend_npu_deepseek_example.md
# "Running DeepSeek in PD mixed mode on 1 x Atlas 800I A3" (MODEL_PATH = the W4A8 weights the page links)
PD_MIXED = """
export DEEP_NORMAL_MODE_USE_INT8_QUANT=1
export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=32
export HCCL_BUFFSIZE=1600
python3 -m sglang.launch_server --model-path Modelers_Park/DeepSeek-R1-0528-w4a8 --tp 16 --trust-remote-code \\
    --attention-backend ascend --device npu --quantization modelslim --watchdog-timeout 9000 \\
    --cuda-graph-bs 8 16 24 28 32 --mem-fraction-static 0.68 --max-running-requests 128 --context-length 8188 \\
    --disable-radix-cache --chunked-prefill-size -1 --max-prefill-tokens 16384 --moe-a2a-backend deepep \\
    --deepep-mode auto --enable-dp-attention --dp-size 4 --enable-dp-lm-head --speculative-algorithm NEXTN \\
    --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --dtype bfloat16
"""


def test_pd_mixed_derivation():
    d = derive(PD_MIXED)
    normal, ll = d.calls
    assert (normal.role, normal.op, ll.role, ll.op) == ("prefill", "sgl_deepep_normal", "decode", "sgl_deepep_low_latency")
    # EP = tp 16; DP attention: 16 / 4 = 4 attention-TP ranks per DP group
    assert normal.arguments["ep_world_size"] == ll.arguments["ep_world_size"] == 16
    # chunking off: max(--max-prefill-tokens 16384, --context-length 8188) = 16384 per DP group / 4 ranks = 4096
    assert normal.arguments["bs"] == 4096 and "16384" in normal.derivation["bs"]
    # decode: max(--cuda-graph-bs) 32 per DP rank x 4 draft tokens / 4 ranks = 32 = T
    assert ll.arguments["bs"] == 32 == ll.arguments["num_max_dispatch_tokens_per_rank"]
    # --quantization modelslim with dtype auto: BF16 assumed (SGLang overrides DEEP_NORMAL_MODE_USE_INT8_QUANT)
    assert normal.arguments["quant_mode"] == "bf16" and ll.arguments["use_fp8"] is False
    assert normal.arguments["hccl_buffer_size"] == 1600 and (normal.arguments["h"], normal.arguments["num_experts"]) == (7168, 256)


def test_pd_mixed_findings():
    results = lint(PD_MIXED)
    normal = by_op(results, "sgl_deepep_normal")
    # a full 4096-token prefill batch per rank: (4096 * 8 * (14848 + 14336) + 106 MiB) * 2 = (912 + 106) * 2 MiB = 2036 MB
    assert normal.buffers["ep"]["required_bytes"] == 2036 * MiB
    d = [d for d in normal.diagnostics if d.code == "MC898"][0]
    assert (d.line, d.column) == (3, 8) and "set HCCL_BUFFSIZE >= 2036" in d.message  # at `export HCCL_BUFFSIZE`
    ll = by_op(results, "sgl_deepep_low_latency")
    # bf16 T 32: 2 * (32 * 14848 * 16 * 16 + 32 * 14336 * 8) = 2 * (121,634,816 + 3,670,016) = 250,609,664 B (239 MB)
    assert ll.buffers["ep"]["required_bytes"] == 250_609_664 and codes([ll]) == []
    assert "MC040" in codes([normal])  # launch-wide notes appear once, on the launch's first op call


# same page, "PD disaggregation mode on 2 x Atlas 800I A3", 1. Prefill
PD_PREFILL = """
export DEEP_NORMAL_MODE_USE_INT8_QUANT=1
export HCCL_BUFFSIZE=1536
python -m sglang.launch_server --model-path Modelers_Park/DeepSeek-R1-0528-w4a8 --disaggregation-mode prefill \\
    --trust-remote-code --nnodes 1 --node-rank 0 --tp-size 16 --mem-fraction-static 0.6 --attention-backend ascend \\
    --device npu --quantization modelslim --max-running-requests 8 --context-length 8192 --disable-radix-cache \\
    --chunked-prefill-size -1 --max-prefill-tokens 28680 --moe-a2a-backend deepep --deepep-mode normal \\
    --speculative-algorithm NEXTN --speculative-num-draft-tokens 4 --dp-size 2 --enable-dp-attention
"""


def test_pd_prefill():
    results = lint(PD_PREFILL)
    assert [(r.op, r.launch["role"]) for r in results] == [("sgl_deepep_normal", "prefill")]
    r = results[0]
    # max(28680, 8192) = 28680 per DP group over 16 / 2 = 8 ranks: ceil(28680 / 8) = 3585 tokens per rank
    assert r.arguments["bs"] == 3585
    # (3585 * 8 * 29184 + 106 MiB) * 2 = (836,997,120 + 111,149,056) * 2 = 1,896,292,352 B -> 1809 MB > 1536
    assert r.buffers["ep"]["required_bytes"] == 1_896_292_352 and r.buffers["ep"]["required_mb"] == 1809
    assert "MC898" in codes(results)


# same page, 2. Decode
PD_DECODE = """
export HCCL_BUFFSIZE=720
export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=88
python -m sglang.launch_server --model-path Modelers_Park/DeepSeek-R1-0528-w4a8 --disaggregation-mode decode \\
    --tp-size 16 --dp-size 16 --mem-fraction-static 0.8 --max-running-requests 352 --attention-backend ascend \\
    --device npu --quantization modelslim --moe-a2a-backend deepep --enable-dp-attention --deepep-mode low_latency \\
    --enable-dp-lm-head --cuda-graph-bs 8 10 12 14 16 18 20 22 --context-length 8192 --speculative-algorithm NEXTN \\
    --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --dtype bfloat16
"""


def test_pd_decode_is_clean():
    results = lint(PD_DECODE)
    assert [(r.op, r.launch["role"]) for r in results] == [("sgl_deepep_low_latency", "decode")]
    r = results[0]
    # 22 requests per DP rank x 4 draft tokens over 16 / 16 = 1 rank = 88 = T (the page sets T to exactly that)
    assert r.arguments["bs"] == 88 == r.arguments["num_max_dispatch_tokens_per_rank"]
    # 2 * (88 * 14848 * 16 * 16 + 88 * 14336 * 8) = 2 * (334,495,744 + 10,092,544) = 689,176,576 B -> 658 MB <= 720
    assert r.buffers["ep"]["required_bytes"] == 689_176_576 and r.buffers["ep"]["required_mb"] == 658
    assert codes(results) == ["MC040"]


# same page, "PD disaggregation on 4 x Atlas 800I A3", decode loop body (two nodes, tp 32 dp 32)
DECODE_4NODE = """
export HCCL_BUFFSIZE=650
export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=78
python -m sglang.launch_server --model-path State_Cloud/Deepseek-R1-bf16-hfd-w8a8 --disaggregation-mode decode \\
    --nnodes 2 --tp-size 32 --dp-size 32 --max-running-requests 832 --device npu --quantization modelslim \\
    --moe-a2a-backend deepep --enable-dp-attention --deepep-mode low_latency --cuda-graph-bs 12 14 16 18 20 22 24 26 \\
    --context-length 8192 --speculative-algorithm NEXTN --speculative-num-draft-tokens 3
"""


def test_decode_4node_is_clean():
    results = lint(DECODE_4NODE, ctx=LaunchContext(product="A3", models=(("*", "deepseek-v3"),)))
    r = results[0]
    # 26 x 3 = 78 = T; 2 * (78 * 14848 * 32 * 8 + 78 * 14336 * 8) = 2 * (296,484,864 + 8,945,664) = 610,861,056 B
    assert r.arguments["bs"] == 78 and r.buffers["ep"]["required_bytes"] == 610_861_056
    assert r.buffers["ep"]["required_mb"] == 583 and codes(results) == ["MC040"]


# ---- branches ----------------------------------------------------------------------------------------------------

BASE = ("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --device npu --tp-size 16 "
        "--moe-a2a-backend deepep ")


def test_ep_size_flag_is_overridden_and_redundant_experts_add():
    normal = derive(BASE + "--ep-size 8 --ep-num-redundant-experts 16 --chunked-prefill-size 4096").calls[0]
    assert normal.arguments["ep_world_size"] == 16 and "overridden" in normal.derivation["ep_world_size"]
    assert normal.arguments["num_experts"] == 256 + 16
    assert normal.arguments["bs"] == 4096 // 16  # no DP attention: the chunk is scattered over the 16 TP ranks


def test_chunk_bounded_by_max_prefill_tokens():
    normal = derive(BASE + "--chunked-prefill-size 65536 --max-prefill-tokens 16384").calls[0]
    assert normal.arguments["bs"] == 16384 // 16


@pytest.mark.parametrize("flags, int8", [("", False), ("--deepep-dispatcher-output-dtype int8 ", True),
                                          ("--deepep-dispatcher-output-dtype fp8 ", True),
                                          ("--deepep-dispatcher-output-dtype bf16 ", False)])
def test_dispatch_dtype(flags, int8):
    normal, ll = derive(BASE + flags + "--chunked-prefill-size 4096").calls
    assert (normal.arguments["quant_mode"] == "int8") is int8 and ll.arguments["use_fp8"] is int8


def test_bf16_dispatch_env():
    text = "export SGLANG_DEEPEP_BF16_DISPATCH=true\n" + BASE + "--deepep-dispatcher-output-dtype auto"
    assert "SGLANG_DEEPEP_BF16_DISPATCH" in derive(text).calls[1].derivation["use_fp8"]


@pytest.mark.parametrize("flags, bs", [
    ("--cuda-graph-max-bs 64 ", 64 // 16 or 1),  # 64 requests / 16 TP ranks = 4
    ("--max-running-requests 32 ", 2),  # 32 / 16
    ("--max-running-requests 64 --enable-dp-attention --dp-size 4 ", 4),  # ceil(64 / 4) = 16 per DP rank / 4 ranks
    ("--cuda-graph-bs 4 8 --speculative-algorithm EAGLE --speculative-num-draft-tokens 4 ", 2),  # 8 x 4 / 16
    ("", 128)])  # nothing bounds the decode batch: T (default 128)
def test_decode_tokens(flags, bs):
    ll = derive(BASE + flags).calls[-1]
    assert ll.arguments["bs"] == bs and ll.arguments["num_max_dispatch_tokens_per_rank"] == 128


def test_decode_batch_above_t_points_at_the_cuda_graph_flag():
    results = lint("export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=16\n" + BASE +
                   "--enable-dp-attention --dp-size 16 --cuda-graph-bs 8 32 --chunked-prefill-size 4096")
    d = [d for d in by_op(results, "sgl_deepep_low_latency").diagnostics if d.code == "MC894"][0]
    assert d.line == 2 and "exceed num_max_dispatch_tokens_per_rank = 16" in d.message


def test_low_latency_mode_sends_prefill_chunks_through_low_latency():
    results = lint(BASE + "--deepep-mode low_latency --chunked-prefill-size 8192")
    r = results[0]
    assert (r.op, r.launch["role"], r.arguments["bs"]) == ("sgl_deepep_low_latency", "serve", 512)
    assert "MC894" in codes(results)  # 8192 / 16 = 512 tokens per rank > T = 128


def test_normal_mode_only_normal():
    assert [c.op for c in derive(BASE + "--deepep-mode normal --chunked-prefill-size 4096").calls] == ["sgl_deepep_normal"]


def test_normal_mode_on_a_decode_server_dispatches_decode_batches():
    call = derive(BASE + "--deepep-mode normal --disaggregation-mode decode --cuda-graph-bs 16 32").calls[0]
    assert (call.role, call.op, call.arguments["bs"]) == ("decode", "sgl_deepep_normal", 2)  # 32 / 16 ranks


@pytest.mark.parametrize("value, fires", [("1024", False), ("1025", True), ("0", True)])
def test_token_cap_mc961(value, fires):
    d = derive(f"export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK={value}\n" + BASE + "--chunked-prefill-size 4096")
    notes = [n for n in d.notes if n.code == "MC961"]
    assert bool(notes) is fires and (not fires or notes[0].span.line == 1)


@pytest.mark.parametrize("flags, severity", [("--chunked-prefill-size -1 ", None), ("", "info"),
                                              ("--chunked-prefill-size -1 --context-length 8192 ", "none")])
def test_unbounded_prefill_mc962(flags, severity):
    d = derive(BASE + flags)
    notes = [n for n in d.notes if n.code == "MC962"]
    if severity == "none":
        assert not notes and d.calls[0].arguments["bs"] == 16384 // 16  # max(16384 default, 8192) / 16
    else:
        assert notes[0].severity == severity and d.calls[0].arguments["bs"] == 8192  # the capacity, assumed


@pytest.mark.parametrize("image, ctx, fires", [
    ("lmsysorg/sglang:v0.5.4-cann8.3.rc1-a3", A2, True), ("lmsysorg/sglang:v0.5.4-cann8.3.rc1-910b", A2, False),
    ("lmsysorg/sglang:v0.5.4-cann8.3.rc1-910b", A3, True), ("lmsysorg/sglang:v0.5.4-cann8.3.rc1-a3", A3, False),
    (None, A2, False)])
def test_image_build_mc960(image, ctx, fires):
    d = derive(BASE + "--chunked-prefill-size 4096", ctx=ctx, image=image)
    notes = [n for n in d.notes if n.code == "MC960"]
    assert bool(notes) is fires
    if fires and ctx is A2:
        assert "#238/#239" in notes[0].message


def test_a2_launch_reaches_the_a2_kernels_and_env_rules():
    text = "export HCCL_OP_EXPANSION_MODE=AIV\nexport HCCL_BUFFSIZE=4096\n" + BASE + "--chunked-prefill-size 8192"
    results = lint(text, ctx=A2)
    normal, ll = by_op(results, "sgl_deepep_normal"), by_op(results, "sgl_deepep_low_latency")
    assert normal.derived["tiling"].startswith("DispatchNormalA2") and ll.derived["comm_alg"] == "fullmesh"
    env = [d for d in normal.diagnostics if d.code == "MC897" and "HCCL_OP_EXPANSION_MODE" in d.message][0]
    assert (env.line, env.severity) == (1, "warning")


def test_deepep_hccl_buffsize_sets_the_moe_group_window():
    # Both set, DEEPEP_HCCL_BUFFSIZE larger. The window: DeepEP runs on the standalone NPU group "moe_ep"
    # (sglang layer.py _get_deepep_comm_group, PR #29030), created with hccl_buffer_size = int(DEEPEP_HCCL_BUFFSIZE
    # or HCCL_BUFFSIZE or 200) = 2048 (parallel_state.py @0005973a). The tiling check: sgl-kernel-npu@f425bdf
    # mc2_tiling_utils.h L25 reads DEEPEP_HCCL_BUFFSIZE when set = 2048. They agree: no MC899 although HCCL_BUFFSIZE
    # is 400 (needs 668 MB: test below).
    text = "export DEEPEP_HCCL_BUFFSIZE=2048\nexport HCCL_BUFFSIZE=400\n" + BASE + "--chunked-prefill-size 16384"
    results = lint(text)
    normal = by_op(results, "sgl_deepep_normal")
    assert normal.arguments["hccl_buffer_size"] == 2048 and "MC899" not in codes(results)
    assert (normal.buffers["ep"]["configured_mb"], normal.buffers["ep"]["configured_from"]) == \
        (2048, "DEEPEP_HCCL_BUFFSIZE")
    why = normal.derivation["hccl_buffer_size"]
    assert why.startswith("2048 <-") and '"moe_ep"' in why and "#29030" in why
    assert derive(text).calls[0].sources["hccl_buffer_size"][0].line == 1  # the DEEPEP_HCCL_BUFFSIZE export


def test_smaller_deepep_hccl_buffsize_wins_over_a_large_hccl_buffsize():
    # Both set, DEEPEP_HCCL_BUFFSIZE smaller: window and tiling both take 400 (the `or` and the getenv order pick
    # DEEPEP_HCCL_BUFFSIZE first), so HCCL_BUFFSIZE 4096 does not help. Normal, bs 16384 / 16 = 1024, h 7168, k 8:
    # (1024 x 8 x (14848 + 14336) + 4 MiB + 102 MiB) x 2 = 700448768 B = 668 MB > 400 -> MC898 at the export (line 1)
    text = "export DEEPEP_HCCL_BUFFSIZE=400\nexport HCCL_BUFFSIZE=4096\n" + BASE + "--chunked-prefill-size 16384"
    normal = by_op(lint(text), "sgl_deepep_normal")
    assert normal.arguments["hccl_buffer_size"] == 400 and normal.buffers["ep"]["required_mb"] == 668
    mc898 = [d for d in normal.diagnostics if d.code == "MC898"]
    assert len(mc898) == 1 and mc898[0].line == 1 and "set DEEPEP_HCCL_BUFFSIZE >= 668" in mc898[0].message
    assert "MC899" not in {d.code for d in normal.diagnostics}


@pytest.mark.parametrize("env, window, line", [
    ("export HCCL_BUFFSIZE=1000\n", 1000, 1),  # DEEPEP unset: the option falls to HCCL_BUFFSIZE
    ("", 200, None),  # neither: SGLang's `or 200` (HCCL's own default is 200 too)
])
def test_window_falls_back_like_sglangs_or(env, window, line):
    call = derive(env + BASE + "--chunked-prefill-size 16384").calls[0]
    assert call.arguments["hccl_buffer_size"] == window
    assert [s.line for s in call.sources["hccl_buffer_size"]] == ([line] if line else [])


def test_end_to_end_through_the_shell_reader(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "pd_mixed.sh"
    path.write_text("#!/bin/bash\n" + PD_MIXED.lstrip("\n"), encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-m", "moecfg", "check", "--product", "A3", "--format", "json", str(path)],
                       capture_output=True, text=True, cwd=root)
    results = json.loads(r.stdout)["results"]
    assert [x["op"] for x in results] == ["sgl_deepep_normal", "sgl_deepep_low_latency"] and r.returncode == 1
    mc898 = [d for d in results[0]["diagnostics"] if d["code"] == "MC898"][0]
    assert mc898["line"] == 4  # `export HCCL_BUFFSIZE=1600`, after the shebang
