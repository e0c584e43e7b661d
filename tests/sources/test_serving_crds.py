"""Serving runtimes as custom resources (sources/manifests/crds.py): NVIDIA Dynamo, OME runtimes, KServe LLMInferenceService,
each read as the launch its controller runs and derived like the equivalent shell script."""
from __future__ import annotations

from reader_helpers import FIXTURES, after, at, pos, read_yaml, words

from moecfg.backends import Options
from moecfg.checking.engine import lint_text
from moecfg.frameworks import recognise
from moecfg.sources.readers import read_shell


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_dynamo_graph_deployment_services_are_sglang_launches():
    text = fixture("dynamo-sglang-wideep-tep8p-dep8d-disagg.yaml")
    (lf,) = read_yaml(text)
    decode, prefill = lf.launches
    assert (decode.container, prefill.container) == ("decode", "prefill")
    assert words(decode)[:4] == ["python3", "-m", "dynamo.sglang", "--model-path"]
    assert after(decode, "--ep-size").value == "8" and at(text, after(decode, "--ep-size").span) == "8"
    assert after(decode, "--ep-size").span.line == 30
    assert recognise(decode).NAME == "sglang"
    results = lint_text(text, "dgd.yaml", Options())
    assert [r.launch["role"] for r in results] == ["decode", "prefill"]
    assert all(r.launch["framework"] == "sglang" for r in results)


def test_dynamo_vllm_script_is_a_vllm_launch_without_unknown_flag_noise():
    lf = read_shell("python3 -m dynamo.vllm --model deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 "
                    "--data-parallel-size 2 --enable-expert-parallel --disaggregation-mode prefill --route-to-encoder\n")
    (launch,) = lf.launches
    assert recognise(launch).NAME in ("vllm", "vllm-ascend")
    results = lint_text("python3 -m dynamo.vllm --model deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 "
                        "--enable-expert-parallel --route-to-encoder\n", "run.sh", Options())
    assert results and not [d for r in results for d in r.diagnostics if d.code == "MC022"]
    typo = lint_text("vllm serve deepseek-ai/DeepSeek-V3 --route-to-encoder\n", "run.sh", Options())
    assert [d for r in typo for d in r.diagnostics if d.code == "MC022"]  # plain vLLM still reports it


def test_ome_runtime_gets_the_env_its_controller_injects():
    text = fixture("ome-srt-deepseek-rdma-pd-rt.yaml")
    (lf,) = read_yaml(text)
    prefill, decode = lf.launches
    assert after(prefill, "--tp-size").value == "16"  # PARALLELISM_SIZE = 8 GPUs x (1 leader + worker.size 1)
    assert after(prefill, "--nnodes").value == "2"  # LWS_GROUP_SIZE
    assert after(prefill, "--model-path").value is None  # MODEL_PATH: the base model the service names
    assert after(prefill, "--node-rank").value is None
    assert after(decode, "--deepep-mode").value == "low_latency" and decode.container == "decode"
    assert decode.env["SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"].value == "480"


def test_ome_runtime_derives_deepep_buffers_once_the_model_is_named(tmp_path):
    (tmp_path / ".moecfg.yaml").write_text("models:\n  '*': deepseek-v3\n")
    path = tmp_path / "rt.yaml"
    path.write_text(fixture("ome-srt-deepseek-rdma-pd-rt.yaml"))
    from moecfg.checking.engine import check_paths
    from moecfg.checking.settings import Settings

    report = check_paths([str(path)], Options(), Settings())
    modes = [(r.launch["role"], r.arguments.get("mode"), r.arguments.get("num_ranks")) for r in report.results]
    assert modes == [("prefill", "normal", 16), ("decode", "low_latency", 16)]


def test_kserve_llm_inference_service_composes_the_vllm_launch():
    text = fixture("kserve-llmisvc-dp-ep-deepseek-r1-deepep-ht.yaml")
    (lf,) = read_yaml(text)
    (launch,) = lf.launches
    assert words(launch)[:4] == ["vllm", "serve", "/mnt/models", "--enable-expert-parallel"]
    assert after(launch, "--data-parallel-size").value == "32"
    assert pos(after(launch, "--data-parallel-size").span)[:2] == (18, 11)  # `data: 32`
    assert at(text, after(launch, "--data-parallel-size").span) == "32"
    assert after(launch, "--data-parallel-size-local").value == "8"
    assert "--enforce-eager" in words(launch)  # from VLLM_ADDITIONAL_ARGS
    assert launch.env["VLLM_ALL2ALL_BACKEND"].value == "deepep_high_throughput"
    results = lint_text(text, "llmisvc.yaml", Options())
    assert results and results[0].launch["framework"] == "vllm"


def test_llm_inference_service_with_its_own_command_is_a_pod_template():
    text = ("apiVersion: serving.kserve.io/v1alpha2\nkind: LLMInferenceService\nspec:\n  template:\n    containers:\n"
            "    - name: main\n      command: [vllm, serve, m, --tensor-parallel-size, '4']\n")
    (lf,) = read_yaml(text)
    (launch,) = lf.launches
    assert words(launch) == ["vllm", "serve", "m", "--tensor-parallel-size", "4"]


def test_container_spec_under_runner_in_any_crd_and_foreign_crds_skipped():
    text = ("apiVersion: x.io/v1\nkind: Thing\nspec:\n  a:\n    runner:\n      command: [sh, -c]\n"
            "      args: ['exec vllm serve m --tensor-parallel-size 2']\n---\n"
            "apiVersion: x.io/v1\nkind: Other\nspec:\n  runner: {image: x}\n")
    first, second = read_yaml(text)
    (launch,) = first.launches
    assert after(launch, "--tensor-parallel-size").value == "2"
    assert second is None


def test_mindspeed_msrun_script_is_a_mindspeed_launch():
    # a Megatron entry script started by msrun is MindSpeed's (frameworks/mindspeed; it was read as Megatron's)
    text = fixture("mindspeed-llm-deepseek3-671b-a3-msrun.sh")
    lf = read_shell(text)
    (launch,) = [x for x in lf.launches if recognise(x) is not None]
    assert words(launch)[0] == "msrun" and recognise(launch).NAME == "mindspeed"
    assert after(launch, "--expert-model-parallel-size").value == "16"  # EP=16 on line 24
    assert launch.env["HCCL_BUFFSIZE"].value == "400"
    post = read_shell("msrun --worker_num 8 posttrain_gpt.py --expert-model-parallel-size 8\n").launches[0]
    assert recognise(post).NAME == "mindspeed"
