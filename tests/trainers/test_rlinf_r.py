"""trainers/rlinf: an RLinf config (sources/recipes/rlinf.py) -> the Megatron-LM actor and the SGLang / vLLM rollout,
each engine flag named with the RLinf key that set it; RLinf's own checks (MC729, MC734).

Fixtures (trimmed to the sections moecfg reads): RLinf/RLinf@a3816b596
examples/reasoning/config/math/qwen3-30b-grpo-megatron.yaml (actor TP 4 x PP 2 x EP 8, alltoall; SGLang rollout TP 4,
collocated over `all` GPUs of 16 nodes) and tests/e2e_tests/reasoning/moonlight-16b-grpo-mbridge-sgl.yaml (deepseek_v3
through Megatron-Bridge, EP 8; SGLang rollout TP 8 with rollout.sglang.enable_ep_moe).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_shell, read_yaml_document
from moecfg.trainers.rlinf.calls import ranks

HERE = Path(__file__).resolve().parent / "fixtures" / "rlinf"
QWEN = HERE / "qwen3-30b-grpo-megatron.yaml"
MOONLIGHT = HERE / "moonlight-16b-grpo-mbridge-sgl.yaml"
CTX = LaunchContext()
ANY_MOE = LaunchContext(models=(("*", "qwen3-30b-a3b"),))  # Moonlight is not a preset: the shape is the user's


def _derive(text: str, ctx=CTX):
    (doc,) = parse_stream(text)
    (launch,) = read_yaml_document(doc, text, "x.yaml", str(HERE)).launches
    module = frameworks.recognise(launch, ctx)
    assert module.NAME == "rlinf"
    return module.derive(launch, ctx)


def _line(text: str, word: str) -> int:
    return next(i for i, t in enumerate(text.splitlines(), 1) if word in t)


def _codes(d) -> list[str]:
    return [n.code for n in d.notes if n.code != "MC040"]


def _said(call) -> str:
    return " ".join([*call.derivation.values(), call.why_none or "", *(n.message for n in call.notes)])


@pytest.mark.parametrize("value,count", [("0-7", 8), ("0-3,8-11", 8), ("4", 1), ("all", None), (None, None),
                                         ("0-x", None)])
def test_placement_counts_what_parse_rank_config_would_list(value, count):
    assert ranks(value) == count


def test_train_and_rollout_phases_named_by_their_keys():
    text = QWEN.read_text()
    d = _derive(text)
    assert [c.role for c in d.calls] == ["train", "rollout"]
    train, rollout = d.calls
    assert train.kind == "none" and "actor.model.moe_token_dispatcher_type" in _said(train)  # alltoall: NCCL
    assert "SGLang" in rollout.derivation["engine"] and "sglang_worker.py" in rollout.derivation["engine"]
    assert not _codes(d)
    (fusco,) = d.unread  # RLinf's own dispatcher, when the fusco library is in the image
    assert "FUSCO not derived" in fusco.reason


def test_the_train_argv_carries_the_actor_sizes_at_their_lines():
    from moecfg.trainers.rlinf import calls

    text = QWEN.read_text()
    (doc,) = parse_stream(text)
    (launch,) = read_yaml_document(doc, text, "x.yaml", str(HERE)).launches
    k = calls._Keys(launch)
    ep = k.get("actor.model.expert_model_parallel_size")
    assert (ep.value, ep.span.line) == ("8", _line(text, "expert_model_parallel_size: 8"))
    assert k.get("actor.model.seq_length").value == "28672"  # ${runner.seq_length} resolved
    assert k.get("rollout.model.precision").value == "fp16"  # ${actor.model.precision}


def _argv(text: str, monkeypatch, ctx=ANY_MOE) -> dict[str, list]:
    """The argv each phase hands to its engine: {role: [(word, the key that set its flag), ...]}."""
    from moecfg.trainers import phases

    seen: dict[str, list] = {}
    real = phases.run_phase

    def spy(out, framework, args, launch, ctx, role, engine):
        seen[role] = [w.value for w in args.words], dict(args.named)
        return real(out, framework, args, launch, ctx, role, engine)

    monkeypatch.setattr(phases, "run_phase", spy)
    _derive(text, ctx)
    return seen


def _flag(argv, flag):
    words, named = argv
    return words[words.index(flag) + 1] if flag in words else None, named.get(flag, "")


def test_sglang_expert_parallel_rollout_from_enable_ep_moe(monkeypatch):
    seen = _argv(MOONLIGHT.read_text(), monkeypatch)
    assert seen["rollout"][0][:3] == ["python3", "-m", "sglang.launch_server"]
    assert _flag(seen["rollout"], "--tp-size")[0] == "8"
    value, key = _flag(seen["rollout"], "--ep-size")  # ep_size = tp_size (sglang_worker.py:171-175)
    assert value == "8" and key.startswith("rollout.sglang.enable_ep_moe")
    assert _flag(seen["rollout"], "--mem-fraction-static")[0] == "0.55"


def test_without_enable_ep_moe_the_rollout_has_no_expert_parallelism(monkeypatch):
    seen = _argv(MOONLIGHT.read_text().replace("    enable_ep_moe: true\n", ""), monkeypatch)
    assert "--ep-size" not in seen["rollout"][0]


def test_rlinf_defaults_said_as_defaults(monkeypatch):
    seen = _argv(MOONLIGHT.read_text().replace("  gpu_memory_utilization: 0.55\n", ""), monkeypatch)
    value, key = _flag(seen["rollout"], "--mem-fraction-static")
    assert value == "0.65" and "RLinf's default" in key and "config.py:303" in key


def test_train_argv_from_actor_model_and_megatron(monkeypatch):
    seen = _argv(QWEN.read_text(), monkeypatch, CTX)
    train = seen["train"]
    assert [_flag(train, f)[0] for f in ("--tensor-model-parallel-size", "--pipeline-model-parallel-size",
                                         "--expert-model-parallel-size", "--expert-tensor-parallel-size",
                                         "--moe-token-dispatcher-type", "--seq-length")] == \
        ["4", "2", "8", "1", "alltoall", "28672"]
    assert "--sequence-parallel" in train[0] and "--context-parallel-size" in train[0]
    assert "RLinf's default" in _flag(train, "--context-parallel-size")[1]  # config.py:757
    assert _flag(train, "--num-experts")[0] == "128"  # the model's, from rollout.model.model_path


def test_bridge_deepseek_keeps_the_providers_dispatcher_unknown():
    d = _derive(MOONLIGHT.read_text(), ANY_MOE)
    note = next(n for n in d.notes if n.code == "MC023")
    assert "Megatron-Bridge provider's moe_token_dispatcher_type" in note.message
    train = next(c for c in d.calls if c.role == "train")
    assert train.kind == "none" and "alltoall" not in _said(train)  # actor.model's alltoall is not the provider's


def test_an_unknown_model_with_expert_parallelism_asks_for_it():
    d = _derive(MOONLIGHT.read_text())
    assert "MC042" in _codes(d)


@pytest.mark.parametrize("etp,mbridge,code", [(4, "False", None), (8, "False", "MC729"), (8, "True", None)])
def test_expert_tp_above_tp_without_bridge(etp, mbridge, code):
    text = QWEN.read_text().replace("expert_tensor_parallel_size: 1", f"expert_tensor_parallel_size: {etp}") \
        .replace("    use_hf_ckpt: True\n", f"    use_hf_ckpt: True\n    mbridge: {mbridge}\n")
    d = _derive(text)
    assert ("MC729" in _codes(d)) == (code == "MC729")
    if code:
        note = next(n for n in d.notes if n.code == "MC729")
        assert note.span.line == _line(text, "expert_tensor_parallel_size: 8") and not d.calls


@pytest.mark.parametrize("rtp,placement,code", [(2, "actor,rollout,reward: all", None),
                                                 (4, "actor,rollout,reward: all", None),
                                                 (8, "actor,rollout,reward: all", None),
                                                 (3, "actor,rollout,reward: all", "MC734"),
                                                 (3, "actor,reward: 0-7\n    rollout: 0-7", "MC734"),
                                                 (3, "actor,reward: 0-7\n    rollout: 8-15", None)])
def test_collocated_actor_tp_over_rollout_tp(rtp, placement, code):
    text = QWEN.read_text().replace("  tensor_parallel_size: 4\n", f"  tensor_parallel_size: {rtp}\n") \
        .replace("actor,rollout,reward: all", placement)
    d = _derive(text)
    assert ("MC734" in _codes(d)) == (code == "MC734")
    if code:
        note = next(n for n in d.notes if n.code == "MC734")
        assert note.span.line == _line(text, f"  tensor_parallel_size: {rtp}") and "placement.py:281-284" in \
            note.message


def test_an_explicit_actor_placement_is_megatrons_world():
    text = QWEN.read_text().replace("actor,rollout,reward: all", "actor,rollout,reward: 0-11")
    d = _derive(text)  # 12 GPUs / (TP 4 x PP 2): Megatron refuses
    assert "MC983" in _codes(d) and "train" not in [c.role for c in d.calls]
    assert "0-11" in next(n.message for n in d.notes if n.code == "MC983")


def test_fsdp_actor_is_listed_not_derived():
    d = _derive(QWEN.read_text().replace("training_backend: megatron", "training_backend: fsdp"))
    assert any("actor.training_backend = fsdp" in u.reason for u in d.unread)
    assert [c.role for c in d.calls] == ["rollout"]


def test_vllm_rollout_has_no_expert_parallelism(monkeypatch):  # vllm_worker.py:337-350 passes none
    seen = _argv(QWEN.read_text().replace("rollout_backend: sglang", "rollout_backend: vllm"), monkeypatch, CTX)
    words = seen["rollout"][0]
    assert words[:2] == ["vllm", "serve"] and _flag(seen["rollout"], "--tensor-parallel-size")[0] == "4"
    assert "--enable-expert-parallel" not in words and _flag(seen["rollout"], "--max-num-seqs")[0] == "64"
    assert "--max-num-batched-tokens" not in words  # null: vLLM's own


def test_the_shell_launch_names_its_config():
    # RLinf/RLinf@a3816b596 examples/reasoning/run_main_grpo_math.sh:9-20
    text = ('CONFIG_PATH="$( cd "$( dirname "${BASH_SOURCE[0]}" )" && pwd )"\nREPO_PATH=$(dirname $(dirname '
            '"$CONFIG_PATH"))\npython ${REPO_PATH}/examples/reasoning/main_grpo.py --config-path '
            '${CONFIG_PATH}/config/math/  --config-name qwen3-30b-grpo-megatron\n')
    launch = read_shell(text).launches[-1]
    module = frameworks.recognise(launch, CTX)
    assert module is not None and module.NAME == "rlinf"
    (unread,) = module.derive(launch, CTX).unread
    assert "qwen3-30b-grpo-megatron.yaml" in unread.reason


def test_another_hydra_script_is_not_rlinf():
    launch = read_shell("python train.py --config-name x\n").launches[-1]
    module = frameworks.recognise(launch, CTX)
    assert module is None or module.NAME != "rlinf"


def test_an_evaluation_has_no_actor_placement_to_refuse():
    # reasoning_eval builds ModelParallelEvalComponentPlacement (rollout and reward only, placement.py:557-575)
    text = QWEN.read_text().replace("  tensor_parallel_size: 4\n", "  tensor_parallel_size: 3\n") \
        .replace("task_type: reasoning", "task_type: reasoning_eval")
    d = _derive(text)
    assert "MC734" not in _codes(d) and [c.role for c in d.calls] == ["rollout"]


def test_an_evaluation_does_not_validate_the_actor():
    # validate_cfg returns after validate_reasoning_eval_cfg (rlinf/config.py:1511-1513), before the Megatron checks
    text = QWEN.read_text().replace("expert_tensor_parallel_size: 1", "expert_tensor_parallel_size: 8") \
        .replace("task_type: reasoning", "task_type: reasoning_eval")
    assert "MC729" not in _codes(_derive(text))


def test_a_critic_model_is_listed_not_derived():
    # RLinf/RLinf@a3816b596 examples/reasoning/config/math/qwen2.5-1.5b-ppo-megatron.yaml:276-279
    text = QWEN.read_text() + "\ncritic:\n  use_critic_model: true\n  training_backend: megatron\n"
    d = _derive(text)
    assert any("critic engine not derived" in u.reason and "megatron" in u.reason for u in d.unread)
    assert not any("critic" in u.reason for u in _derive(QWEN.read_text()).unread)
