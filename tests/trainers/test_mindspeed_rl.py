"""trainers/mindspeed_rl: a MindSpeed-RL config (sources/recipes/mindspeed_rl.py) -> the MindSpeed actor and the
vllm-ascend rollout, with the HCCL_BUFFSIZE MindSpeed-RL exports to every Ray worker.

Fixture: Ascend/MindSpeed-RL@05a90d7 configs/grpo_deepseek_r1_671b_A3.yaml with configs/model/deepseekv3_671b.yaml.
DeepSeek-R1 rollout on A3: infer TP 4 x EP 64 = the 256-rank MC2 group; dispatch_combine_v2 needs 239 MiB
(250,609,664 B) per rank against rl_config.hccl_buffersize's default 256 MB.
"""
from __future__ import annotations

from pathlib import Path

from moecfg import frameworks
from moecfg.backends import Options
from moecfg.checking.launch import lint_launch_file
from moecfg.frameworks import LaunchContext
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_shell, read_yaml_document

CONFIG = Path(__file__).resolve().parent / "fixtures" / "mindspeed_rl" / "configs" / "grpo_deepseek_r1_671b_A3.yaml"
A3 = LaunchContext(product="A3", product_source="--product")


def _file(text: str | None = None, name: str = str(CONFIG)):
    text = CONFIG.read_text() if text is None else text
    (doc,) = parse_stream(text)
    return read_yaml_document(doc, text, name, str(CONFIG.parent))


def _derive(text: str | None = None, ctx=A3, name: str = str(CONFIG)):
    lf = _file(text, name)
    (launch,) = lf.launches
    module = frameworks.recognise(launch, ctx)
    assert module.NAME == "mindspeed-rl"
    return module.derive(launch, ctx)


def _line(word: str) -> int:
    return next(i for i, t in enumerate(CONFIG.read_text().splitlines(), 1) if word in t)


def test_the_config_is_read_as_hydra_overrides_positioned_at_each_value():
    (launch,) = _file().launches
    words = {w.value.split("=")[0]: w for w in launch.argv[1:]}
    assert words["actor_config.expert_model_parallel_size"].span.line == _line("expert_model_parallel_size: 8")
    assert "model.num_experts" in words  # from model/deepseekv3_671b.yaml, named at the `model:` key
    actor_model = CONFIG.read_text().splitlines().index("  model: deepseekv3_671b", _line("actor_config:")) + 1
    assert words["model.num_experts"].span.line == actor_model  # actor_config.model chooses the section


def test_rollout_mc2_group_and_hccl_buffer():
    d = _derive()
    (decode,) = [c for c in d.calls if c.role == "rollout-decode"]
    a = decode.arguments
    assert (decode.op, a["ep_world_size"], a["h"], a["k"], a["moe_expert_num"]) == ("dispatch_combine_v2", 256, 7168, 8,
                                                                                    256)
    assert int(a["env"]["HCCL_BUFFSIZE"]) == 256  # rl_config.hccl_buffersize's default: not in the file
    results = lint_launch_file(_file(), "t", A3, Options())
    (r,) = [r for r in results if r.launch["role"] == "rollout-decode"]
    assert r.buffers["ep"]["required_mb"] == 239 and r.buffers["ep"]["sufficient"] is True


def test_a_smaller_hccl_buffersize_is_an_error_at_its_key():
    text = CONFIG.read_text().replace("  use_integrated_worker: true\n", "  use_integrated_worker: true\n"
                                      "  hccl_buffersize: 200\n")
    results = lint_launch_file(_file(text), "t", A3, Options())
    errors = [d for r in results for d in r.diagnostics if d.severity == "error"]
    assert errors and all(d.line == text.splitlines().index("  hccl_buffersize: 200") + 1 for d in errors)


def test_train_phase_is_mindspeed_over_num_npus():
    d = _derive()
    (train,) = [c for c in d.calls if c.role == "train"]
    a = train.arguments
    assert (a["framework"], a["world_size"], a["tp"], a["pp"], a["ep"], a["num_experts"]) == (
        "MindSpeed", 256, 4, 8, 8, 256)
    assert "rl_config.actor_resource.num_npus" in train.derivation["world_size"]


def test_integrated_worker_refuses_a_ref_config():
    text = CONFIG.read_text() + "\nref_config:\n  tensor_model_parallel_size: 2\n"
    d = _derive(text)
    assert "MC725" in [n.code for n in d.notes] and not d.calls


def test_model_file_not_beside_the_config_is_said(tmp_path):
    alone = tmp_path / "grpo.yaml"
    alone.write_text(CONFIG.read_text())
    d = _derive(alone.read_text(), name=str(alone))
    assert any(n.code == "MC023" and "model/deepseekv3_671b.yaml" in n.message for n in d.notes)
    (train,) = [c for c in d.calls if c.role == "train"]
    assert train.kind == "none" and "model file is not read" in train.why_none


def test_the_shell_launch_names_the_config():
    lf = read_shell("python cli/train_grpo.py --config-name grpo_deepseek_r1_671b_A3\n")
    (launch,) = lf.launches
    module = frameworks.recognise(launch, A3)
    assert module.NAME == "mindspeed-rl"
    d = module.derive(launch, A3)
    said = [u.reason for u in d.unread]
    assert any("grpo_deepseek_r1_671b_A3" in m for m in said) and not d.calls
