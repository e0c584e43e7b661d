"""slime launch rules (MC715-MC719): the SGLang settings slime's own argument checks refuse.

THUDM/slime@624b824 slime/backends/sglang_utils/arguments.py:173-184 (validate_args).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule

_F = "launch"
_S = "THUDM/slime@624b824 slime/backends/sglang_utils/arguments.py"
ERROR_LABELS = {c: "slime's error" for c in ("MC715", "MC716")}
_OK = ("# what slime gives SGLang for --rollout-num-gpus-per-engine 8 --sglang-ep-size 8 --sglang-moe-a2a-backend "
       "deepep, DeepSeek-V3 shapes\nkind: deepep\nmode: normal\nnum_ranks: 8\nhidden: 7168\nnum_experts: 256\n"
       "num_topk: 8\n")
PP_INDIVISIBLE = rule(
    "MC715", "slime-rollout-pp-indivisible", ERROR, "--rollout-num-gpus-per-engine must be a multiple of "
    "--sglang-pp-size", family=_F, source=f"{_S}:173-179 (assert args.rollout_num_gpus_per_engine % "
    "args.sglang_pp_size == 0; the SGLang TP size is their quotient)",
    why="slime gives each SGLang engine --rollout-num-gpus-per-engine GPUs split into --sglang-pp-size pipeline "
    "stages of TP = GPUs / PP ranks; it asserts the division when it parses its arguments.",
    cann_error="AssertionError: rollout_num_gpus_per_engine (..) must be divisible by sglang_pipeline_parallel_size (..)",
    fail_text="`python3 train.py --rollout-num-gpus-per-engine 8 --sglang-pp-size 3 ...`.", pass_example=_OK,
    fix="Use a --sglang-pp-size that divides --rollout-num-gpus-per-engine.")
DP_WITHOUT_DP_ATTENTION = rule(
    "MC716", "slime-sglang-dp-needs-dp-attention", ERROR, "--sglang-dp-size > 1 needs --sglang-enable-dp-attention",
    family=_F, source=f"{_S}:183-184 (if args.sglang_dp_size > 1: assert args.sglang_enable_dp_attention)",
    why="slime runs SGLang's data parallelism only as DP attention inside one engine; it asserts the flag when it "
    "parses its arguments.", cann_error="AssertionError (slime validate_args, sglang_enable_dp_attention)",
    fail_text="`python3 train.py --rollout-num-gpus-per-engine 16 --sglang-dp-size 8 ...` without "
    "--sglang-enable-dp-attention.", pass_example=_OK,
    fix="Add --sglang-enable-dp-attention, or drop --sglang-dp-size.")
