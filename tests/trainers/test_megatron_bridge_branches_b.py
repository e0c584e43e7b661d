"""trainers/megatron_bridge: a run_recipe.py launch whose --recipe a `case` / `if` chooses is derived once per branch
(sources/shell/branches.py), each phase named with its branch; what fails in one branch only is a warning naming it.

Fixture: NVIDIA-NeMo/Megatron-Bridge@067f987 examples/models/qwen/qwen35_vl/slurm_sft.sh:61-174
(tests/trainers/fixtures/megatron_bridge/qwen35_vl_case_sft.sh cites it on its first line).
"""
from __future__ import annotations

from pathlib import Path

from moecfg import frameworks
from moecfg.checking.engine import check_paths
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell
from moecfg.sources.shell import branches
from moecfg.trainers.megatron_bridge import entry

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "megatron_bridge" / "qwen35_vl_case_sft.sh"


def _derive(text: str):
    (launch,) = [x for x in read_shell(text).launches if entry(x) is not None]
    module = frameworks.recognise(launch, LaunchContext())
    assert module is not None and module.NAME == "megatron-bridge"
    return launch, module.derive(launch, LaunchContext())


def test_the_qwen35_vl_case_gives_one_train_phase_per_moe_branch():
    launch, d = _derive(FIXTURE.read_text())
    assert len(branches.of(launch)) == 8  # the eight sizes; `*)` exits
    roles = [c.role for c in d.calls]
    assert roles == ['train [case "$MODEL_SIZE" in 35B-A3B) (line 5)]', 'train [case "$MODEL_SIZE" in 122B-A10B) '
                     '(line 5)]', 'train [case "$MODEL_SIZE" in 397B-A17B) (line 5)]']  # the dense sizes: no EP
    moe35 = d.calls[0]
    # qwen35_vl_35b_a3b_sft_config: EP 8 with the flex dispatcher and HybridEP (src/megatron/bridge/recipes/qwen_vl/
    # h100/qwen35_vl.py:50, :60), on a GPU that takes it
    assert (moe35.kind, moe35.arguments["num_ranks"]) == ("deepep", 8) and "case" in moe35.condition
    assert [c.kind for c in d.calls[1:]] == ["none", "none"]  # alltoall recipes
    # the first batch: dataset.seq_length=4096 x train.micro_batch_size=4 (the launch's overrides, fixture :100-109),
    # not Megatron's micro-batch default 1
    assert moe35.arguments["max_num_of_tokens_per_rank"] == 4096 * 4
    assert "[train.micro_batch_size] 4" in moe35.derivation["max_num_of_tokens_per_rank"]
    assert not any("not known statically" in u.reason for u in d.unread)


def test_what_fails_in_one_branch_is_a_warning_naming_it_and_what_fails_in_all_an_error(tmp_path):
    # the first `case` sets nothing the launch uses; in the second, branch q asks EP 16 x PP 2 (the recipe's) of 8
    # ranks (MC983, Megatron's world check), branch d EP 4, which fits
    text = ('case "$S" in\n  a) X=1 ;;\n  b) X=2 ;;\nesac\ncase "$M" in\n'
            '  q) RECIPE=qwen3_30b_a3b_pretrain_config; EP=16 ;;\n  d) RECIPE=qwen3_30b_a3b_pretrain_config; EP=4 ;;\n'
            'esac\ntorchrun --nproc_per_node=8 --nnodes=1 scripts/training/run_recipe.py --recipe $RECIPE -ep $EP\n')
    path = tmp_path / "launch.sh"
    path.write_text(text)
    found = [(d.code, d.severity, d.message.split(":", 1)[0]) for r in check_paths([str(path)]).results
             for d in r.diagnostics if d.severity in ("error", "warning") and d.code != "MC042"]
    assert found == [("MC983", "warning", 'if case "$M" in q) (line 5)')]
    both = text.replace("--recipe $RECIPE -ep $EP", "--recipe $RECIPE --model qwen3 -ep $EP")
    path.write_text(both)  # --recipe with --model: refused whatever the recipe (run_recipe.py:169-171)
    assert [(d.code, d.severity) for r in check_paths([str(path)]).results for d in r.diagnostics
            if d.code == "MC735"] == [("MC735", "error")]
