"""trainers/verl beyond verl's own tree: a recipe's nested module, a recipe folder's own entry (`-m main_gkd`,
`python verl_entrypoint.py`) with verl's keys, a `--config-path` of the user's, a config composed from its folder's
groups, a group file read at the package verl mounts it at, and a reward model's engine listed.

Fixtures (fixtures/verl_p/): verl-project/verl-recipe@48ea0a7 dapo/dapo_transfer_queue/30B_megatron_dapo_npu.sh,
gkd/megatron/run_moonlight_dsv3_training.sh, rep_exp/config/{engine,ref}/, fapo/config/rm_config.yaml;
alibaba/Pai-Megatron-Patch@a098ca5 examples/qwen3/run_mcore_qwen3_verl.sh and verl_configs/.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_shell, read_yaml_document

F = Path(__file__).resolve().parent / "fixtures" / "verl_p"
A = "actor_rollout_ref"
QWEN = LaunchContext(models=(("*", "qwen3-30b-a3b"),))


def _shell(path: Path, ctx=LaunchContext()):
    launches = [x for x in read_shell(path.read_text()).launches if frameworks.recognise(x, ctx)]
    assert launches, path.name
    (launch,) = launches
    module = frameworks.recognise(launch, ctx)
    return module.NAME, module.derive(launch, ctx)


def _config(path: Path, root: Path, ctx=LaunchContext()):
    text = path.read_text()
    (doc,) = parse_stream(text)
    lf = read_yaml_document(doc, text, str(path), str(root))
    if lf is None or not lf.launches:
        return None, None
    (launch,) = lf.launches
    module = frameworks.recognise(launch, ctx)
    return launch, module.derive(launch, ctx)


def _said(d) -> str:
    return " ".join(n.message for n in d.notes) + " " + " ".join(u.reason for u in d.unread)


def test_a_nested_recipe_module_is_verl_with_its_own_config():
    name, d = _shell(F / "dapo_transfer_queue_npu_p.sh")
    assert name == "verl"
    # the recipe's own config (dapo_transfer_queue_trainer) is not read: the strategy it does not write is unknown
    assert any(u.reason == "train engine not derived: actor_rollout_ref.actor.strategy = not known statically "
               "(a config moecfg has not read)" for u in d.unread)
    assert any("rollout engine not derived" not in u.reason for u in d.unread) and not d.calls or \
        [c.role for c in d.calls] == ["rollout"]


def test_a_recipe_folders_own_entry_is_verl_only_with_verls_keys():
    name, d = _shell(F / "gkd_moonlight_p.sh", QWEN)
    assert name == "verl"
    # on_policy_distill_trainer is the recipe's config: the strategy it does not write is unknown; the rollout is read
    assert [u.reason for u in d.unread] == ["train engine not derived: actor_rollout_ref.actor.strategy = not known "
                                            "statically (a config moecfg has not read)"]
    assert [c.role for c in d.calls] == ["rollout"]
    for other in ("python3 -m main_gkd data.x=1\n", "python3 tools/main_convert.py a.b=1\n",
                  "python3 -m pkg.main_x --actor_rollout_ref 1\n"):
        (launch,) = read_shell(other).launches
        assert frameworks.recognise(launch, LaunchContext()) is None, other


def test_a_config_path_of_the_users_leaves_unwritten_keys_unknown():
    name, d = _shell(F / "pai_p" / "run_mcore_qwen3_verl.sh")
    assert name == "verl"
    # ppo_megatron_trainer.yaml of verl_configs/ is Pai's copy, not verl's: its strategy is not taken from verl
    assert any("strategy = not known statically" in u.reason and "--config-path verl_configs" in u.reason
               for u in d.unread)
    own = read_shell("python3 -m verl.trainer.main_ppo --config-path=config --config-name=ppo_megatron_trainer "
                     f"{A}.rollout.name=vllm\n").launches[0]
    d = frameworks.recognise(own, LaunchContext()).derive(own, LaunchContext())
    assert not any("train engine not derived" in u.reason for u in d.unread)  # verl's own folder: strategy megatron


def test_a_config_is_composed_from_its_folders_groups():
    root = F / "pai_p"
    path = root / "verl_configs" / "ppo_megatron_trainer.yaml"
    launch, d = _config(path, root, QWEN)
    words = {w.value: w.span.line for w in launch.argv}
    # engine/megatron.yaml through actor/megatron_actor.yaml's `../engine@megatron`, at the line of the actor entry
    assert words[f"{A}.actor.megatron.expert_model_parallel_size=8"] == 3
    assert words[f"{A}.actor.strategy=megatron"] == 3 and words[f"{A}.actor.ppo_mini_batch_size=256"] == 3
    assert f"{A}.actor.strategy=???" in words  # actor.yaml, the group's base, comes first: the file's own wins
    order = [w.value for w in launch.argv]
    assert order.index(f"{A}.actor.strategy=???") < order.index(f"{A}.actor.strategy=megatron")
    assert not any("outside" in (w or "") for w in order)  # `../../outside`: not followed
    # rollout/rollout.yaml: EP 3 is not TP 2 x DP 1: verl's assert, at the rollout entry's line
    (n,) = [n for n in d.notes if n.code == "MC709"]
    assert n.span.line == 4
    (train,) = [c for c in d.calls if c.role == "train"]
    assert train.kind == "deepep" and train.arguments["num_ranks"] == 8


def test_a_group_file_is_read_at_verls_package():
    root = F / "recipe_p"
    launch, d = _config(root / "config" / "engine" / "megatron.yaml", root)
    words = [w.value for w in launch.argv]
    assert words[:5] == ["python3", "-m", "verl.trainer.main_ppo", "--config-name", "ppo_megatron_trainer"]
    assert f"{A}.actor.megatron.expert_model_parallel_size=1" in words
    line = next(w.span.line for w in launch.argv if w.value == f"{A}.actor.megatron.expert_model_parallel_size=1")
    assert line == 7
    # the ref copy follows the actor's sizes through oc.select: no ref phase of its own
    launch, d = _config(root / "config" / "ref" / "megatron_ref.yaml", root)
    assert f"{A}.ref.strategy=megatron" in [w.value for w in launch.argv]
    assert [c.role for c in d.calls].count("ref") == 0


@pytest.mark.parametrize("group, text", [
    ("engine", "tensor_model_parallel_size: 2\n"),  # no verl dataclass named, no group base: someone's YAML
    ("other", "_target_: verl.workers.config.McoreEngineConfig\nexpert_model_parallel_size: 2\n"),
    ("engine", "_target_: verl.workers.config.FSDPEngineConfig\nfsdp_size: 2\n"),
])
def test_files_that_are_not_verls_groups_are_not_read(tmp_path, group, text):
    (tmp_path / group).mkdir()
    path = tmp_path / group / ("fsdp.yaml" if "FSDP" in text else "megatron.yaml")
    path.write_text(text)
    assert _config(path, tmp_path) == (None, None)


def test_a_reward_model_engine_is_listed_not_derived():
    root = F / "recipe_p"
    launch, d = _config(root / "config" / "rm_config.yaml", root)
    words = [w.value for w in launch.argv]
    assert words[3:5] == ["--config-name", "ppo_trainer"]
    assert any(u.reason.startswith("reward model engine not derived: reward_model.enable = false")
               for u in d.unread)


@pytest.mark.parametrize("entry, path, verls", [
    ("verl.trainer.main_ppo", "config", True), ("verl.trainer.main_ppo", "./config", True),
    ("recipe.dapo.main_dapo", "../../verl/trainer/config", True),  # MindSpeed-RL@05a90d7 tests/verl_examples/..:73
    ("recipe.dapo.main_dapo", "config", False), ("verl.trainer.main_ppo", "/opt/verl/verl/trainer/config", True),
    ("verl.trainer.main_ppo", "../examples/config", False)])
def test_config_path_is_taken_relative_to_the_entry(entry, path, verls):
    text = f"python3 -m {entry} --config-path={path} --config-name=ppo_megatron_trainer {A}.rollout.name=vllm\n"
    (launch,) = read_shell(text).launches
    d = frameworks.recognise(launch, LaunchContext()).derive(launch, LaunchContext())
    assert (not any("train engine not derived" in u.reason for u in d.unread)) == verls
