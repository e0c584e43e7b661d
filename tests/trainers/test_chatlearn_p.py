"""trainers/chatlearn: `python chatlearn_entrypoint.py grpo --config-file <yaml> key=value ...` -> the Megatron-LM
policy trainer (alltoall for an MoE model) and the vLLM / SGLang rollout (TP only), with ChatLearn's own checks.

Fixtures (fixtures/chatlearn/): alibaba/Pai-Megatron-Patch@a098ca5 examples/qwen3/run_mcore_qwen3_30b_chatlearn.sh and
chatlearn_configs/grpo_megatron.yaml; the code read is alibaba/ChatLearn@248875a (the commit Pai pins).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources import contained
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_shell, read_yaml_document

F = Path(__file__).resolve().parent / "fixtures" / "chatlearn"
SCRIPT = F / "run_mcore_qwen3_30b_chatlearn.sh"
CONFIG = F / "chatlearn_configs" / "grpo_megatron.yaml"


def _derive(text: str, ctx=LaunchContext(), file: Path = SCRIPT):
    ctx = LaunchContext(models=ctx.models, file=str(file))
    launches = [x for x in read_shell(text).launches if frameworks.recognise(x, ctx)]
    (launch,) = launches
    module = frameworks.recognise(launch, ctx)
    assert module.NAME == "chatlearn"
    with contained.checking(str(F)):
        return module.derive(launch, ctx)


def _codes(d) -> list[str]:
    return [n.code for n in d.notes] + [n.code for c in d.calls for n in c.notes]


def _with(extra: str) -> str:
    return SCRIPT.read_text().replace("        2>&1", f"        {extra} \\\n        2>&1")


def test_the_published_launch_trains_with_megatron_alltoall_and_rolls_out_with_vllm():
    d = _derive(SCRIPT.read_text())
    (train,) = [c for c in d.calls if c.role == "train"]
    # Qwen3-30B-A3B's HF config has moe_intermediate_size: ChatLearn sets alltoall (megatron_utils.py:56-58)
    assert train.kind == "none" and "alltoall" in train.why_none
    assert "models.policy.load" in train.why_none
    (rollout,) = [c for c in d.calls if c.role == "rollout"]
    assert rollout.kind == "none" and "--enable-expert-parallel" in rollout.why_none  # ChatLearn passes TP only
    assert "MC983" not in _codes(d)  # 16 GPUs over TP 4 x EP 4


def test_settings_not_written_come_from_the_config_file_at_its_word():
    text = SCRIPT.read_text().replace("runtime_args.train_backend=megatron", "runtime_args.x=1")
    d = _derive(text)
    assert [c.role for c in d.calls] == ["train", "rollout"]  # train_backend megatron: the file's
    bad = _derive(text.replace("chatlearn_configs/grpo_megatron.yaml", "chatlearn_configs/missing.yaml"))
    (n,) = [n for n in bad.notes if n.code == "MC023"]
    assert "missing.yaml" in n.message and n.span.line == 4
    assert any(u.reason == "train engine not derived: runtime_args.train_backend = not known statically"
               for u in bad.unread)


def test_policy_num_gpu_follows_the_trainers_through_the_config_interpolation():
    # the config's models.policy.num_gpu is ${models.policy_trainer.num_gpu}: 16 from the command, TP 3 does not divide
    d = _derive(_with("models.policy.tensor_model_parallel_size=3"))
    (n,) = [n for n in d.notes if n.code == "MC728"]
    assert "num_gpu 16" in n.message and n.span.line == 15
    assert "MC728" not in _codes(_derive(_with("models.policy.tensor_model_parallel_size=8")))


@pytest.mark.parametrize("key, value, code", [
    ("models.policy.expert_model_parallel_size", 8, "MC726"), ("models.policy.expert_model_parallel_size", 1, None),
    ("models.policy.pipeline_model_parallel_size", 2, "MC727"), ("models.policy.pipeline_model_parallel_size", 1, None),
])
def test_policy_checks_chatlearn_asserts(key, value, code):
    codes = _codes(_derive(_with(f"{key}={value}")))
    assert (code in codes) if code else not any(c in codes for c in ("MC726", "MC727", "MC728"))


def test_the_config_alone_is_read_but_not_judged_as_a_launch():
    text = CONFIG.read_text()
    (doc,) = parse_stream(text)
    (launch,) = read_yaml_document(doc, text, str(CONFIG)).launches
    assert [w.value for w in launch.argv[:2]] == ["chatlearn", "grpo"]
    ctx = LaunchContext(models=(("*", "qwen3-30b-a3b"),))
    d = frameworks.recognise(launch, ctx).derive(launch, ctx)
    # the template's num_gpu 1 with policy TP 2 is refused only if run as is: Pai's scripts override both
    assert "MC728" not in _codes(d) and [c.role for c in d.calls] == ["train", "rollout"]


def test_words_without_a_config_file_are_not_applied():
    text = "python chatlearn/entrypoint.py grpo models.policy_trainer.expert_model_parallel_size=8\n"
    d = _derive(text)
    assert not d.calls and "entrypoint.py:94-99" in d.unread[0].reason


@pytest.mark.parametrize("text", ["python chatlearn_entrypoint.py --help\n", "python other_entrypoint.py grpo a=1\n",
                                  "python chatlearn_entrypoint.py dpo --config-file x.yaml\n"])
def test_other_commands_are_not_chatlearn(text):
    (launch,) = read_shell(text).launches
    assert frameworks.recognise(launch, LaunchContext()) is None


def test_the_trainers_world_is_num_gpu_and_the_references_replicas_are_not_judged():
    text = SCRIPT.read_text().replace("num_gpu=16", "num_gpu=6").replace(
        "models.policy.tensor_model_parallel_size=4", "models.policy.tensor_model_parallel_size=2")  # 6 / 2 rollouts
    d = _derive(text)
    (n,) = [n for n in d.notes if n.code == "MC983"]
    assert "models.policy_trainer.num_gpu 6" in n.message
    # the reference with other sizes is its own phase; its replicas are sized by ChatLearn, never refused by Megatron
    ref = _derive(_with("models.ref_policy.tensor_model_parallel_size=2 models.ref_policy.num_gpu=6"))
    assert "ref" in [c.role for c in ref.calls] and "MC983" not in _codes(ref)
