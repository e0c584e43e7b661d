"""frameworks/sglang/gpu.py: SGLang with --moe-a2a-backend deepep on NVIDIA GPUs -> one DeepEP Buffer per rank, and
the low-latency token cap against the launch (MC975-MC977).

DeepSeek-V3 shapes (hidden 7168, 256 experts, top-8). Low-latency RDMA hint, hand-computed (R does not enter it):
dispatch msg 16 + 2 x 7168 = 14352, combine msg 7168 / 128 x 4 + 2 x 7168 = 14560, send = recv = 256 x T x 14560,
signalling 1024: (2 send + 2 recv + 2 x 1024 + 128) // 128 x 128 = 4 x 256 x T x 14560 + 2176.
Normal-mode NVL hints for 8 ranks (20 SMs, DeepEP's default configs): 335,709,824 B with hidden x 2 and 188,909,184 B
with hidden x 1 (the MC644 rule figures).
"""
from __future__ import annotations

import json

import pytest
from gpu_helpers import FIXTURES, H200, codes, derive, finding, lint, note_codes

from moecfg.backends.deepep.arguments import elastic_buffer_bytes, normal_hint_bytes
from moecfg.frameworks import LaunchContext

SRV = "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --moe-a2a-backend deepep"
DPA16 = f"{SRV} --tp 16 --dp 16 --enable-dp-attention"


def ll_hint(t: int) -> int:
    return 4 * 256 * t * 14560 + 2176


def call(text, ctx=LaunchContext()):
    (c,) = derive(text, ctx).calls
    return c


def test_default_auto_mode_one_buffer_fp8_sizing():
    c = call(f"{SRV} --tp 8")
    a = c.arguments
    assert (a["mode"], a["num_ranks"], a["dtype"], a["num_max_dispatch_tokens_per_rank"]) == ("auto", 8, "fp8", 128)
    # auto: NVL = the normal hint with hidden x 1 (FP8 params_bytes), RDMA = max(normal 0 intranode, LL hint T 128)
    assert (a["num_nvl_bytes"], a["num_rdma_bytes"]) == (188_909_184, ll_hint(128)) and ll_hint(128) == 1_908_410_496
    assert a["num_qps_per_rank"] == max(20, 256 // 8) == 32
    assert a["env"] == {"NVSHMEM_QP_DEPTH": "1024"}  # max(unset, 1024, 2 x 129) (PR #34923)
    # SGLang's FP8 sizing is below DeepEP's BF16 combine check: the deepep kind reports it (MC644)
    assert "MC644" in codes(lint(f"{SRV} --tp 8"))


@pytest.mark.parametrize("flag, dtype, nvl", [("--moe-runner-backend cutlass", "bf16", 335_709_824),
                                              ("--deepep-dispatcher-output-dtype bf16", "bf16", 335_709_824),
                                              ("--deepep-dispatcher-output-dtype fp8", "fp8", 188_909_184)])
def test_dispatch_dtype_decides_params_bytes(flag, dtype, nvl):
    a = call(f"{SRV} --tp 8 {flag}").arguments
    assert (a["dtype"], a["num_nvl_bytes"]) == (dtype, nvl)


def test_bf16_env_and_no_mc644():
    text = f"export SGLANG_DEEPEP_BF16_DISPATCH=1\n{SRV} --tp 8"
    assert call(text).arguments["num_nvl_bytes"] == 335_709_824 and "MC644" not in codes(lint(text))


def test_low_latency_and_normal_modes():
    ll = call(f"{SRV} --tp 16 --deepep-mode low_latency").arguments
    assert (ll["num_nvl_bytes"], ll["num_rdma_bytes"], ll["num_qps_per_rank"]) == (0, ll_hint(128), 16)
    normal = call(f"{SRV} --tp 16 --deepep-mode normal").arguments
    assert normal["num_qps_per_rank"] == 20 and "num_max_dispatch_tokens_per_rank" not in normal
    assert (normal["num_nvl_bytes"], normal["num_rdma_bytes"]) == normal_hint_bytes(7168, 16)


def test_deepep_config_inline_json():
    cfg = {"normal_dispatch": {"num_sms": 24, "num_max_nvl_chunked_send_tokens": 8,
                               "num_max_nvl_chunked_recv_tokens": 256, "num_max_rdma_chunked_send_tokens": 6,
                               "num_max_rdma_chunked_recv_tokens": 128},
           "normal_combine": {"num_sms": 24, "num_max_nvl_chunked_send_tokens": 4,
                              "num_max_nvl_chunked_recv_tokens": 256, "num_max_rdma_chunked_send_tokens": 6,
                              "num_max_rdma_chunked_recv_tokens": 128}}
    a = call(f"{SRV} --tp 16 --deepep-mode normal --deepep-config '{json.dumps(cfg)}'").arguments
    assert a["num_sms"] == 24 and a["num_qps_per_rank"] == 24
    assert (a["num_nvl_bytes"], a["num_rdma_bytes"]) == normal_hint_bytes(7168, 16, 24, [8, 256, 6, 128],
                                                                          [4, 256, 6, 128])


def test_deepep_config_file_and_unreadable(tmp_path):
    (tmp_path / "deepep.json").write_text(json.dumps({"normal_dispatch": {"num_sms": 32}, "normal_combine":
                                                      {"num_sms": 32}}))
    ctx = LaunchContext(settings_dir=str(tmp_path))
    assert call(f"{SRV} --tp 8 --deepep-config deepep.json", ctx).arguments["num_sms"] == 32
    d = derive(f"{SRV} --tp 8 --deepep-config missing.json", ctx)
    assert "MC023" in note_codes(d) and d.calls[0].arguments["num_sms"] == 20
    bad = derive(f"{SRV} --tp 8 --deepep-config '{{\"normal_dispatch\": 1}}'", ctx)
    assert "MC021" in note_codes(bad)


def test_deepep_v2_elastic_buffer_matches_the_published_figure():
    # sglang PR #24443 review: 2 nodes x 8, hybrid, num_max_tokens_per_rank 4096, hidden 7168, BF16, topk 8:
    # "Initializing EP elastic buffer with 1218445312 bytes (1.13 GiB/rank)"
    # deepep_v2 reads its own variable since it relanded (sglang==0.5.19 .. 0.5.23 environ.py:1441, frameworks/sglang/
    # releases.py); the V1 variable beside it is not its cap
    text = ("export SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK=4096\n"
            "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --moe-a2a-backend deepep_v2 --tp 16 "
            "--deepep-dispatcher-output-dtype bf16")
    res = lint(text, H200)
    assert res[0].arguments["api"] == "v2" and res[0].arguments["num_max_tokens_per_rank"] == 4096
    v1 = lint(text.replace("DEEPEP_V2_NUM", "DEEPEP_NUM"), H200)
    assert v1[0].arguments["num_max_tokens_per_rank"] == 128
    assert elastic_buffer_bytes(16, 4096, 7168, 8) == 1_218_445_312
    assert res[0].derived["memory_budget"]["buffers"]["deepep_v2_elastic"]["bytes"] == 1_218_445_312


def test_other_backends_and_unknown_model():
    (c,) = derive("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8").calls
    assert c.kind == "none" and "--moe-a2a-backend none" in c.why_none
    d = derive("python3 -m sglang.launch_server --model-path /models/x --tp 8 --moe-a2a-backend deepep")
    assert d.calls == [] and "MC042" in note_codes(d)


def test_cuda_graph_cap_just_inside_and_outside():
    # DP attention 16/16: 1 attention-TP rank; EAGLE with 4 draft tokens: 32 x 4 = 128 = T (inside), 33 x 4 = 132
    spec = "--speculative-algorithm EAGLE --speculative-num-draft-tokens 4"
    assert "MC975" not in codes(lint(f"{DPA16} --cuda-graph-max-bs 32 {spec}"))
    d = finding(lint(f"{DPA16} --cuda-graph-max-bs 33 {spec}"), "MC975")
    assert "132 tokens per rank" in d.message and "--cuda-graph-max-bs to 32" in d.message
    assert d.column == len(DPA16) + 2  # at --cuda-graph-max-bs (no cap env to raise)
    # with the cap exported, the finding points at it and names the value to set
    d = finding(lint(f"export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128\n{DPA16} --cuda-graph-bs 1 2 64 "
                     f"{spec}"), "MC975")
    assert d.line == 1 and "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK >= 256" in d.message


def test_running_requests_cap_just_inside_and_outside():
    # SGLang floors: 2063 // dp 16 = 128 = T (inside); 2064 // 16 = 129 > 128 (model_runner.py max_running_requests)
    assert "MC976" not in codes(lint(f"{DPA16} --max-running-requests 2063"))
    d = finding(lint(f"{DPA16} --max-running-requests 2064"), "MC976")
    assert "129 tokens per rank" in d.message and "--max-running-requests to 2048" in d.message


def test_normal_mode_has_no_cap_rules():
    assert not {"MC975", "MC976"} & set(codes(lint(f"{DPA16} --deepep-mode normal --max-running-requests 9999")))


def test_low_latency_prefill_chunk_just_inside_and_outside():
    # no DP attention, tp 8: a chunk is split over 8 attention-TP ranks: 1024 / 8 = 128 = T; 1032 / 8 = 129
    base = f"{SRV} --tp 8 --deepep-mode low_latency --chunked-prefill-size"
    assert "MC977" not in codes(lint(f"{base} 1024"))
    assert "129" in finding(lint(f"{base} 1032"), "MC977").message
    assert "MC977" not in codes(lint(f"{base} 1032 --disaggregation-mode decode"))  # decode servers do not prefill


def test_qp_depth_raised_by_new_sglang_only():
    text = f"export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=1024\n{DPA16} --deepep-mode low_latency"
    # 2 x (1024 + 1) = 2050: SGLang main sets it (PR #34923); a pinned release keeps DeepEP's 1024 -> MC641
    assert call(text).arguments["env"] == {"NVSHMEM_QP_DEPTH": "2050"} and "MC641" not in codes(lint(text))
    from gpu_helpers import launch_file
    from moecfg.backends import Options
    from moecfg.checking.launch import lint_launch_file

    lf = launch_file(text)
    lf.launches[0].image = "lmsysorg/sglang:v0.5.4-cu129"
    assert "MC641" in codes(lint_launch_file(lf, "t", LaunchContext(), Options()))


def test_gpu_evidence_beats_the_settings_ascend_product():
    a3 = LaunchContext(product="A3", device="H200")
    d = derive(f"export NVSHMEM_IB_ENABLE_IBGDA=1\n{SRV} --tp 8", a3)
    assert d.calls[0].kind == "deepep" and d.calls[0].arguments["device"] == "H200"
    assert derive(f"{SRV} --tp 8", a3).calls[0].kind == "ascend"  # no sign of a GPU: the settings' A3 decides


def test_memory_budget_mem_fraction_static():
    # low_latency tp 16 T 128: rdma 1,908,410,496 + nvl 0 + workspace 33,554,432 = 1,941,964,928 B;
    # H200 141 GiB outside 0.98: int(151,397,597,184 x 0.02) = 3,027,951,943 (fits); 0.99: 1,513,975,971 (does not)
    base = f"{SRV} --tp 16 --deepep-mode low_latency --mem-fraction-static"
    ok = lint(f"{base} 0.98", H200)
    assert ok[0].derived["memory_budget"]["total_bytes"] == ll_hint(128) + (32 << 20) == 1_941_964_928
    assert "MC985" not in codes(ok)
    assert "--mem-fraction-static <= 0.98" in finding(lint(f"{base} 0.99", H200), "MC985").message
    unknown = lint(f"{SRV} --tp 16", H200)[0].derived["memory_budget"]
    assert "not known statically" in unknown["framework_fraction"] and "headroom_bytes" not in unknown


def test_srt_slurm_gb200_max_tpt_recipe():
    text = (FIXTURES / "srt-slurm-gb200-fp4-1k1k-max-tpt.yaml").read_text()
    ctx = LaunchContext(models=(("dsr1-fp4", "deepseek-r1"),))
    res = lint(text, ctx, yaml=True)
    roles = {r.launch["role"]: r for r in res}
    assert roles["prefill"].op == "none"  # the prefill phase sets no --moe-a2a-backend
    decode = roles["decode"]
    a = decode.arguments
    # tp 48 = EP, 256 + 32 redundant experts, T 1024 from decode_environment, gpu_type gb200 -> GB200
    assert (a["num_ranks"], a["num_experts"], a["num_max_dispatch_tokens_per_rank"], a["device"]) == (48, 288, 1024,
                                                                                                      "GB200")
    # srt-slurm#42/#44: 67584 running requests / dp 48 = 1408 per rank > 1024; raising the cap cannot help, so the
    # finding points at `max-running-requests: 67584` (line 154) and names 48 x 1024 = 49152
    d = finding(res, "MC976")
    assert (d.line, d.column) == (154, 7) and "1408 tokens per rank" in d.message and "49152" in d.message


def test_qp_depth_pinned_by_settings_version():
    text = f"export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=1024\n{DPA16} --deepep-mode low_latency"
    pinned = LaunchContext(framework_versions=(("sglang", "0.5.4"),))
    assert "env" not in call(text, pinned).arguments and "MC641" in codes(lint(text, pinned))


def test_unknown_values_are_not_guessed():
    d = derive(f"{SRV} --tp $TP")  # TP set nowhere: no Buffer (ep = tp), MC023
    assert d.calls == [] and "MC023" in note_codes(d)
    d = derive(f"{DPA16} --max-running-requests $MRR")
    assert d.calls[0].kind == "deepep" and "MC023" in note_codes(d) and "MC976" not in note_codes(d)


def test_mc644_is_an_error_only_when_the_launch_runs_main():
    """MC644 holds for SGLang main after 0.5.23 (1-byte FP8 sizing); every release sizes with 2 bytes. A launch that
    gives no version (XiaomiMiMo/MiMo-V2-Flash@main README.md:208, which pins a 0.5.6 build with pip) is derived as
    main, but its MC644 is a warning saying so; a development image keeps the error; a release has none."""
    from moecfg.checking.engine import check_text

    unpinned = finding(lint(f"{SRV} --tp 8"), "MC644")
    assert unpinned.severity == "warning" and unpinned.message.startswith("if the launch runs SGLang main after 0.5.23")
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {{name: s}}\nspec:\n  containers:\n  - name: s\n    image: "
           "lmsysorg/sglang:{tag}\n    command: [python3, -m, sglang.launch_server, --model-path, deepseek-ai/DeepSeek-V3,"
           " --tp, '8', --moe-a2a-backend, deepep]\n    resources: {{limits: {{nvidia.com/gpu: 8}}}}\n")
    for tag, severity in (("nightly-dev-20260801", "error"), ("dev", "error"), ("v0.5.8-cu130", None)):
        found = [d.severity for r in check_text(pod.format(tag=tag), "pod.yaml").results for d in r.diagnostics
                 if d.code == "MC644"]
        assert found == ([severity] if severity else []), tag
