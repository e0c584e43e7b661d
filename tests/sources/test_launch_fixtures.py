"""Real published launches (each fixture cites its source in its first line): the reader finds every launch,
reads the values the framework will see, and points at the text as written."""
from __future__ import annotations

import json

import pytest
from reader_helpers import FIXTURES, after, at, pos, read_yaml, word, words

from moecfg.sources.readers import looks_like_shell, read_shell


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("path", sorted(FIXTURES.iterdir()), ids=lambda p: p.name)
def test_every_fixture_cites_its_source(path):
    assert path.read_text(encoding="utf-8").startswith("# source: https://github.com/")


def test_vllm_ascend_tutorial_dp4_tp4_mtp3_on_a3():
    text = fixture("vllm-ascend-dsv31-a3-dp4tp4.sh")
    lf = read_shell(text)
    assert lf.problems == []
    (launch,) = [x for x in lf.launches if words(x)[:2] == ["vllm", "serve"]]
    assert after(launch, "--max-num-seqs").value == "16"
    assert pos(after(launch, "--max-num-seqs").span) == (31, 16, 31, 18)
    assert [after(launch, f).value for f in ("--data-parallel-size", "--tensor-parallel-size")] == ["4", "4"]
    spec = after(launch, "--speculative-config")
    assert json.loads(spec.value)["num_speculative_tokens"] == 3
    assert at(text, spec.span) == "'{\"num_speculative_tokens\": 3, \"method\": \"mtp\"}'"
    env = launch.env
    assert env["HCCL_OP_EXPANSION_MODE"].value == "AIV" and pos(env["HCCL_OP_EXPANSION_MODE"].span)[:2] == (13, 8)
    assert env["HCCL_IF_IP"].value == "xxxx"  # local_ip="xxxx" set on line 6 of the script
    assert "HCCL_BUFFSIZE" not in env


def test_vllm_ascend_nightly_multi_node_config():
    text = fixture("vllm-ascend-nightly-multinode-DeepSeek-R1-W8A8-EPLB.yaml")
    (lf,) = read_yaml(text)
    assert lf.problems == []
    assert [x.container for x in lf.launches] == ["deployment.0", "deployment.1", "deployment.2", "deployment.3"]
    prefill = lf.launches[0]
    assert pos(prefill.argv[0].span) == (29, 7, 29, 11)  # "vllm" on the first line of the `>` block
    port = after(prefill, "--port")
    assert (port.value, pos(port.span), port.exact) == ("8080", (31, 18, 31, 30), False)
    assert pos(after(prefill, "--max-num-seqs").span) == (39, 26, 39, 27)
    extra = json.loads(after(prefill, "--additional-config").value)
    assert extra["eplb_config"]["dynamic_eplb"] is True
    assert prefill.env["HCCL_BUFFSIZE"].value == "1024" and pos(prefill.env["HCCL_BUFFSIZE"].span)[:2] == (8, 18)
    worker = lf.launches[3]
    assert after(worker, "--data-parallel-address").value is None  # MASTER_IP: set by the harness at run time
    assert after(worker, "--max-num-seqs").value == "28"


def test_vllm_ascend_nightly_single_node_flag_lists():
    text = fixture("vllm-ascend-nightly-single-DeepSeek-R1-0528-W8A8.yaml")
    (lf,) = read_yaml(text)
    names = [x.container for x in lf.launches]
    assert names == ["DeepSeek-R1-0528-W8A8-single", "DeepSeek-R1-0528-W8A8-aclgraph"]
    single = lf.launches[0]
    assert words(single)[:3] == ["vllm", "serve", "vllm-ascend/DeepSeek-R1-0528-W8A8"]
    assert words(single)[-1] == "--enforce-eager"  # server_cmd_extra appended
    seqs = after(single, "--max-num-seqs")
    assert (seqs.value, pos(seqs.span)) == ("16", (31, 5, 31, 9))  # in the &server_cmd anchor, as written
    assert after(single, "--port").value == "DEFAULT_PORT"  # the harness replaces it at run time


def test_vllm_ascend_external_dp_server_cmd_template():
    # runtime.py:329-342: `vllm serve <model> <server_cmd_template>`, `${X}` from the node's config entry, `$X` envs
    text = fixture("vllm-ascend-external-dp-GLM-5.2-W8A8C8-PD.yaml")
    (lf,) = read_yaml(text)
    prefill, decode = lf.launches
    assert words(prefill)[:3] == ["vllm", "serve", "Eco-Tech/GLM-5.2-w4a8c8"]
    assert pos(word(prefill, "Eco-Tech/GLM-5.2-w4a8c8").span)[:2] == (3, 8)  # the root `model:`
    assert [after(prefill, f).value for f in ("--data-parallel-size", "--tensor-parallel-size")] == ["4", "8"]
    assert [after(decode, f).value for f in ("--data-parallel-size", "--tensor-parallel-size")] == ["8", "4"]
    assert pos(after(prefill, "--tensor-parallel-size").span) == (44, 9, 44, 19)  # `${TP_SIZE}` as written
    assert after(prefill, "--data-parallel-rank").value == "${DP_RANK}"  # per rank: left as written
    assert after(prefill, "--port").value == "${PORT}"  # $SERVER_PORT from the envs, its value a rank variable
    assert prefill.env["HCCL_BUFFSIZE"].value == "400" and decode.env["HCCL_BUFFSIZE"].value == "256"
    assert prefill.env["VLLM_ASCEND_ENABLE_FUSED_MC2"].value == "1"  # merged from &env_common


def test_external_dp_template_without_a_root_model_is_not_a_launch():
    text = "templates:\n  - node_index: 0\n    server_cmd_template: [--tensor-parallel-size, '8']\n"
    assert all(not lf.launches for lf in read_yaml(text) if lf is not None)


def test_lws_vllm_gpu_example_multiline_double_quoted_sh_c():
    text = fixture("lws-vllm-gpu.yaml")
    lws, service = read_yaml(text)
    assert service is None
    leader = next(x for x in lws.launches if words(x)[:1] == ["python3"])
    assert (leader.container, leader.image) == ("vllm-leader", "vllm/vllm-openai:v0.8.5")
    tp = after(leader, "--tensor-parallel-size")
    assert (tp.value, pos(tp.span), tp.exact) == ("8", (26, 142, 26, 143), True)  # second line of the scalar
    ray = next(x for x in lws.launches if words(x)[:1] == ["bash"] and x.container == "vllm-leader")
    # $(LWS_GROUP_SIZE): the LWS webhook adds LWS_GROUP_SIZE = leaderWorkerTemplate.size (2) to the container env, so
    # Kubernetes' own $(NAME) expansion fills it before sh runs (kubernetes-sigs/lws pod_utils.go AddLWSVariables)
    assert ray.argv[-1].value == "--ray_cluster_size=2"
    assert dict(leader.hints)["nvidia.com/gpu"].line == 29
    assert leader.env["HF_TOKEN"].value == "$HF_TOKEN"  # Kubernetes expands $(X), never $X


def test_llm_d_wide_ep_decode_block_scalar():
    text = fixture("llm-d-wide-ep-lws-decode.yaml")
    (lf,) = read_yaml(text)
    assert [(p.code, pos(p.span)[:2]) for p in lf.problems] == [("MC023", (137, 13))]  # valueFrom
    vllm = next(x for x in lf.launches if words(x)[:2] == ["vllm", "serve"])
    assert pos(vllm.argv[0].span) == (75, 20, 75, 24)  # after `exec`, inside the `|-` block
    assert after(vllm, "--tensor-parallel-size").value == "1"  # $TP_SIZE from the container env
    assert at(text, after(vllm, "--tensor-parallel-size").span) == "$TP_SIZE"
    assert after(vllm, "--data-parallel-size").value == "16"  # LWS_GROUP_SIZE (size: 2, injected by LWS) x 8
    assert after(vllm, "--data-parallel-size-local").value == "8"
    assert after(vllm, "--data-parallel-start-rank").value is None
    eplb = after(vllm, "--eplb-config")
    assert json.loads(eplb.value)["num_redundant_experts"] == "32"
    assert pos(eplb.span) == (94, 31, 97, 61)  # a single-quoted JSON over four lines of the block scalar
    assert vllm.env["VLLM_ALL2ALL_BACKEND"].value == "deepep_low_latency"
    proxy = next(x for x in lf.launches if x.container == "routing-proxy")
    assert words(proxy)[0] == "--port=8000"  # args only: the image's entrypoint runs them


def test_sglang_on_ascend_pd_script_branch_values():
    text = fixture("sglang-ascend-deepseek-pd-4xA3.sh")
    assert looks_like_shell("x.sh", text)
    lf = read_shell(text)
    assert lf.problems == []
    prefill, decode = [x for x in lf.launches if words(x)[:3] == ["python", "-m", "sglang.launch_server"]]
    assert after(prefill, "--deepep-mode").value == "normal"
    assert prefill.env["HCCL_BUFFSIZE"].value == "1536"  # exported inside the taken branch
    assert after(prefill, "--model-path").value == "xxx"
    assert after(prefill, "--disaggregation-bootstrap-port").value is None  # $((8998+$i)), i unknown
    assert decode.env["HCCL_BUFFSIZE"].value == "650"
    assert decode.env["SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"].value == "78"
    assert pos(decode.env["SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"].span) == (63, 16, 63, 65)
    assert decode.env["DEEP_NORMAL_MODE_USE_INT8_QUANT"].value is None  # set in the prefill loop only
    bs = word(decode, "--cuda-graph-bs")
    assert pos(bs.span) == (72, 9, 72, 24)
    assert after(decode, "--tp-size").value == "32"
