"""frameworks/megatron (bridge3, a small change): HybridEP's first-batch tokens when --seq-length is absent (MC042:
give it) and when it is written but not known statically (`--seq-length $SEQ`: MC023 says so; no MC042 "not given").
"""
from __future__ import annotations

from gpu_helpers import derive

HYBRID = "torchrun --nproc_per_node 8 pretrain_gpt.py --hidden-size 7168 --num-experts 256 --moe-router-topk 8 " \
         "--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend hybridep --expert-model-parallel-size 8 " \
         "--micro-batch-size 1"


def _codes(text: str) -> list[str]:
    return sorted(n.code for n in derive(text).notes if n.code in ("MC023", "MC042"))


def test_absent_seq_length_is_asked_for():
    assert _codes(HYBRID) == ["MC042"]


def test_a_seq_length_not_known_statically_is_said_unknown_not_absent():
    assert _codes(HYBRID + " --seq-length $SEQ") == ["MC023"]
    assert derive(HYBRID + " --seq-length 4096").calls[0].arguments["max_num_of_tokens_per_rank"] == 4096
