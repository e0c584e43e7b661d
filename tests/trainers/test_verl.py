"""trainers/verl: `python3 -m verl.trainer.main_ppo` Hydra overrides -> Megatron-LM actor (+ ref twin) and rollout.

Fixture: volcengine/verl@b178a3c examples/router_replay/run_qwen30_a3b_megatron_sglang.sh (Qwen3-30B-A3B: PP 6, EP 8,
expert-TP 1 over 6 nodes x 8; DeepEP through moe_enable_deepep + flex; SGLang rollout TP 4).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.backends import Options
from moecfg.backends.deepep.arguments import normal_hint_bytes
from moecfg.checking.launch import lint_launch_file
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell
from moecfg.trainers.verl import releases

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "verl" / "run_qwen30_a3b_megatron_sglang.sh"
QWEN = LaunchContext(models=(("*", "qwen3-30b-a3b"),))
A = "actor_rollout_ref"
BASE = (f"python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer {A}.model.path=Qwen/Qwen3-30B-A3B "
        f"{A}.rollout.name={{name}} {A}.actor.megatron.expert_model_parallel_size=8 "
        f"+{A}.actor.megatron.override_transformer_config.moe_token_dispatcher_type=flex "
        f"+{A}.actor.megatron.override_transformer_config.moe_enable_deepep=True {{extra}}")


def _derive(text: str, ctx=LaunchContext()):
    lf = read_shell(text)
    (launch,) = [x for x in lf.launches if frameworks.recognise(x, ctx)]
    module = frameworks.recognise(launch, ctx)
    assert module.NAME == "verl"
    return module.derive(launch, ctx)


def _codes(d) -> list[str]:
    return [n.code for n in d.notes] + [n.code for c in d.calls for n in c.notes]


def test_published_example_train_phase():
    text = FIXTURE.read_text()
    d = _derive(text, QWEN)
    (train,) = [c for c in d.calls if c.role == "train"]
    a = train.arguments
    assert (a["num_ranks"], a["hidden"], a["num_experts"], a["num_topk"]) == (8, 2048, 128, 8)
    assert (a["num_nvl_bytes"], a["num_rdma_bytes"]) == normal_hint_bytes(2048 * 2, 8)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "actor.megatron.expert_model_parallel_size" in t)
    assert train.sources["num_ranks"][0].line == line
    assert "actor_rollout_ref.actor.megatron.expert_model_parallel_size" in train.derivation["num_ranks"]
    # the ref twin repeats the actor's sizes: derived once; the world 6 x 8 = 48 divides PP 6 x EP 8
    assert {c.role for c in d.calls} == {"train", "rollout"} and "MC983" not in _codes(d)


def test_published_example_rollout_phase_is_sglang():
    d = _derive(FIXTURE.read_text(), QWEN)
    (rollout,) = [c for c in d.calls if c.role == "rollout"]
    assert rollout.kind == "none" and "--moe-a2a-backend" in rollout.why_none


def test_config_defaults_come_from_verls_generated_config():
    table = releases.config("ppo_megatron_trainer")["keys"]
    assert table[f"{A}.actor.megatron.tensor_model_parallel_size"]["value"] == 1
    assert table[f"{A}.actor.strategy"]["value"] == "megatron"
    assert releases.config("ppo_trainer")["keys"][f"{A}.actor.strategy"]["value"] == "fsdp"
    assert releases.config("someone_elses") is None


def test_fsdp_actor_is_not_derived_and_said():
    d = _derive(BASE.format(name="vllm", extra="").replace("--config-name=ppo_megatron_trainer ", ""))
    assert not [c for c in d.calls if c.role == "train"]
    said = [u.reason for u in d.unread]
    assert any("actor_rollout_ref.actor.strategy = fsdp" in m for m in said)


def test_unknown_config_leaves_unwritten_keys_unknown():
    d = _derive(BASE.format(name="vllm", extra="").replace("ppo_megatron_trainer", "my_trainer"))
    said = [u.reason for u in d.unread]
    assert any("not known statically" in m for m in said)
    assert not [c for c in d.calls if c.role == "train"]


@pytest.mark.parametrize("tp, dp, ep, code", [(8, 1, 8, None), (4, 2, 8, None), (8, 1, 16, "MC709"),
                                              (4, 1, 8, "MC709")])
def test_rollout_ep_must_be_tp_times_dp(tp, dp, ep, code):
    extra = f"{A}.rollout.tensor_model_parallel_size={tp} {A}.rollout.data_parallel_size={dp} " \
            f"{A}.rollout.expert_parallel_size={ep}"
    d = _derive(BASE.format(name="sglang", extra=extra))
    assert ("MC709" in _codes(d)) == (code == "MC709")


def test_rollout_pipeline_refused():
    d = _derive(BASE.format(name="vllm", extra=f"{A}.rollout.pipeline_model_parallel_size=2"))
    assert "MC710" in _codes(d) and not [c for c in d.calls if c.role == "rollout"]


def test_sglang_rollout_with_deepep_through_engine_kwargs():
    extra = f"{A}.rollout.tensor_model_parallel_size=8 {A}.rollout.expert_parallel_size=8 " \
            f"+{A}.rollout.engine_kwargs.sglang.moe_a2a_backend=deepep"
    d = _derive(BASE.format(name="sglang", extra=extra))
    (rollout,) = [c for c in d.calls if c.role == "rollout"]
    assert (rollout.kind, rollout.arguments["num_ranks"]) == ("deepep", 8)
    assert "engine_kwargs.sglang.moe_a2a_backend" in rollout.derivation["num_ranks"]


def test_vllm_rollout_gets_expert_parallel_from_the_ep_size():
    extra = f"{A}.rollout.tensor_model_parallel_size=8 {A}.rollout.expert_parallel_size=8"
    d = _derive(BASE.format(name="vllm", extra=extra))
    (rollout,) = [c for c in d.calls if c.role == "rollout"]
    assert "no --enable-expert-parallel" not in (rollout.why_none or "")
    d = _derive(BASE.format(name="vllm", extra=f"{A}.rollout.tensor_model_parallel_size=8"))
    (rollout,) = [c for c in d.calls if c.role == "rollout"]
    assert "--enable-expert-parallel" in rollout.why_none


def test_ref_twin_derived_when_it_differs():
    d = _derive(BASE.format(name="vllm", extra=f"{A}.ref.megatron.expert_model_parallel_size=4"))
    roles = sorted(c.role for c in d.calls if c.kind == "deepep")
    assert roles == ["ref", "train"]
    (ref,) = [c for c in d.calls if c.role == "ref"]
    assert ref.arguments["num_ranks"] == 4


def test_world_size_from_trainer_nodes_and_gpus():
    extra = "trainer.nnodes=1 trainer.n_gpus_per_node=4"
    d = _derive(BASE.format(name="vllm", extra=extra))
    (n,) = [n for n in d.notes if n.code == "MC983"]
    assert "trainer.nnodes 1 x trainer.n_gpus_per_node 4" in n.message
    assert "actor_rollout_ref.actor.megatron.expert_model_parallel_size 4" in n.message
    d = _derive(BASE.format(name="vllm", extra="trainer.nnodes=1 trainer.n_gpus_per_node=8"))
    assert "MC983" not in _codes(d)


def test_inside_ray_job_submit():
    d = _derive("ray job submit --address=http://x:8265 -- " + BASE.format(name="vllm", extra=""))
    assert [c.role for c in d.calls if c.kind == "deepep"] == ["train"]


def test_unknown_model_with_expert_parallelism_asks_for_it():
    text = BASE.format(name="vllm", extra="").replace("Qwen/Qwen3-30B-A3B", "$MODEL")
    results = lint_launch_file(read_shell(text), "t", LaunchContext(), Options())
    (d,) = [d for r in results for d in r.diagnostics if d.code == "MC042" and "model.path" in d.message]
    assert d.column == text.index(f"{A}.model.path") + 1


def test_unknown_words_said_only_beside_a_derived_buffer():
    text = BASE.format(name="vllm", extra="$EXTRA")
    assert any("not known statically" in n.message for n in _derive(text).notes if n.code == "MC023")
    fsdp = text.replace("--config-name=ppo_megatron_trainer ", "")
    assert not any("word(s) of the verl command" in n.message for n in _derive(fsdp).notes)


def _config_launch(text: str):
    from moecfg.sources.manifests.yaml_source import parse_stream
    from moecfg.sources.readers import read_yaml_document

    (doc,) = parse_stream(text)
    return read_yaml_document(doc, text, "c.yaml")


def test_a_config_file_is_read_over_its_defaults_base():
    path = FIXTURE.parent / "geo3k_multiturn_megatron_grpo.yaml"
    text = path.read_text()
    (launch,) = _config_launch(text).launches
    words = [w.value for w in launch.argv]
    assert words[:5] == ["python3", "-m", "verl.trainer.main_ppo", "--config-name", "ppo_megatron_trainer"]
    assert f"{A}.rollout.name=sglang" in words and not any(w.startswith("data.") for w in words)
    d = frameworks.recognise(launch, LaunchContext()).derive(launch, LaunchContext())
    # the model path is the base config's placeholder: not known, no EP set: the train phase is quiet
    assert [(c.role, c.kind, c.quiet) for c in d.calls][0] == ("train", "none", True)
    assert [c.role for c in d.calls] == ["train", "rollout"]


def test_a_config_file_with_expert_parallelism_positions_findings_at_its_keys():
    text = ("defaults:\n  - ppo_megatron_trainer\n  - _self_\nactor_rollout_ref:\n  model:\n    path: Qwen/Qwen3-30B-A3B\n"
            "  actor:\n    megatron:\n      expert_model_parallel_size: 8\n  rollout:\n    name: vllm\n"
            "    tensor_model_parallel_size: 8\n    expert_parallel_size: 16\ntrainer:\n  nnodes: 1\n"
            "  n_gpus_per_node: 8\n")
    (launch,) = _config_launch(text).launches
    d = frameworks.recognise(launch, QWEN).derive(launch, QWEN)
    (n,) = [n for n in d.notes if n.code == "MC709"]
    assert n.span.line == 13  # expert_parallel_size: 16
    assert [c.role for c in d.calls if c.kind == "deepep"] == []  # no flex dispatcher: Megatron's default allgather


def test_refused_sizes_are_not_judged_by_the_ep_rule():
    extra = f"{A}.rollout.tensor_model_parallel_size=-1 {A}.rollout.data_parallel_size=0 " \
            f"{A}.rollout.expert_parallel_size=4"
    assert "MC709" not in _codes(_derive(BASE.format(name="sglang", extra=extra)))


def test_malformed_values_give_findings_not_tracebacks(tmp_path):
    texts = [BASE.format(name="[vllm]", extra=f"{A}.actor.megatron.expert_model_parallel_size=\x1b[31m =x ~d ++c=1"),
             "megatron sft --model --expert_model_parallel_size\n",
             "python3 train.py --sglang-pp-size 0 --rollout-num-gpus-per-engine 0 --actor-num-nodes -1\n"]
    for text in texts:
        results = lint_launch_file(read_shell(text), "t", LaunchContext(), Options())
        assert all(d.code != "MC019" for r in results for d in r.diagnostics)


def test_the_release_from_the_settings_chooses_its_defaults():
    from moecfg.trainers import verl

    assert verl.VERSIONS == releases.versions() and releases.newest() == "0.7.0"
    assert (releases.match("0.6"), releases.match("v0.5.0"), releases.match("0.4.1")) == ("0.6.1", "0.5.0", None)
    # the rollout TP default was 1 in v0.5.0, 2 from v0.6.0 on (verl/trainer/config/_generated_ppo_megatron_trainer.yaml)
    from moecfg.trainers.verl import calls

    lf = read_shell(BASE.format(name="vllm", extra=""))
    tp = f"{A}.rollout.tensor_model_parallel_size"
    assert calls._Keys(lf.launches[0], 3, "0.5.0").get(tp).value == "1"
    assert calls._Keys(lf.launches[0], 3, "0.7.0").get(tp).value == "2"
    text = BASE.format(name="vllm", extra=f"{A}.rollout.expert_parallel_size=2")
    old = LaunchContext(framework_versions=(("verl", "0.5.0"),))
    d = _derive(text, old)
    assert d.version == "0.5.0" and not [n for n in d.notes if n.code == "MC040" and "verl" in n.message]
    unread = _derive(text, LaunchContext(framework_versions=(("verl", "0.4.1"),)))
    assert any(n.code == "MC023" and "0.4.1" in n.message for n in unread.notes) and "MC709" not in _codes(unread)


def test_experimental_and_recipe_entries_are_verl_with_their_own_config():
    for module, config in (("verl.experimental.one_step_off_policy.main_ppo", "?"),
                           ("verl.experimental.fully_async_policy.fully_async_main", "?"),
                           ("verl.experimental.transfer_queue.main_ppo", "ppo_trainer"),
                           ("recipe.fully_async_policy.fully_async_main", "?")):
        (launch,) = read_shell(f"python3 -m {module} trainer.nnodes=1\n").launches
        d = frameworks.recognise(launch, LaunchContext()).derive(launch, LaunchContext())
        assert d.framework == "verl"
        said = " ".join(n.message for n in d.notes if n.code == "MC040")
        assert ("the entry's own config" in said) == (config == "?"), module
    for other in ("verl.model_merger", "verl.trainer.fsdp_sft_trainer", "verl.trainer.main_generation"):
        (launch,) = read_shell(f"python3 -m {other} a=1\n").launches
        assert frameworks.recognise(launch, LaunchContext()) is None


@pytest.mark.parametrize("tp, gpus, refused", [(4, 8, False), (3, 8, True), (3, 6, False)])
def test_vllm_ep_needs_tp_to_divide_the_gpus_per_node(tp, gpus, refused):
    extra = f"{A}.rollout.tensor_model_parallel_size={tp} {A}.rollout.data_parallel_size=2 " \
            f"{A}.rollout.expert_parallel_size={2 * tp} trainer.n_gpus_per_node={gpus} trainer.nnodes=2"
    assert ("MC711" in _codes(_derive(BASE.format(name="vllm", extra=extra)))) == refused
    assert "MC711" not in _codes(_derive(BASE.format(name="sglang", extra=extra)))  # the vLLM server's check only
