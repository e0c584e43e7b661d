"""A launch built in a variable (`CMD="${CMD}uv run python scripts/training/run_recipe.py"` ... `$SRUN_CMD bash -c
"$CMD"`, NVIDIA-NeMo/Megatron-Bridge@067f987 examples/models/gemma/gemma4_vl/slurm_peft.sh:100-130) is read where it
runs; its assignment lines are no launch of their own, so they are not listed as not read. An assignment no read
launch expands stays listed."""
from __future__ import annotations

from moecfg.checking.engine import check_text

BUILT = """#!/bin/bash
CMD="cd /opt && "
CMD="${CMD}export A=1 && "
CMD="${CMD}torchrun --nproc_per_node 8 pretrain_gpt.py"
CMD="${CMD} --expert-model-parallel-size 8 --num-experts 64"
bash -c "$CMD"
"""


def test_assignments_a_read_launch_expands_are_not_listed():
    got = check_text(BUILT, "run.sh")
    assert got.unread == [] and any(r.launch for r in got.results)


def test_an_assignment_nothing_expands_is_still_listed():
    text = BUILT + 'OTHER="torchrun --nproc_per_node 8 pretrain_gpt.py --expert-model-parallel-size 4"\n'
    got = check_text(text, "run.sh")
    assert [u.line for u in got.unread] == [7]


def test_a_name_that_only_starts_the_same_is_not_a_use():
    text = ("#!/bin/bash\nCMD=\"torchrun --nproc_per_node 8 pretrain_gpt.py --expert-model-parallel-size 4\"\n"
            "CMDX=\"torchrun --nproc_per_node 8 pretrain_gpt.py --expert-model-parallel-size 8 --num-experts 64\"\n"
            "bash -c \"$CMDX\"\n")
    assert [u.line for u in check_text(text, "run.sh").unread] == [2]  # $CMDX is no use of CMD
