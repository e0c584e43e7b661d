"""trainers/nemo_rl and sources/recipes/nemo_rl: NVIDIA NeMo-RL configs (defaults inheritance, interpolations) and
`run_grpo.py --config X key=value` launches -> the Megatron-LM policy and the vLLM / SGLang rollout, NeMo-RL's own
vLLM checks (MC712, MC713), its one-train-backend check (MC733) and Megatron's world check (MC983).

Fixtures (tests/trainers/fixtures/nemo_rl/, the repository's own layout so `defaults:` resolves as published):
NVIDIA-NeMo/RL@7ea279abf examples/configs/grpo_math_1B.yaml (the sections moecfg reads),
examples/configs/recipes/llm/grpo-qwen3-30ba3b-8n8g-megatron.yaml and grpo-dapomath17k-dsv3-megatron.yaml (as published).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources import contained
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_shell, read_yaml_document
from moecfg.sources.recipes import nemo_rl as R

ROOT = Path(__file__).resolve().parent / "fixtures" / "nemo_rl"
RECIPES = ROOT / "examples" / "configs" / "recipes" / "llm"
QWEN = RECIPES / "grpo-qwen3-30ba3b-8n8g-megatron.yaml"
DSV3 = RECIPES / "grpo-dapomath17k-dsv3-megatron.yaml"
CTX = LaunchContext()
V3 = LaunchContext(models=(("*", "deepseek-v3"),))
RUN = "uv run python examples/run_grpo.py --config examples/configs/recipes/llm/grpo-qwen3-30ba3b-8n8g-megatron.yaml "


def _config_launch(path: Path, root: Path = ROOT):
    text = path.read_text()
    (doc,) = parse_stream(text)
    lf = read_yaml_document(doc, text, str(path), str(root))
    (launch,) = lf.launches
    return launch


def _derive(launch, ctx=CTX, root: Path = ROOT):
    with contained.checking(str(root)):
        module = frameworks.recognise(launch, ctx)
        assert module is not None and module.NAME == "nemo-rl"
        return module.derive(launch, ctx)


def _shell(text: str, ctx=CTX):
    (launch,) = read_shell(text + "\n").launches
    return _derive(launch, ctx)


def _codes(d) -> list[str]:
    return [n.code for n in d.notes if n.code not in ("MC040", "MC023")]


def _said(call) -> str:
    return " ".join([*call.derivation.values(), call.why_none or "", *(n.message for n in call.notes)])


def _settings(path: Path) -> dict:
    launch = _config_launch(path)
    return {(w.value or w.pattern).split("=", 1)[0]: w.value.split("=", 1)[1] if w.value else None
            for w in launch.argv[4:] if "=" in (w.value or w.pattern or "")}


def test_a_recipe_inherits_its_parent_and_resolves_interpolations():
    s = _settings(DSV3)
    assert s["policy.megatron_cfg.expert_model_parallel_size"] == "32"  # the recipe's own
    assert s["policy.megatron_cfg.expert_tensor_parallel_size"] == "1"  # the parent's
    assert s["policy.make_sequence_length_divisible_by"] == "64"  # ${mul:TP 8, ${mul:2, CP 4}}
    assert s["policy.generation.vllm_cfg.max_model_len"] == "16384"  # the parent's ${policy.max_...} over the child
    assert s["policy.generation.val_temperature"] == "1.0"  # ${.temperature}: relative
    assert s["policy.megatron_cfg.pipeline_dtype"] == "bfloat16"


def test_inherited_settings_sit_on_the_defaults_key_and_own_ones_on_their_value():
    launch = _config_launch(QWEN)
    at = {(w.value or "").split("=", 1)[0]: w.span.line for w in launch.argv if w.value}
    assert at["policy.megatron_cfg.expert_model_parallel_size"] == 26  # the recipe's line 25 (+1: the citation)
    assert at["policy.megatron_cfg.expert_tensor_parallel_size"] == 2  # `defaults:`


def test_a_parent_outside_the_tree_leaves_its_settings_unknown_and_is_listed():
    launch = _config_launch(QWEN, root=RECIPES)
    d = _derive(launch, root=RECIPES)
    assert any("parent config not read" in u.reason and "grpo_math_1B.yaml" in u.reason for u in d.unread)
    assert not _codes(d)  # nothing is judged on settings not known
    assert any("policy.generation.backend = not known statically" in u.reason for u in d.unread)


@pytest.mark.parametrize("value,expected", [
    ("${oc.env:HOME}", None), ("${mul:${a}, 3}", "6"), ("${add:${a}, ${b.c}}", "5"), ("x-${a}", "x-2"),
    ("${missing.key}", None), ("${div:${a}, 0}", None), ("${max:${a}, ${b.c}}", "3")])
def test_interpolations_resolved_or_unknown(value, expected):
    tree = R.merge({"a": 2, "b": {"c": 3}}, {"policy": {"x": value}})
    ((_, got, _),) = R.settings(tree, ("policy",))
    assert got == expected


def test_merge_override_marker_and_missing_values():
    base = {"policy": {"a": 1, "b": 2}, "cluster": {"num_nodes": 4}}
    merged = R.merge(base, {"policy": {"_override_": True, "a": 5}, "cluster": {"num_nodes": "???"}})
    assert merged == {"policy": {"a": 5}, "cluster": {"num_nodes": 4}}  # config.py:30-48; `???` keeps the parent's


def test_the_published_qwen3_recipe_has_a_train_and_a_rollout_phase():
    d = _derive(_config_launch(QWEN))
    assert [c.role for c in d.calls] == ["train", "rollout"] and not _codes(d)
    train, rollout = (_said(c) for c in d.calls)
    assert "[policy.megatron_cfg.moe_token_dispatcher_type (from ../../grpo_math_1B.yaml)] alltoall" in train
    assert "no --enable-expert-parallel" in rollout  # vllm_cfg.expert_parallel_size 1 (the parent's)


def test_the_dsv3_recipe_derives_deepep_over_ep32():
    d = _derive(_config_launch(DSV3), V3)
    assert not _codes(d)
    train = d.calls[0]
    assert (train.role, train.kind, train.arguments["num_ranks"], train.arguments["hidden"],
            train.arguments["num_experts"]) == ("train", "deepep", 32, 7168, 256)
    assert "policy.megatron_cfg.expert_model_parallel_size" in _said(train)


def test_a_shell_launch_reads_its_config_and_applies_the_overrides():
    d = _shell(RUN + "policy.megatron_cfg.expert_model_parallel_size=8 policy.megatron_cfg.moe_token_dispatcher_type=flex"
               " policy.megatron_cfg.moe_enable_deepep=true policy.megatron_cfg.pipeline_model_parallel_size=1",
               LaunchContext(models=(("*", "qwen3-30b-a3b"),)))
    train = d.calls[0]
    assert (train.kind, train.arguments["num_ranks"]) == ("deepep", 8)
    assert "policy.megatron_cfg.expert_model_parallel_size" in _said(train)


def test_an_override_also_changes_what_interpolates_it():
    d = _shell(RUN + "policy.max_total_sequence_length=1024 policy.generation.vllm_cfg.tensor_parallel_size=3")
    assert "MC713" in _codes(d)  # 64 GPUs, vLLM TP 3


def test_a_config_not_known_statically_is_listed():
    d = _shell("uv run python examples/run_grpo.py --config $CONFIG_PATH policy.megatron_cfg.enabled=true")
    assert not d.calls and any("not known statically" in u.reason for u in d.unread)


def test_the_entry_script_default_config_is_read():
    d = _shell("uv run python examples/run_grpo.py policy.generation.vllm_cfg.tensor_parallel_size=1")
    assert any("DTensor" in u.reason for u in d.unread)  # grpo_math_1B.yaml: dtensor_cfg.enabled
    assert [c.role for c in d.calls] == ["rollout"]


V = "policy.generation.vllm_cfg."


@pytest.mark.parametrize("tp,ep,engine,code", [
    (4, 8, "false", None), (4, 6, "false", "MC712"), (4, 8, "true", "MC712"), (4, 4, "true", None)])
def test_vllm_expert_parallel_checks(tp, ep, engine, code):
    d = _shell(RUN + f"{V}tensor_parallel_size={tp} {V}expert_parallel_size={ep} {V}async_engine={engine}")
    assert [c for c in _codes(d) if c.startswith("MC7")] == ([code] if code else [])


@pytest.mark.parametrize("engine,code", [("true", None), ("false", "MC713")])
def test_vllm_pipeline_needs_the_async_engine(engine, code):
    d = _shell(RUN + f"{V}pipeline_parallel_size=2 {V}async_engine={engine}")
    assert [c for c in _codes(d) if c.startswith("MC7")] == ([code] if code else [])


@pytest.mark.parametrize("gen_gpus,tp,code", [(2, 2, None), (2, 4, "MC713"), (4, 4, None)])
def test_non_colocated_generation_gpus(gen_gpus, tp, code):
    d = _shell(RUN + f"cluster.num_nodes=1 policy.generation.colocated.enabled=false "
               f"policy.generation.colocated.resources.gpus_per_node={gen_gpus} {V}tensor_parallel_size={tp} "
               "policy.megatron_cfg.tensor_model_parallel_size=1 policy.megatron_cfg.pipeline_model_parallel_size=1 "
               "policy.megatron_cfg.expert_model_parallel_size=2")
    assert ("MC713" in _codes(d)) == (code is not None)


@pytest.mark.parametrize("tp,code", [(4, None), (3, "MC983")])
def test_the_policy_world_is_megatrons(tp, code):
    d = _shell(RUN + f"policy.megatron_cfg.tensor_model_parallel_size={tp}")
    assert ("MC983" in _codes(d)) == (code is not None)


def test_dtensor_expert_parallelism_is_listed_not_derived():
    d = _shell(RUN + "policy.megatron_cfg.enabled=false policy.dtensor_cfg.enabled=true "
               "policy.dtensor_cfg.expert_parallel_size=8")
    assert any("DTensor / Automodel" in u.reason and "expert_parallel_size=8" in u.reason for u in d.unread)


def test_the_sglang_rollout():
    d = _shell(RUN + "policy.generation.backend=sglang policy.generation.sglang_cfg.tp_size=4 "
               "policy.generation.sglang_cfg.ep_size=4 policy.generation.sglang_cfg.dp_size=1 "
               "policy.generation.sglang_cfg.pp_size=1")
    assert [c.role for c in d.calls] == ["train", "rollout"]
    assert "SGLang" in d.calls[1].derivation.get("engine", "")


def test_megatron_generation_is_listed():
    d = _shell(RUN + "policy.generation.backend=megatron")
    assert any("policy.generation.backend = megatron" in u.reason for u in d.unread)


def test_prose_and_other_scripts_are_not_nemo_rl():
    (launch,) = read_shell("python tools/run_grpo_helper.py --config x.yaml\n").launches
    assert frameworks.recognise(launch, CTX) is None or frameworks.recognise(launch, CTX).NAME != "nemo-rl"


def test_a_null_model_is_not_known_statically():
    # NVIDIA-NeMo/RL@7ea279abf examples/nemo_gym/nemotron-3-ultra/student_rlvr1.yaml:133 `model_name: null`
    d = _shell(RUN + "policy.model_name=null")
    (ask,) = [n for n in d.notes if n.code == "MC042"]
    assert "not known statically" in ask.message and "'null'" not in ask.message


def test_a_test_suite_script_reads_the_config_its_common_env_names():
    # NVIDIA-NeMo/RL@7ea279abf tests/test_suites/llm/common.env:40,50: CONFIG_PATH = examples/configs/recipes/llm/
    # <the script's name>.yaml
    script = ROOT / "tests" / "test_suites" / "llm" / "grpo-qwen3-30ba3b-8n8g-megatron.sh"
    launches = [x for x in read_shell(script.read_text()).launches if "examples/run_grpo.py" in x.words()]
    d = _derive(launches[0], LaunchContext(file=str(script)))
    assert [c.role for c in d.calls] == ["train", "rollout"] and not d.unread
    assert "grpo-qwen3-30ba3b-8n8g-megatron.yaml, named by common.env" in _said(d.calls[0])
    other = LaunchContext(file=str(ROOT / "examples" / "run.sh"))  # not a test-suite script: not known
    assert any("not known statically" in u.reason for u in _derive(launches[0], other).unread)


def test_a_ray_job_whose_entrypoint_is_a_shell_script():
    # NVIDIA-NeMo/RL@7ea279abf infra/examples/disagg-jobset.yaml:346-348 (`ray job submit ... -- bash -c "cd ... &&
    # python examples/nemo_gym/run_grpo_nemo_gym.py ..."`), here with a config of the fixture tree
    text = ('ray job submit --address http://head:8265 --submission-id x -- bash -c "cd /workspace/nemo-rl && '
            'python examples/run_grpo.py --config examples/configs/recipes/llm/grpo-qwen3-30ba3b-8n8g-megatron.yaml '
            'policy.megatron_cfg.expert_model_parallel_size=8 policy.megatron_cfg.pipeline_model_parallel_size=1 '
            'policy.megatron_cfg.moe_token_dispatcher_type=flex policy.megatron_cfg.moe_enable_deepep=true" '
            '2>&1 | tee driver.log\n')
    launches = [x for x in read_shell(text).launches if "examples/run_grpo.py" in x.words()]
    d = _derive(launches[0], LaunchContext(models=(("*", "qwen3-30b-a3b"),)))
    assert [c.role for c in d.calls] == ["train", "rollout"]
    assert (d.calls[0].kind, d.calls[0].arguments["num_ranks"]) == ("deepep", 8)


def test_an_interpreter_held_in_a_variable():
    # NVIDIA-NeMo/RL@7ea279abf tests/test_suites/llm/grpo-qwen3-30ba3b-2n8g-megatron_fused_linear_logprobs.sh:20
    d = _shell("${NRL_PYTHON:-python} examples/run_grpo.py --config "
               "examples/configs/recipes/llm/grpo-qwen3-30ba3b-8n8g-megatron.yaml grpo.max_num_steps=$MAX_STEPS")
    assert [c.role for c in d.calls] == ["train", "rollout"]


def test_parents_are_read_a_bounded_number_of_times(tmp_path):
    many = "defaults: [" + ", ".join(["p.yaml"] * 40) + "]\npolicy: {model_name: x}\n"
    (tmp_path / "p.yaml").write_text(many)
    got = R.compose({"defaults": ["p.yaml"] * 40, "policy": {}}, str(tmp_path), (str(tmp_path),))
    assert any(f"more than {R.MAX_PARENTS} parent configs" in m for m in got.missing)


def test_a_parent_outside_the_tree_is_not_read(tmp_path):
    inner = tmp_path / "tree"
    inner.mkdir()
    (tmp_path / "secret.yaml").write_text("cluster: {num_nodes: 4}\n")
    got = R.compose({"defaults": "../secret.yaml", "policy": {}}, str(inner), (str(inner),))
    assert got.missing and "cluster" not in got.tree


def test_hybridep_is_listed_not_asked():
    # NVIDIA-NeMo/RL@7ea279abf examples/configs/recipes/llm/performance/grpo-qwen3-235b-16n4g.yaml:9-11
    d = _shell(RUN + "policy.megatron_cfg.moe_token_dispatcher_type=flex "
               "policy.megatron_cfg.moe_flex_dispatcher_backend=hybridep policy.megatron_cfg.pipeline_model_parallel_size=1",
               LaunchContext(models=(("*", "qwen3-30b-a3b"),)))
    assert not [n for n in d.notes if n.code == "MC042"]
    assert any("HybridEP" in u.reason and "first micro-batch" in u.reason for u in d.unread)
    assert "MC042" not in d.calls[0].why_none and "first micro-batch" in d.calls[0].why_none


@pytest.mark.parametrize("gpus,code", [(8, None), (6, "MC983")])
def test_an_sft_launch_trains_on_the_whole_cluster(gpus, code):
    # NVIDIA-NeMo/RL@7ea279abf nemo_rl/algorithms/sft.py:187-194: one cluster of gpus_per_node x num_nodes
    d = _shell("uv run python examples/run_sft.py --config examples/configs/recipes/llm/grpo-qwen3-30ba3b-8n8g-"
               f"megatron.yaml cluster.num_nodes=1 cluster.gpus_per_node={gpus} "
               "policy.megatron_cfg.pipeline_model_parallel_size=1")
    assert ("MC983" in _codes(d)) == (code is not None)


def test_model_overrides_change_the_moe_shape():
    # NVIDIA-NeMo/RL@7ea279abf nemo_rl/models/megatron/setup.py:662-670 (model_overrides over the provider)
    d = _shell(RUN + "policy.megatron_cfg.expert_model_parallel_size=8 policy.megatron_cfg.moe_token_dispatcher_type=flex"
               " policy.megatron_cfg.moe_enable_deepep=true policy.megatron_cfg.pipeline_model_parallel_size=1 "
               "+policy.megatron_cfg.model_overrides.num_moe_experts=64", LaunchContext(models=(("*", "qwen3-30b-a3b"),)))
    assert (d.calls[0].kind, d.calls[0].arguments["num_experts"]) == ("deepep", 64)


def test_another_repositorys_example_script_is_not_nemo_rl():
    # NVIDIA/Megatron-LM examples/run_simple_mcore_train_loop.py
    (launch,) = read_shell("python examples/run_simple_mcore_train_loop.py --config x.yaml\n").launches
    module = frameworks.recognise(launch, CTX)
    assert module is None or module.NAME != "nemo-rl"


def test_a_ray_sub_command_string():
    # NVIDIA-NeMo/RL@7ea279abf docs/cluster.md (`COMMAND="uv run ./examples/run_grpo.py ..." sbatch ... ray.sub`;
    # ray.sub:221-227, :824 runs COMMAND with bash on the head node), here with a config of the fixture tree
    text = ('COMMAND="uv run ./examples/run_grpo.py --config examples/configs/recipes/llm/grpo-qwen3-30ba3b-8n8g-'
            'megatron.yaml policy.megatron_cfg.tensor_model_parallel_size=3" \\\n'
            'CONTAINER=YOUR_CONTAINER MOUNTS="$PWD:$PWD" sbatch --nodes=8 --account=YOUR_ACCOUNT ray.sub\n')
    d = _shell(text)
    assert "MC983" in _codes(d)  # 64 GPUs, TP 3 x PP 4: Megatron refuses it
    (note,) = [n for n in d.notes if n.code == "MC983"]
    assert note.span.line == 1  # at the COMMAND assignment


def test_an_own_setting_is_named_without_its_parent():
    d = _derive(_config_launch(DSV3), V3)
    assert "--expert-model-parallel-size [policy.megatron_cfg.expert_model_parallel_size] 32" in _said(d.calls[0])


@pytest.mark.parametrize("megatron,dtensor,code", [("true", "false", None), ("false", "true", None),
                                                   ("true", "true", "MC733"), ("false", "false", "MC733")])
def test_exactly_one_train_backend(megatron, dtensor, code):
    # NVIDIA-NeMo/RL@7ea279abf nemo_rl/models/policy/lm_policy.py:121-125, :155-160
    d = _shell(RUN + f"policy.megatron_cfg.enabled={megatron} policy.dtensor_cfg.enabled={dtensor}")
    assert ("MC733" in _codes(d)) == (code is not None)
