"""trainers/rllm: an rLLM launch (`python train_x.py rllm/backend=verl model_engine=megatron actor_rollout_ref....`)
read as verl's overrides, verl's release rLLM's pin (verl==0.8.0) unless the settings name one.

Fixture: rllm-org/rllm@9beb6e0 cookbooks/migrationbench/train_agentcore_migrationbench_verl.sh (trimmed to the engine
keys): Megatron actor TP 2 x CP 2 x EP 2 over 1 x 8 GPUs, vLLM rollout TP 4.
"""
from __future__ import annotations

from pathlib import Path

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell

SCRIPT = Path(__file__).resolve().parent / "fixtures" / "rllm" / "train_agentcore_migrationbench_verl.sh"
CTX = LaunchContext(models=(("*", "qwen3-30b-a3b"),))


def _derive(text: str | None = None, ctx=CTX):
    launch = read_shell(SCRIPT.read_text() if text is None else text).launches[-1]
    module = frameworks.recognise(launch, ctx)
    assert module is not None and module.NAME == "rllm"
    return module.derive(launch, ctx)


def test_recognised_and_read_as_verl_phases():
    d = _derive()
    assert [c.role for c in d.calls] == ["train", "rollout"]  # model_engine=megatron: the Megatron actor
    assert d.version == "0.3.0.pre (verl 0.8.0)"
    assert any(n.code == "MC040" and "rLLM's pin" in n.message and "pyproject.toml:80" in n.message for n in d.notes)
    assert any(n.code == "MC023" and "verl 0.8.0 (rLLM's pin)" in n.message for n in d.notes)


def test_the_dispatcher_of_an_unread_verl_release_stays_unknown():
    d = _derive()
    train = d.calls[0]
    assert train.kind == "none" and "allgather" not in (train.why_none or "")
    assert any(n.code == "MC023" and "moe_token_dispatcher_type" in n.message for n in d.notes)


def test_a_read_verl_release_takes_its_defaults():
    d = _derive(ctx=LaunchContext(models=CTX.models, framework_versions=(("verl", "0.7.0"),)))
    assert d.version == "0.3.0.pre (verl 0.7.0)"
    assert not any(n.code == "MC023" for n in d.notes)


def test_without_model_engine_nor_the_unified_config_the_strategy_is_not_known():
    text = SCRIPT.read_text().replace("    model_engine=megatron \\\n", "").replace("    rllm/backend=verl \\\n", "")
    d = _derive(text)
    assert any("strategy = not known statically" in u.reason for u in d.unread)


def test_the_verl_rules_speak_for_rllm():
    text = SCRIPT.read_text().replace("rollout.data_parallel_size=1", "rollout.data_parallel_size=1 \\\n"
                                      "    actor_rollout_ref.rollout.expert_parallel_size=8")
    d = _derive(text)  # EP 8 != TP 4 x DP 1 (verl/workers/config/rollout.py:257-260)
    assert "MC709" in [n.code for n in d.notes]


def test_a_plain_script_or_verl_itself_is_not_rllm():
    for line in ("python train.py actor_rollout_ref.rollout.name=vllm\n",
                 "python train.py rllm.agent.max_steps=3\n",
                 "python3 -m verl.trainer.main_ppo rllm.x=1 actor_rollout_ref.rollout.name=vllm\n"):
        module = frameworks.recognise(read_shell(line).launches[-1], CTX)
        assert module is None or module.NAME != "rllm"


def test_unified_config_without_model_engine_runs_fsdp():
    # rllm/backend=verl: unified.yaml; verl 0.8.0 ppo_trainer.yaml:10 model_engine dp -> dp_actor.yaml:26 fsdp
    text = SCRIPT.read_text().replace("    model_engine=megatron \\\n", "")
    d = _derive(text)
    assert any("strategy = fsdp" in u.reason for u in d.unread)
