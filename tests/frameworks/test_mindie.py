"""frameworks/mindie + sources/mindie: a MindIE-LLM config.json read by its keys as `mindie_llm_server ...`.

Ascend/MindIE-LLM@8b4871a: ParallelInfoManager (mindie_llm/runtime/utils/distributed/parallel_info_manager.py:
206-217) raises when moe_tp x moe_ep != world size (moe_tp defaults to the world, moe_ep to 1) and reads
int(os.getenv("HCCL_BUFFSIZE")) unconditionally on the torch backend.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from moecfg.checking.engine import check_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy
from moecfg.sources.files import Walk, discover

FIXTURES = Path(__file__).parent / "fixtures" / "mindie"


def check(path: Path, root: Path | None = None):
    done = check_bytes(path.read_bytes(), str(path), policy=FilePolicy(Config(), Cli()),
                       root=str(root) if root else None)
    return [d for r in done.results for d in r.diagnostics], done.skipped


def codes(path: Path) -> list[str]:
    return sorted(d.code for d in check(path)[0])


def model_config(tmp_path: Path, entry: dict, env: dict | None = None, multi: bool = False) -> Path:
    conf = tmp_path / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    data = {"BackendConfig": {"multiNodesInferEnabled": multi,
                              "ModelDeployConfig": {"ModelConfig": [{"modelName": "m", **entry}]},
                              "ScheduleConfig": {"maxBatchSize": 64, "maxPrefillTokens": 8192}}}
    (conf / "config.json").write_text(json.dumps(data, indent=2))
    if env is not None:
        (conf / "mindie_env.json").write_text(json.dumps({"mindie_common_env": env}, indent=2))
    return conf / "config.json"


TORCH16 = {"worldSize": 16, "backendType": "torch", "dp": 4, "tp": 4}


def check_all(path: Path, root: Path | None = None):
    done = check_bytes(path.read_bytes(), str(path), policy=FilePolicy(Config(), Cli()),
                       root=str(root) if root else None)
    return done.results


def calls(path: Path) -> dict:
    """role -> [(op, arguments)] of the op calls MindIE makes (kind ascend), in order."""
    out: dict = {}
    for r in check_all(path):
        if r.launch and r.op not in (None, "none"):
            out.setdefault(r.launch["role"], []).append((r.op, r.arguments))
    return out


def test_guide_deployment_is_recognised_and_derived():
    results = check_all(FIXTURES / "guide-v32" / "conf" / "config.json")
    diags = [d for r in results for d in r.diagnostics]
    info = next(d for d in diags if d.code == "MC993").message
    # multi-node: worldSize is per node; the world is moe_tp 1 x moe_ep 32 (MindIE refuses any other product)
    assert "worldSize 16 per node" in info and "moe_ep 32" in info and "moe_tp 1" in info
    assert "HCCL_BUFFSIZE 1050 (" in info and "global_bs = ceil(max tokens across DP / tp 8) x 32" in info
    assert not [d for d in diags if d.severity == "error"]
    ops = calls(FIXTURES / "guide-v32" / "conf" / "config.json")
    # A3 (16 devices per node), moe_ep 32 <= 32, moe_tp 1: FusedMC2 for both phases
    # prefill: maxPrefillTokens 8192 / tp 8 = 1024 per device; decode: maxBatchSize 200 x (1 + 2 MTP) = 600 / 8 = 75
    assert [(op, a["bs"]) for op, a in ops["prefill"]] == [("dispatch_ffn_combine", 1024)]
    assert [(op, a["bs"]) for op, a in ops["decode"]] == [("dispatch_ffn_combine", 75)]
    args = ops["prefill"][0][1]
    assert args["ep_world_size"] == 32 and args["max_output_size"] == 131072 and args["weight_dtype"] == "int8"
    assert args["env"] == {"HCCL_BUFFSIZE": "1050"} and args["product"] == "A3"


def test_guide_memory_per_rank():
    results = check_all(FIXTURES / "guide-v32" / "conf" / "config.json")
    tab = next(r.derived["memory_budget"] for r in results if r.derived and "memory_budget" in r.derived)
    mib = 1 << 20
    # attn_tp 8 ranks 2 x 128 + attn_dp 4 ranks 2 x 128 + moe_ep 32 ranks 2 x 256 + MC2 group 2 x 1050 = 3124 MiB
    assert {k: v["bytes"] // mib for k, v in tab["buffers"].items()} == {
        "attn_tp": 256, "attn_dp": 256, "moe_ep": 512, "moe_ep_mc2": 2100}
    assert tab["total_bytes"] == 3124 * mib
    # NPU_MEMORY_FRACTION 0.8 (the env file's server sections): 64 GiB x 0.2 left outside
    assert tab["framework_fraction"] == 0.8 and tab["outside_fraction_bytes"] == int(64 * (1 << 30) * (1 - 0.8))


def test_guide_a3_without_env_file_takes_set_env_120_as_a_condition():
    # the A3 section exports no HCCL_BUFFSIZE: set_env.sh's 120 MB; the prefill FusedMC2 window needs
    # M x topK x K x 3 + 10 MiB = 1024 x 8 x 7168 x 3 + 10 MiB = 186646528 B = 178 MiB > 120: MC880, a warning
    # because the 120 is an assumption (set_env.sh sourced)
    diags, _ = check(FIXTURES / "guide-v32-a3" / "conf" / "config.json")
    hits = [d for d in diags if d.code == "MC880"]
    assert len(hits) == 1 and hits[0].severity == "warning" and "set_env.sh's 120" in hits[0].message
    assert "HCCL_BUFFSIZE >= 178" in hits[0].message and "conf/mindie_env.json" in hits[0].message


def test_shipped_default_atb_config_gets_only_the_info():
    diags, _ = check(FIXTURES / "llama-atb" / "conf" / "config.json")
    assert [d.code for d in diags] == ["MC993"] and "MindIE atb backend" in diags[0].message
    assert "hccl_buffer 128 MB, hccl_moe_ep_buffer 512 MB, hccl_moe_tp_buffer 64 MB" in diags[0].message


@pytest.mark.parametrize("moe, fails", [({"moe_ep": 16}, True), ({"moe_ep": 16, "moe_tp": 1}, False),
                                        ({"moe_ep": 8, "moe_tp": 2}, False), ({"moe_ep": 8, "moe_tp": 1}, True),
                                        ({}, False), ({"moe_tp": -1, "moe_ep": -1}, False),
                                        ({"moe_tp": 4}, True), ({"moe_tp": 16, "moe_ep": 1}, False)])
def test_moe_tp_times_moe_ep_must_equal_world_size(tmp_path, moe, fails):
    path = model_config(tmp_path, {**TORCH16, **moe}, {"HCCL_BUFFSIZE": 512})
    diags, _ = check(path)
    hits = [d for d in diags if d.code == "MC990"]
    assert bool(hits) == fails
    if fails:
        assert "world_size 16" in hits[0].message and "moe_tp x moe_ep = 16" in hits[0].message
        key = "moe_ep" if "moe_ep" in moe else "moe_tp"
        line = path.read_text().splitlines()[hits[0].line - 1]
        assert f'"{key}"' in line  # the finding sits at the key that causes it


def test_multi_node_world_size_is_not_assumed(tmp_path):
    assert "MC990" not in codes(model_config(tmp_path, {**TORCH16, "moe_ep": 32, "moe_tp": 1}, multi=True))


def test_atb_backend_gets_no_torch_checks(tmp_path):
    path = model_config(tmp_path, {**TORCH16, "backendType": "atb", "moe_ep": 3}, {})
    assert codes(path) == ["MC993"]


@pytest.mark.parametrize("env, code", [({}, "MC991"), ({"HCCL_BUFFSIZE": "1G"}, "MC992"),
                                       ({"HCCL_BUFFSIZE": 1050.5}, "MC992"), ({"HCCL_BUFFSIZE": 1050}, None),
                                       ({"HCCL_BUFFSIZE": "200"}, None), (None, None)])
def test_hccl_buffsize_from_the_env_file(tmp_path, env, code):
    found = codes(model_config(tmp_path, {**TORCH16, "moe_tp": 1, "moe_ep": 16}, env))
    assert found == sorted(["MC993"] + ([code] if code else []))


def test_buffsize_set_only_for_a_server_role_counts_as_set(tmp_path):
    path = model_config(tmp_path, {**TORCH16, "moe_tp": 1, "moe_ep": 16}, {})
    (path.parent / "mindie_env.json").write_text(json.dumps(
        {"mindie_common_env": {}, "mindie_server_decode_env": {"HCCL_BUFFSIZE": 512}}))
    assert codes(path) == ["MC993"]


def test_no_env_file_assumes_set_env_and_no_product_gives_no_call(tmp_path):
    diags, _ = check(model_config(tmp_path, {**TORCH16, "moe_tp": 1, "moe_ep": 16}))
    assert [d.code for d in diags] == ["MC993"]
    assert "HCCL_BUFFSIZE 120 from MindIE's set_env.sh" in diags[0].message
    assert "no op call derived: the product is not known" in diags[0].message


@pytest.mark.parametrize("text", [
    '{"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168, "n_routed_experts": 256}',
    '{"BackendConfig": {"ModelDeployConfig": {"ModelConfig": "x"}}}',  # MindIE's words, not its shape
    '{"BackendConfig": {"ModelDeployConfig": {"ModelConfig": []}, "ScheduleConfig": {}}, "bad": [}',
    '{"name": "pkg", "version": "1.0.0", "scripts": {"serve": "vllm serve x --enable-expert-parallel"}}',
])
def test_a_json_file_that_is_not_mindie_gets_nothing(tmp_path, text):
    path = tmp_path / "config.json"
    path.write_text(text)
    diags, skipped = check(path)
    assert diags == [] and len(skipped) == 1 and "MindIE" in skipped[0].reason


def test_walking_reads_config_json_files_only(tmp_path):
    shutil.copytree(FIXTURES / "guide-v32", tmp_path / "deploy")
    (tmp_path / "deploy" / "tokenizer.json").write_text("{}")
    found = sorted(Path(e.path).name for e in discover([str(tmp_path)], Walk()))
    assert found == ["config.json"]  # mindie_env.json is read as the config's evidence, tokenizer.json not at all


def test_env_file_outside_the_checked_folder_is_not_read(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mindie_env.json").write_text(json.dumps({"mindie_common_env": {"HCCL_BUFFSIZE": "1G"}}))
    tree = tmp_path / "tree"
    path = model_config(tree, {**TORCH16, "moe_tp": 1, "moe_ep": 16})
    (path.parent / "mindie_env.json").symlink_to(outside / "mindie_env.json")
    assert "MC992" not in [d.code for d in check(path, root=tree)[0]]


def test_a_kubernetes_manifest_written_as_json_is_still_read_as_a_launch(tmp_path):
    # reading *.json as MindIE configs must not drop what was read before: `kubectl get -o json` output is YAML too
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
           "spec": {"containers": [{"name": "v", "image": "vllm/vllm-openai:v0.11.0",
                                    "command": ["vllm", "serve", "deepseek-ai/DeepSeek-V3"]}]}}
    path = tmp_path / "pod.json"
    path.write_text(json.dumps(pod, indent=1))
    found, skipped = check(path)
    # read as the launch it is (vLLM derives TP-only MoE layers for it: MC041), not skipped as a foreign JSON
    assert "MC041" in [d.code for d in found] and not skipped
