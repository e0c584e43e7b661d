"""trainers/skyrl: `-m skyrl.train.entrypoints.main_base` overrides -> the Megatron-LM policy and the vLLM rollout,
SkyRL's dataclass defaults for keys not written (named with their config.py line), SkyRL's checks (MC737-MC739).

Fixture: NovaSky-AI/SkyRL@a956457 examples/train/megatron/run_megatron_qwen3-30b-a3b.sh: Qwen3-30B-A3B over 2 x 8
GPUs at TP 4 x PP 2 x EP 8 (expert-TP 1), SkyRL's default alltoall dispatcher; 2 vLLM engines of TP 8.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell

SCRIPT = Path(__file__).resolve().parent / "fixtures" / "skyrl" / "run_megatron_qwen3-30b-a3b.sh"
CTX = LaunchContext()
BASE = "python -m skyrl.train.entrypoints.main_base trainer.policy.model.path=Qwen/Qwen3-30B-A3B "


def _derive(text: str):
    (launch,) = read_shell(text).launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "skyrl"
    return module.derive(launch, CTX)


def _codes(d) -> list[str]:
    return [n.code for n in d.notes if n.code not in ("MC040", "MC023")]


def _said(call) -> str:
    return " ".join([*call.derivation.values(), call.why_none or "", *(n.message for n in call.notes)])


def test_the_published_launch_has_a_train_and_a_rollout_phase():
    d = _derive(SCRIPT.read_text())
    assert [c.role for c in d.calls] == ["train", "rollout"] and not _codes(d)
    train = _said(d.calls[0])
    assert "moe_token_dispatcher_type alltoall (SkyRL's default" in train and "config.py:464" in train


def test_deepep_through_transformer_config_kwargs():
    d = _derive(BASE + "trainer.strategy=megatron trainer.placement.policy_num_gpus_per_node=8 "
                "trainer.policy.megatron_config.expert_model_parallel_size=8 "
                "trainer.policy.megatron_config.transformer_config_kwargs.moe_token_dispatcher_type=flex "
                "trainer.policy.megatron_config.transformer_config_kwargs.moe_flex_dispatcher_backend=deepep\n")
    train = d.calls[0]
    assert (train.kind, train.arguments["num_ranks"], train.arguments["hidden"], train.arguments["num_experts"]) == \
        ("deepep", 8, 2048, 128)
    assert "transformer_config_kwargs.moe_token_dispatcher_type" in _said(train)


def test_the_default_strategy_is_fsdp_listed_as_not_derived():
    d = _derive(BASE + "generator.inference_engine.tensor_parallel_size=4\n")
    assert any("trainer.strategy = fsdp" in u.reason for u in d.unread)
    assert [c.role for c in d.calls] == ["rollout"]


@pytest.mark.parametrize("ep,code", [(8, None), (1, None), (4, "MC737")])
def test_rollout_ep_is_dp_times_tp(ep, code):
    d = _derive(BASE + "generator.inference_engine.tensor_parallel_size=4 generator.inference_engine."
                f"data_parallel_size=2 generator.inference_engine.expert_parallel_size={ep}\n")
    assert ("MC737" in _codes(d)) == (code is not None)
    if ep == 8:
        (rollout,) = d.calls
        assert "over the EP group" in _said(rollout)  # vLLM with expert parallelism on (enable_expert_parallel)


@pytest.mark.parametrize("gpus,code", [(8, None), (16, None), (6, "MC738")])
def test_policy_gpus_split_into_model_parallel_replicas(gpus, code):
    d = _derive(BASE + f"trainer.strategy=megatron trainer.placement.policy_num_gpus_per_node={gpus} "
                "trainer.policy.megatron_config.tensor_model_parallel_size=2 "
                "trainer.policy.megatron_config.pipeline_model_parallel_size=2\n")
    assert ("MC738" in _codes(d)) == (code is not None)


def test_megatron_with_another_backend_is_refused():
    d = _derive(BASE + "trainer.strategy=megatron generator.inference_engine.backend=sglang\n")
    assert _codes(d) == ["MC739"] and not d.calls


def test_an_example_entry_point_needs_skyrl_keys_and_an_older_package_leaves_defaults_unknown():
    (launch,) = read_shell("python -m examples.train.foo.main_foo --lr 1\n").launches
    assert frameworks.recognise(launch, CTX) is None or frameworks.recognise(launch, CTX).NAME != "skyrl"
    d = _derive("uv run --isolated --extra fsdp --extra miniswe --env-file e/.env -m examples.train.mini_swe_agent."
                "main_mini_swe trainer.strategy=megatron\n")
    assert d.version is not None
    d = _derive("python -m skyrl_train.entrypoints.main_base trainer.strategy=megatron "
                "trainer.policy.model.path=Qwen/Qwen3-30B-A3B\n")
    assert d.version is None and any(n.code == "MC023" and "older SkyRL" in n.message for n in d.notes)


def test_the_ref_runs_its_own_megatron_config_not_the_policys():
    # RefConfig.megatron_config is its own MegatronConfig (SkyRL's defaults, EP 1), used while use_kl_loss (default
    # true) holds: a launch setting only the policy's sizes runs the ref at EP 1
    text = "".join(l for l in SCRIPT.read_text().splitlines(keepends=True) if "trainer.ref." not in l)
    d = _derive(text)
    assert [c.role for c in d.calls] == ["train", "ref", "rollout"]
    ref = d.calls[1]
    assert ref.kind == "none" and "trainer.ref.megatron_config.moe_token_dispatcher_type alltoall (SkyRL's default" \
        in ref.why_none and "SkyRL's ref worker" in ref.derivation["engine"]
    off = text.replace("trainer.strategy=megatron", "trainer.strategy=megatron trainer.algorithm.use_kl_loss=false")
    assert [c.role for c in _derive(off).calls] == ["train", "rollout"]
