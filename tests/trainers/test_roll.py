"""trainers/roll: a ROLL pipeline config (sources/recipes/roll.py) -> the Megatron-LM actor, the reference twin and
the vLLM / SGLang rollout, each engine flag named with the ROLL key that set it; ROLL's own checks (MC730-MC732).

Fixture: alibaba/ROLL@8eb27cc examples/qwen3-30BA3B-rlvr_megatron/rlvr_config.yaml (worker sections): actor over
list(range(0,32)) at TP 1 x PP 2 x CP 4 x EP 4, alltoall dispatcher; vLLM rollout TP 2 over 24 GPUs.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.manifests.yaml_source import parse_stream
from moecfg.sources.readers import read_shell, read_yaml_document
from moecfg.trainers.roll.calls import devices

CONFIG = Path(__file__).resolve().parent / "fixtures" / "roll" / "rlvr_config.yaml"
CTX = LaunchContext()


def _file(text: str | None = None):
    text = CONFIG.read_text() if text is None else text
    (doc,) = parse_stream(text)
    return read_yaml_document(doc, text, str(CONFIG), str(CONFIG.parent))


def _derive(text: str | None = None):
    (launch,) = _file(text).launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "roll"
    return module.derive(launch, CTX)


def _line(text: str, word: str) -> int:
    return next(i for i, t in enumerate(text.splitlines(), 1) if word in t)


def _codes(d) -> list[str]:
    return [n.code for n in d.notes if n.code not in ("MC040",)]


@pytest.mark.parametrize("value,count", [("list(range(0,32))", 32), ("list(range(8))", 8), ("list(range(0, 16, 2))", 8),
                                         ("0,1,2", 3), ("[4, 5]", 2), ("${gpus}", None), ("list(range(0,n))", None),
                                         (None, None)])
def test_device_mapping_counts_what_python_would_list(value, count):
    assert devices(value) == count


def test_the_config_is_read_as_overrides_positioned_at_each_value():
    (launch,) = _file().launches
    words = {w.value.split("=")[0]: w for w in launch.argv[1:]}
    text = CONFIG.read_text()
    assert words["actor_train.strategy_args.strategy_config.expert_model_parallel_size"].span.line == \
        _line(text, "expert_model_parallel_size: 4")
    assert words["actor_train.device_mapping"].value == "actor_train.device_mapping=list(range(0,32))"


def test_train_ref_and_rollout_phases_named_by_their_keys():
    d = _derive()
    roles = [c.role for c in d.calls]
    assert roles == ["train", "ref", "rollout"]  # the reference runs PP 1, not the actor's 2: its own phase
    train = d.calls[0]
    said = " ".join([*train.derivation.values(), train.why_none or "", *(n.message for n in train.notes)])
    assert "actor_train.strategy_args.strategy_config.moe_token_dispatcher_type" in said
    assert train.kind == "none"  # alltoall: NCCL all-to-all, no DeepEP buffer
    assert "vLLM" in d.calls[2].derivation["engine"] and "actor_infer" in d.calls[2].derivation["engine"]
    assert not d.unread


def test_the_reference_with_the_actors_settings_is_not_derived_twice():
    text = CONFIG.read_text().replace("      pipeline_model_parallel_size: 1\n      expert_model_parallel_size: 4\n",
                                      "      pipeline_model_parallel_size: 2\n      expert_model_parallel_size: 4\n"
                                      "      context_parallel_size: 4\n      sequence_parallel: true\n")
    assert [c.role for c in _derive(text).calls] == ["train", "rollout"]


def test_megatron_world_from_device_mapping_refused_by_megatron():
    text = CONFIG.read_text().replace("device_mapping: list(range(0,32))", "device_mapping: list(range(0,30))", 1)
    d = _derive(text)
    assert "MC983" in _codes(d) and "train" not in [c.role for c in d.calls]
    assert "list(range(0,30))" in next(n.message for n in d.notes if n.code == "MC983")


@pytest.mark.parametrize("batch,code", [(64, None), (68, None), (66, "MC731")])
def test_rollout_batch_over_the_actors_data_parallel_ranks(batch, code):
    # 32 GPUs / (TP 1 x PP 2 x CP 4) = DP 4: 64 and 68 divide, 66 does not (roll/utils/config_utils.py:87)
    text = CONFIG.read_text().replace("rollout_batch_size: 64", f"rollout_batch_size: {batch}")
    d = _derive(text)
    assert ("MC731" in _codes(d)) == (code == "MC731")
    if code:
        note = next(n for n in d.notes if n.code == "MC731")
        assert "data-parallel size 4" in note.message and note.span.line == _line(text, "rollout_batch_size")


@pytest.mark.parametrize("gpus,code", [(24, None), (22, None), (23, "MC730")])
def test_vllm_workers_split_the_device_mapping(gpus, code):
    text = CONFIG.read_text().replace("device_mapping: list(range(0,24))", f"device_mapping: list(range(0,{gpus}))")
    d = _derive(text)
    assert ("MC730" in _codes(d)) == (code == "MC730")
    assert ("rollout" in [c.role for c in d.calls]) == (code is None)


@pytest.mark.parametrize("dp,code", [(12, None), (1, None), (8, "MC732")])
def test_vllm_data_parallel_size_is_the_number_of_workers(dp, code):
    text = CONFIG.read_text().replace("      tensor_parallel_size: 2\n",
                                      f"      tensor_parallel_size: 2\n      data_parallel_size: {dp}\n")
    d = _derive(text)
    assert ("MC732" in _codes(d)) == (code == "MC732")
    if code:
        assert "set actor_infer.strategy_args.strategy_config.data_parallel_size 12" in \
            next(n.message for n in d.notes if n.code == "MC732")


SGLANG = """pretrain: Qwen/Qwen3-30B-A3B-Base
actor_infer:
  strategy_args:
    strategy_name: sglang
    strategy_config:
      mem_fraction_static: 0.7
      tensor_parallel_size: 8
      moe_a2a_backend: deepep
  device_mapping: list(range(0,16))
"""


def test_sglang_rollout_derives_deepep_from_the_strategy_config():
    d = _derive(SGLANG)
    (call,) = d.calls
    assert (call.role, call.kind, call.arguments["num_ranks"], call.arguments["hidden"]) == ("rollout", "deepep", 8,
                                                                                            2048)
    assert "actor_infer.strategy_args.strategy_config.tensor_parallel_size" in call.derivation["num_ranks"]


def test_sglang_without_tensor_parallel_size_leaves_it_unknown():
    d = _derive(SGLANG.replace("      tensor_parallel_size: 8\n", ""))
    assert all(c.kind in ("none",) or c.arguments.get("num_ranks") != 8 for c in d.calls)


def test_fsdp2_train_with_its_own_ep_is_listed_as_not_derived():
    text = """pretrain: Qwen/Qwen3-30B-A3B-Base
actor_train:
  strategy_args:
    strategy_name: fsdp2_train
    strategy_config:
      ep_size: 8
  device_mapping: list(range(0,8))
"""
    d = _derive(text)
    assert not d.calls
    (u,) = d.unread
    assert "fsdp2_train" in u.reason and "ep_size 8" in u.reason


def test_a_distillation_student_and_teacher():
    text = """pretrain: Qwen/Qwen3-30B-A3B-Base
student:
  model_args:
    model_name_or_path: Qwen/Qwen3-30B-A3B-Base
  strategy_args:
    strategy_name: megatron_train
    strategy_config:
      expert_model_parallel_size: 8
      moe_token_dispatcher_type: alltoall
  device_mapping: list(range(0,8))
teacher:
  model_args:
    model_name_or_path: Qwen/Qwen3-235B-A22B
  strategy_args:
    strategy_name: megatron_infer
    strategy_config:
      expert_model_parallel_size: 8
      moe_token_dispatcher_type: alltoall
  device_mapping: list(range(0,8))
"""
    d = _derive(text)
    assert [c.role for c in d.calls] == ["train", "ref"]


def test_the_shell_launch_names_its_config():
    lf = read_shell("CONFIG_PATH=$(basename $(dirname $0))\npython examples/start_rlvr_pipeline.py --config_path "
                    "$CONFIG_PATH  --config_name rlvr_config\n")
    (launch,) = lf.launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "roll"
    d = module.derive(launch, CTX)
    assert not d.calls and "rlvr_config.yaml" in d.unread[0].reason


def test_the_batch_check_is_actor_trains_only():
    # BaseConfig validates rollout_batch_size against actor_train only (base_config.py:368-379): an SFT's sft_train
    text = CONFIG.read_text().replace("actor_train:", "sft_train:").replace("rollout_batch_size: 64",
                                                                          "rollout_batch_size: 66")
    assert "MC731" not in _codes(_derive(text))
