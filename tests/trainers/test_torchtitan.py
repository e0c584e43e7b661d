"""trainers/torchtitan: the launch is read (its parallel degrees over ParallelismConfig's defaults, torchtitan's
ParallelDims checks MC740 / MC741), its own token dispatcher listed as not derived.

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
    assert "--config qwen3_moe_deepep" in d.unread[0].reason


def test_no_expert_parallelism_has_nothing_left_unread():
    d = _derive(RUN + "--parallelism.tensor_parallel_degree 2\n")
    assert not d.unread and d.calls[0].kind == "none"


@pytest.mark.parametrize("options,code", [
    ("--parallelism.expert_parallel_degree 8", None),  # dp_shard 8: EP 8 divides it
    ("--parallelism.expert_parallel_degree 3", "MC740"),
    ("--parallelism.tensor_parallel_degree 2 --parallelism.expert_parallel_degree 8", None),  # dp_shard 4 x tp 2
    ("--parallelism.tensor_parallel_degree 3", "MC741"),  # dp_shard 2: 2 x 3 = 6 != 8
    ("--parallelism.data_parallel_shard_degree 2 --parallelism.tensor_parallel_degree 4", None),
    ("--parallelism.data_parallel_shard_degree=2 --parallelism.tensor_parallel_degree 2", "MC741"),
])
def test_parallel_dims_checks(options, code):
    assert _codes(_derive(RUN + options + "\n")) == ([code] if code else [])


def test_run_train_sh_takes_its_ranks_from_ngpu_and_an_unknown_word_stops_the_checks():
    assert _codes(_derive("NGPU=4 ./run_train.sh --parallelism.expert_parallel_degree 8\n")) == ["MC740"]
    assert _codes(_derive("./run_train.sh --parallelism.expert_parallel_degree 8\n")) == []  # NGPU's default 8
    assert _codes(_derive(RUN + "$EXTRA --parallelism.expert_parallel_degree 3\n")) == []
