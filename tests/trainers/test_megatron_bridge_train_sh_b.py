"""trainers/megatron_bridge/train_sh.py: `scripts/training/train.sh --nodes N --gpus-per-node G ... --recipe R ...`
submits run_recipe.py over N x G ranks (scripts/training/setup_experiment.py forwards the words it does not own);
and calls._expert_tp: an expert-TP nobody sets is Megatron-Bridge's 1 with EP > 1
(src/megatron/bridge/models/transformer_config.py:80-88, :176), not Megatron's TP.

Fixture: NVIDIA-NeMo/Megatron-Bridge@067f987 examples/model_verification_cards/gpt-oss-20b/card.yaml:273-289
(tests/trainers/fixtures/megatron_bridge/card_gpt_oss_20b_train_sh.yaml cites it on its first line).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.checking.engine import check_paths
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "megatron_bridge" / "card_gpt_oss_20b_train_sh.yaml"
TRAIN = "./scripts/training/train.sh {opts} --recipe gpt_oss_20b_sft_8gpu_h100_bf16_32k_config --mode sft " \
        "--tensor_model_parallel_size 4 --context_parallel_size 2\n"


def _codes(text: str) -> list[str]:
    (launch,) = read_shell(text).launches
    module = frameworks.recognise(launch, LaunchContext())
    assert module is not None and module.NAME == "megatron-bridge"
    # not the version info, the recipe's deepep-with-alltoall warning (MC980), an unknown value's info (MC023)
    return [n.code for n in module.derive(launch, LaunchContext()).notes if n.code not in ("MC040", "MC980", "MC023")]


def test_the_card_sft_over_8_gpus_with_tp4_cp2_and_the_recipes_ep8_fits(tmp_path):
    # EP 8 with no expert-TP: the Bridge's finalize gives 1 (Megatron's own default, TP 4, would need 32 ranks)
    report = check_paths([str(FIXTURE)])
    assert report.count("error") == 0 and [s.state for s in report.states] == ["read"]
    assert [r.launch["role"] for r in report.results if r.launch] == ["train"]


@pytest.mark.parametrize("opts, codes", [
    ("--nodes 1 --gpus-per-node 8", []),  # TP 4 x CP 2 = 8 ranks, ETP 1 x EP 8 = 8
    ("--nodes 1 --gpus-per-node 4", ["MC983"]),  # 4 ranks: TP 4 x PP 1 x CP 2 = 8 does not divide
    ("--gpus-per-node 16", []),  # --nodes 1 by default (setup_experiment.py:66)
    ("--nodes 2", ["MC714"]),  # --gpus-per-node is required (setup_experiment.py:193-194)
    ("--nodes 2 $EXTRA", []),  # $EXTRA may hold it
])
def test_the_ranks_are_nodes_times_gpus_per_node(opts, codes):
    assert _codes(TRAIN.format(opts=opts)) == codes


def test_an_unset_expert_tp_is_one_with_ep_and_unknown_without_a_known_ep():
    run = "torchrun --nproc_per_node=8 --nnodes=1 scripts/training/run_recipe.py --recipe " \
          "gpt_oss_20b_sft_8gpu_h100_bf16_32k_config -tp 4 -cp 2 {extra}\n"
    assert _codes(run.format(extra="")) == []  # ETP 1 (Megatron's default would be TP 4: 4 x 8 = 32 > 8)
    assert _codes(run.format(extra="-etp 4")) == ["MC983"]  # written: 4 x 8 x 1 = 32 does not divide 8
    assert _codes(run.format(extra="-ep $EP")) == []  # EP not known: ETP not known, nothing judged


def test_a_usage_synopsis_is_not_judged():
    # scripts/training/README.md:6
    text = "./scripts/training/train.sh [launch options] [runner options] [KEY=VALUE overrides]\n"
    assert _codes(text) == []
