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

from moecfg.core.engine import check_bytes
from moecfg.core.settings import Cli, Config, FilePolicy
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


def test_guide_deployment_is_recognised_and_derived():
    diags, _ = check(FIXTURES / "guide-v32" / "conf" / "config.json")
    assert [d.code for d in diags] == ["MC993"]
    text = diags[0].message
    # multi-node: worldSize is per node, so the moe_tp x moe_ep check (1 x 32 over 2 x 16) is not made here
    assert "worldSize 16 per node" in text and "moe_ep 32" in text and "moe_tp 1" in text
    assert "HCCL_BUFFSIZE 1050 (from" in text and "global_bs = ceil(max tokens across DP / tp 8) x 32" in text
    assert "maxBatchSize 200" in text and "maxPrefillTokens 8192" in text


def test_shipped_default_atb_config_gets_only_the_info():
    diags, _ = check(FIXTURES / "llama-atb" / "conf" / "config.json")
    assert [d.code for d in diags] == ["MC993"] and "backendType atb" in diags[0].message


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


def test_no_env_file_leaves_the_buffer_unknown(tmp_path):
    diags, _ = check(model_config(tmp_path, {**TORCH16, "moe_tp": 1, "moe_ep": 16}))
    assert [d.code for d in diags] == ["MC993"] and "HCCL_BUFFSIZE unknown (from the environment" in diags[0].message


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
