"""frameworks/vllm: `vllm serve` on NVIDIA GPUs -> the DeepEP Buffer one rank builds, per vLLM version.

Figures are hand-computed from vllm-project/vllm@0014300 all2all.py (_make_all2all_kwargs) and DeepEP's hints
(moecfg/backends/deepep/ops/v1/formulas.py); DeepSeek-V3: hidden 7168, 256 routed experts, top-8.
"""
from __future__ import annotations

import pytest
from gpu_helpers import FIXTURES, GiB, H200, MiB, NONE, codes, derive, finding, lint, note_codes

from moecfg.frameworks import LaunchContext
from moecfg.frameworks.vllm import releases
from moecfg.frameworks.vllm.calls import vllm_buffer_arguments

DSV3 = "vllm serve deepseek-ai/DeepSeek-V3 --enable-expert-parallel"
V014 = LaunchContext(framework_versions=(("vllm", "0.14.0"),))
V011 = LaunchContext(framework_versions=(("vllm", "0.11.0"),))


def ll_hint(t: int) -> int:
    # get_low_latency_rdma_size_hint(T, 7168, R, 256): dispatch msg 16 + 2 x 7168 = 14352, combine msg 7168/128 x 4
    # + 2 x 7168 = 14560; send = recv = 256 x T x 14560; signalling align128(4 x 256) = 1024;
    # (2 send + 2 recv + 2 signalling + 128) // 128 x 128 = 4 x 256 x T x 14560 + 2048 + 128
    return 4 * 256 * t * 14560 + 2048 + 128


def test_ll_hint_figures():
    assert ll_hint(256) == 3_816_818_816 and ll_hint(512) == 7_633_635_456


def test_low_latency_default_chunk():
    d = derive(f"{DSV3} -dp 16 --all2all-backend deepep_low_latency")
    (call,) = d.calls
    a = call.arguments
    assert (call.kind, a["mode"], a["num_ranks"], a["num_max_dispatch_tokens_per_rank"]) == ("deepep", "low_latency", 16, 256)
    # nvl = VLLM_DEEPEP_BUFFER_SIZE_MB 1024 MiB; qps = 256 experts // 16 ranks = 16
    assert (a["num_nvl_bytes"], a["num_rdma_bytes"], a["num_qps_per_rank"]) == (1024 * MiB, ll_hint(256), 16)
    assert "VLLM_MOE_DP_CHUNK_SIZE 256 (default)" in call.derivation["num_max_dispatch_tokens_per_rank"]
    assert note_codes(d) == ["MC040"]  # version assumed: main


def test_high_throughput_intranode_and_internode():
    intra = derive(f"{DSV3} -dp 8 --all2all-backend deepep_high_throughput").calls[0].arguments
    inter = derive(f"{DSV3} -dp 8 -tp 2 --all2all-backend deepep_high_throughput").calls[0].arguments
    # 8 ranks: one node, rdma 0, 1 QP; 16 ranks: rdma = the same 1 GiB, num_sms 20 // 2 = 10 QPs
    assert (intra["mode"], intra["num_rdma_bytes"], intra["num_qps_per_rank"]) == ("normal", 0, 1)
    assert (inter["num_ranks"], inter["num_rdma_bytes"], inter["num_qps_per_rank"]) == (16, 1024 * MiB, 10)
    assert inter["num_nvl_bytes"] == vllm_buffer_arguments("deepep_high_throughput", 16, 7168, 256)["num_nvl_bytes"]


def test_force_intra_node_and_buffer_size_env():
    text = ("export VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE=1\nexport VLLM_DEEPEP_BUFFER_SIZE_MB=2048\n"
            f"{DSV3} -dp 16 --all2all-backend deepep_high_throughput")
    a = derive(text).calls[0].arguments
    assert (a["num_nvl_bytes"], a["num_rdma_bytes"], a["num_qps_per_rank"]) == (2048 * MiB, 0, 1)


def test_eplb_redundant_experts_from_json_strings():
    # llm-d writes the EPLB values as strings: "32" -> 256 + 32 = 288 experts, 288 // 16 = 18 local
    text = f"""{DSV3} -dp 16 --all2all-backend deepep_low_latency --enable-eplb --eplb-config '{{"num_redundant_experts":"32"}}'"""
    a = derive(text).calls[0].arguments
    assert (a["num_experts"], a["num_qps_per_rank"]) == (288, 18)
    no_eplb = derive(text.replace("--enable-eplb ", "")).calls[0].arguments
    assert no_eplb["num_experts"] == 256


@pytest.mark.parametrize("text, why", [
    (f"{DSV3} -dp 16", "allgather_reducescatter"),
    (f"{DSV3} -dp 16 --all2all-backend flashinfer_nvlink_one_sided", "FlashInfer NVLink one-sided"),
    (f"{DSV3} -dp 16 --all2all-backend deepep_v2", "ElasticBuffer"),
    ("vllm serve deepseek-ai/DeepSeek-V3 -tp 8", "no --enable-expert-parallel"),
])
def test_no_deepep_buffer(text, why):
    (call,) = derive(text).calls
    assert call.kind == "none" and why in call.why_none


def test_deepep_backend_without_expert_parallel_warns():
    d = derive("vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --all2all-backend deepep_high_throughput")
    assert "MC971" in note_codes(d) and d.calls[0].kind == "none"


@pytest.mark.parametrize("tag, key", [("v0.10.1", "0.11.0"), ("v0.11.0", "0.11.0"), ("v0.11.1", "0.14.0"),
                                      ("v0.15.1", "0.14.0"), ("v0.16.0", "main"), ("nightly", None)])
def test_release_match(tag, key):
    assert releases.match(tag) == key


def test_env_backend_per_version():
    text = f"export VLLM_ALL2ALL_BACKEND=deepep_low_latency\n{DSV3} -dp 16"
    # <= 0.11.0 and 0.11.1..0.15 read the variable; main ignores it (PR #33535) and warns at the export
    for ctx in (V011, V014):
        assert derive(text, ctx).calls[0].arguments["mode"] == "low_latency"
    d = derive(text)
    assert d.calls[0].kind == "none" and "MC970" in note_codes(d)
    assert finding(lint(text), "MC970").line == 1


def test_flag_on_old_vllm_is_refused():
    d = derive(f"{DSV3} -dp 16 --all2all-backend deepep_low_latency", V011)
    (note,) = [n for n in d.notes if n.code == "MC970"]
    assert note.severity == "error" and "unrecognized arguments" in note.message
    assert d.calls[0].kind == "none"  # 0.11.0 never reads the flag: the default backend runs


def test_flag_wins_over_env_and_says_so():
    text = f"export VLLM_ALL2ALL_BACKEND=deepep_high_throughput\n{DSV3} -dp 16 --all2all-backend deepep_low_latency"
    d = derive(text, V014)
    assert d.calls[0].arguments["mode"] == "low_latency" and "MC970" in note_codes(d)


def test_image_tag_picks_the_version_only_for_vllm_images():
    from moecfg.frameworks import vllm
    from moecfg.sources.launch import Launch

    ctx = NONE
    assert vllm.pick(Launch((), image="vllm/vllm-openai:v0.10.2"), ctx)[0] == "0.11.0"
    assert vllm.pick(Launch((), image="ghcr.io/llm-d/llm-d-cuda:v0.3.0"), ctx)[0] == "main"  # an llm-d version


def test_qp_depth_chunk_512_is_just_outside():
    # DeepEP asserts NVSHMEM_QP_DEPTH (1024) >= 2 x (T + 1): T 511 -> 1024 passes, T 512 -> 1026 fails; vLLM does
    # not raise the depth, so MC641 fires at the VLLM_MOE_DP_CHUNK_SIZE export
    base = f"{DSV3} -dp 16 --all2all-backend deepep_low_latency"
    assert "MC641" not in codes(lint(f"export VLLM_MOE_DP_CHUNK_SIZE=508\n{base}"))
    d = finding(lint(f"export VLLM_MOE_DP_CHUNK_SIZE=512\n{base}"), "MC641")
    assert (d.line, d.column) == (1, 8) and "1026" in d.message
    assert "MC641" not in codes(lint(f"export VLLM_MOE_DP_CHUNK_SIZE=512\nexport NVSHMEM_QP_DEPTH=1026\n{base}"))


def test_chunk_above_1024_is_the_ll_cap():
    res = lint(f"export VLLM_MOE_DP_CHUNK_SIZE=1028\nexport NVSHMEM_QP_DEPTH=4096\n{DSV3} -dp 16 "
               "--all2all-backend deepep_low_latency")
    assert finding(res, "MC643").line == 1


def test_memory_budget_table_and_headroom_rule():
    # T 512: nvl 1 GiB + rdma 7,633,635,456 + workspace 32 MiB = 8,740,931,712 B; H200 141 GiB = 151,397,597,184 B;
    # outside the fraction: 0.94 -> 9,083,855,831 (fits), 0.95 -> 7,569,879,859 (does not)
    base = f"export VLLM_MOE_DP_CHUNK_SIZE=512\nexport NVSHMEM_QP_DEPTH=2048\n{DSV3} -dp 16 --all2all-backend " \
           "deepep_low_latency --gpu-memory-utilization"
    ok = lint(f"{base} 0.94", H200)
    table = ok[0].derived["memory_budget"]
    assert table["total_bytes"] == 1024 * MiB + ll_hint(512) + 32 * MiB == 8_740_931_712
    assert table["device_bytes"] == 141 * GiB and table["outside_fraction_bytes"] == int(141 * GiB * (1 - 0.94))
    assert table["headroom_bytes"] > 0 and "MC985" not in codes(ok)
    d = finding(lint(f"{base} 0.95", H200), "MC985")
    assert d.line == 3 and d.column > 80 and "set --gpu-memory-utilization <= 0.94" in d.message


def test_budget_without_device_lists_the_buffers_only():
    res = lint(f"{DSV3} -dp 16 --all2all-backend deepep_low_latency")
    table = res[0].derived["memory_budget"]
    assert "device: H200" in table["device"] and "headroom_bytes" not in table and "MC985" not in codes(res)


def test_device_from_settings_and_hints():
    ctx = LaunchContext(product="A3", device="H100")  # the settings' Ascend product is not the GPU
    text = f"export NCCL_DEBUG=INFO\n{DSV3} -dp 8 --all2all-backend deepep_high_throughput"
    call = derive(text, ctx).calls[0]
    assert call.arguments["device"] == "H100" and "device` in .moecfg.yaml" in call.derivation["device"]


def test_ascend_settings_without_gpu_evidence_go_to_vllm_ascend():
    d = derive("vllm serve deepseek-ai/DeepSeek-V3 --enable-expert-parallel -dp 4 -tp 4",
               LaunchContext(product="A3", cann="9.0.1"))
    assert d.framework == "vllm-ascend"


def test_llm_d_wide_ep_decode_fixture():
    text = (FIXTURES / "llm-d-wide-ep-lws-decode.yaml").read_text()
    # the manifest sets only VLLM_ALL2ALL_BACKEND: vLLM >= 0.16 ignores it (llm-d PR #856 moved to the flag)
    d = derive(text, yaml=True)
    assert d.calls[0].kind == "none" and "MC970" in note_codes(d)
    # with the vLLM it was written for, DeepEP LL runs: DP = $((LWS_GROUP_SIZE * DP_SIZE_LOCAL)) = 2 x 8 = 16, the
    # LWS controller injecting LWS_GROUP_SIZE = leaderWorkerTemplate.size 2 (lws pod_utils.go AddLWSVariables);
    # EP = 16 x TP 1; 256 + 32 redundant experts; T = VLLM_MOE_DP_CHUNK_SIZE 512
    d = derive(text, V014, yaml=True)
    a = d.calls[0].arguments
    assert (a["mode"], a["num_ranks"], a["num_experts"], a["num_max_dispatch_tokens_per_rank"]) == ("low_latency", 16,
                                                                                                   288, 512)
    assert d.calls[0].sources["num_ranks"][0].line == 83  # --data-parallel-size


def test_lws_vllm_gpu_fixture_runs_no_ep():
    text = (FIXTURES / "lws-vllm-gpu.yaml").read_text()
    (call,) = derive(text, yaml=True).calls
    assert call.kind == "none" and "no --enable-expert-parallel" in call.why_none


def test_example_manifest_device_from_its_node_selector():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "examples/launch/k8s-vllm-gpu-deepep-decode.yaml").read_text()
    # the manifest's nodeSelector NVIDIA-H200 beats the folder's `device: H100`; T 256 -> rdma ll_hint(256)
    res = lint(text, LaunchContext(product="A3", device="H100"), yaml=True)
    a = res[0].arguments
    assert (a["device"], a["num_rdma_bytes"], a["num_qps_per_rank"]) == ("H200", ll_hint(256), 32)
    assert codes(res) == ["MC657"]  # vLLM's unused 1 GiB NVL buffer (info)


@pytest.mark.parametrize("value, ok", [("h200", "H200"), ("GB200", "GB200"), ("A3", None), (3, None)])
def test_settings_device_key(value, ok):
    from moecfg.checking.settings import ConfigError, parse

    if ok:
        assert parse({"device": value, "device_memory_gb": 96}, None).device == ok
    else:
        with pytest.raises(ConfigError, match="device"):
            parse({"device": value}, None)
