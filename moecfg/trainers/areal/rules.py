"""AReaL launch rules (MC742-MC744): what AReaL's allocation-mode parser refuses.

inclusionAI/AReaL@4aef98d areal/api/alloc_mode.py:93-107 (ParallelStrategy), :943-1031 (hybrid_train_para).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_S = "inclusionAI/AReaL@4aef98d areal/api/alloc_mode.py"
ERROR_LABELS = {c: "AReaL's error" for c in ("MC742", "MC743", "MC744")}
_OK = PASS_EXAMPLE
HYBRID_WORLD = rule(
    "MC742", "areal-attn-ffn-world", ERROR, "the attn and ffn parts of a hybrid MoE allocation must cover the same "
    "GPUs", family=_F, source=f"{_S}:1002-1031 (AllocationValidationError 'Cannot derive expert dp', "
    "InvalidAllocationModeError 'World size for expert modules and attention modules must be identical')",
    why="`megatron:(attn:d4p4t2|ffn:d2p4e4)` lays the attention and the expert layers over the same ranks: "
    "d x p x t x c of attn must equal d x p x t x e of ffn (ffn's d, when omitted, is derived from it).",
    cann_error="InvalidAllocationModeError: World size for expert modules and attention modules must be identical.",
    fail_text="`actor: {backend: \"megatron:(attn:d4p4t2|ffn:d4p4e4)\"}` (32 vs 64 GPUs).", pass_example=_OK,
    fix="Make ffn's d x p x t x e equal attn's d x p x t x c (or omit ffn's d).")
HYBRID_PP = rule(
    "MC743", "areal-attn-ffn-pipeline", ERROR, "the attn and ffn parts of a hybrid MoE allocation must have the "
    "same pipeline size", family=_F, source=f"{_S}:984-991 (AllocationValidationError 'Pipeline parallel size for "
    "attention and FFN modules must be identical')",
    why="Attention and expert layers sit in the same pipeline stages; AReaL refuses an ffn p that differs from attn's.",
    cann_error="AllocationValidationError: Pipeline parallel size for attention and FFN modules must be identical.",
    fail_text="`megatron:(attn:d4p4t2|ffn:d4p2e4)`.", pass_example=_OK, fix="Give ffn attn's p, or omit it.")
EXPERT_WORLD = rule(
    "MC744", "areal-expert-model-parallel-world", ERROR, "with e > 1 the world d x p x t x c must be a multiple of "
    "p x etp x e", family=_F, source=f"{_S}:93-107 (assert world_size % expert_model_parallel_size == 0)",
    why="AReaL's ParallelStrategy checks that its expert model-parallel groups (PP x expert-TP x EP ranks) tile the "
    "world.", cann_error="AssertionError: Expert model parallel size .. cannot divide world size ..",
    fail_text="`megatron:d1p1t1e4` (world 1, expert model parallel 4).", pass_example=_OK,
    fix="Use an e (and expert tp) whose product with p divides d x p x t x c.")
