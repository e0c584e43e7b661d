"""trainers/torchtitan, the main form (`--module M --config F`): the launch is read (the degrees on its command line;
the others are set by the --config function in Python and not known, never ParallelismConfig's class defaults;
torchtitan's ParallelDims checks MC740 / MC741 when every degree is known), its own token dispatcher listed as not
derived.

Fixture: pytorch/torchtitan@b5bcd76 run_train.sh's torchrun launch with TP 2 x EP 4 over 8 ranks (dp_shard -1 -> 4).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell

SCRIPT = Path(__file__).resolve().parent / "fixtures" / "torchtitan" / "run_train.sh"
CTX = LaunchContext()
RUN = "torchrun --nproc_per_node=8 -m torchtitan.train --module qwen3 --config qwen3_moe_deepep "


def _derive(text: str):
    (launch,) = read_shell(text).launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "torchtitan"
    return module.derive(launch, CTX)


def _codes(d):
    return [n.code for n in d.notes]


def test_the_launch_is_read_and_its_dispatch_listed_as_not_derived():
    d = _derive(SCRIPT.read_text())
    assert not _codes(d)
    (call,) = d.calls
    assert call.kind == "none" and call.derivation["expert_parallel_degree"].startswith("4 <- --parallelism.")
    (u,) = d.unread
    assert "expert_parallel_degree 4" in u.reason and "ElasticBuffer" in u.reason
    d = _derive(RUN + "--parallelism.expert_parallel_degree 4\n")
    assert "--config function qwen3_moe_deepep in Python" in d.unread[0].reason


def test_no_expert_parallelism_has_nothing_left_unread():
    d = _derive(RUN + "--parallelism.expert_parallel_degree 1\n")
    assert not d.unread and d.calls[0].kind == "none"


def test_a_degree_the_config_function_sets_is_not_known():
    """deepseek_v3_16b sets expert_parallel_degree=8 in Python (b5bcd76 torchtitan/models/deepseek_v3/
    config_registry.py:166-168): a command line without it is not 'no expert parallelism', and a partial set of
    degrees is not checked against the world (the function may set pipeline_parallel_degree)."""
    d = _derive("NGPU=16 MODULE=deepseek_v3 CONFIG=deepseek_v3_16b ./run_train.sh "
                "--parallelism.data_parallel_shard_degree=4 --parallelism.tensor_parallel_degree=2\n")
    assert not _codes(d)
    (u,) = d.unread
    assert "expert_parallel_degree (not known statically)" in u.reason and "deepseek_v3_16b" in u.reason


ALL = "--parallelism.data_parallel_replicate_degree 1 --parallelism.context_parallel_degree 1 " \
      "--parallelism.pipeline_parallel_degree 1 "


@pytest.mark.parametrize("options,code", [
    ("--parallelism.data_parallel_shard_degree -1 --parallelism.tensor_parallel_degree 1 "
     "--parallelism.expert_parallel_degree 8", None),  # dp_shard -1 -> 8: EP 8 divides it  # dp_shard 8: EP 8 divides it
    ("--parallelism.data_parallel_shard_degree -1 --parallelism.tensor_parallel_degree 1 "
     "--parallelism.expert_parallel_degree 3", "MC740"),
    ("--parallelism.data_parallel_shard_degree -1 --parallelism.tensor_parallel_degree 2 "
     "--parallelism.expert_parallel_degree 8", None),  # dp_shard 4 x tp 2
    ("--parallelism.data_parallel_shard_degree -1 --parallelism.tensor_parallel_degree 3 "
     "--parallelism.expert_parallel_degree 1", "MC741"),  # dp_shard 2: 2 x 3 = 6 != 8
    ("--parallelism.data_parallel_shard_degree 2 --parallelism.tensor_parallel_degree 4 "
     "--parallelism.expert_parallel_degree 1", None),
    ("--parallelism.data_parallel_shard_degree=2 --parallelism.tensor_parallel_degree 2 "
     "--parallelism.expert_parallel_degree 1", "MC741"),
])
def test_parallel_dims_checks(options, code):
    assert _codes(_derive(RUN + ALL + options + "\n")) == ([code] if code else [])


def test_run_train_sh_takes_its_ranks_from_ngpu_and_an_unknown_word_stops_the_checks():
    full = ALL + "--parallelism.data_parallel_shard_degree -1 --parallelism.tensor_parallel_degree 1 "
    assert _codes(_derive(f"NGPU=4 CONFIG=x ./run_train.sh {full}--parallelism.expert_parallel_degree 8\n")) == \
        ["MC740"]
    assert _codes(_derive(f"CONFIG=x ./run_train.sh {full}--parallelism.expert_parallel_degree 8\n")) == []  # NGPU 8
    assert _codes(_derive(RUN + full + "$EXTRA --parallelism.expert_parallel_degree 3\n")) == []


def test_a_dense_module_has_no_expert_dispatch_to_list():
    """flavors.json main_modules (tools/gen_torchtitan_flavors.py): llama3 names no MoE and imports no MoE model
    package; dapo_math (torchtitan/experiments/rl/examples) imports torchtitan.models.qwen3, so it may build MoE."""
    d = _derive("NGPU=8 MODULE=llama3 CONFIG=llama3_8b ./run_train.sh --parallelism.tensor_parallel_degree 2\n")
    assert not d.unread and "dense model package" in d.calls[0].why_none
    d = _derive("torchrun --nproc_per_node=8 -m torchtitan.train --module dapo_math --config x "
                "--parallelism.tensor_parallel_degree 2\n")
    assert len(d.unread) == 1
