"""vllm-mindspore launch rules (MC920-MC924): what vllm-mindspore itself decides or refuses before its MC2 op
calls, which the `ascend` kind then judges with the op rules.

Read at VMS@423bd12 (mindspore-ai/vllm-mindspore, branch r0.6.0.rc1) and VMS@40923e5 (tag v0.5.1 = the PyPI
wheel); each rule cites the lines it reads.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, INFO
from moecfg.core.registry import rule

_F = "launch"
_FM = "VMS@423bd12 vllm_mindspore/model_executor/layers/fused_moe/fused_moe.py"
# the decode dispatch vllm-mindspore 0.6.0rc1 makes for Qwen3-235B-A22B on A3 with tp 16, --enable-expert-parallel
_OK = ("# vllm-mindspore pure EP, A3, EP 16: global_bs = 512 x 16 whatever the batch, tp_world_size 1\n"
       "kind: ascend\nproduct: A3\ncann_version: 9.0.1\nop: dispatch_combine_v2\napi: aclnn_v3\nbs: 256\nh: 4096\n"
       "k: 8\nep_world_size: 16\nmoe_expert_num: 128\nglobal_bs: 8192\ntp_world_size: 1\nenv:\n"
       "  HCCL_BUFFSIZE: 2048\n")

ERROR_LABELS = {"MC923": "vllm-mindspore's error", "MC924": "vllm-mindspore's error"}  # MC921/922 quote CANN
LAUNCH = rule(
    "MC920", "vllm-mindspore-launch", INFO, "What vllm-mindspore derives for the MoE layers: the parallel mode, the "
    "EP size and the fixed MC2 global batch, or why its MoE layers are not derived", family=_F,
    source=f"VMS@423bd12 vllm_mindspore/model_executor/layers/fused_moe/config.py:134-183; {_FM}:241-266; "
    "vllm_mindspore/model_executor/models/registry.py:64-83, 130-147",
    why="vllm-mindspore runs vLLM's CLI with MindSpore models: the MoE layout (pure EP with MC2, TP+EP with masked "
    "experts and an all-reduce, or pure TP) follows from --tensor-parallel-size, --data-parallel-size, "
    "--enable-expert-parallel and additional_config expert_parallel; models run through MindSpore Transformers "
    "(VLLM_MS_MODEL_BACKEND=MindFormers, or an architecture vllm-mindspore has no native model for) bring their "
    "own MoE layers, which moecfg does not derive.",
    fail_text="`vllm-mindspore serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 16 --enable-expert-parallel`.",
    pass_example=_OK, fix="Nothing to fix: read it to see what vllm-mindspore will build.")
EXPERT_SPLIT = rule(
    "MC921", "vllm-mindspore-expert-split", ERROR, "vllm-mindspore pure EP: the experts must divide evenly over the "
    "EP ranks (MC2 refuses a remainder)", family=_F,
    source=f"{_FM}:232-238 (experts // ep per rank, the remainder on the last rank); "
    "layers/fused_moe/layer.py:189-214; the op: MC201 (moe_expert_num % ep_world_size)",
    why="vllm-mindspore accepts any EP size and gives the last rank the remaining experts, but the MC2 dispatch it "
    "calls in pure EP mode requires moe_expert_num divisible by ep_world_size: the first forward (the profile run "
    "at start-up) fails in the op.",
    cann_error="moeExpertNum should be divisible by (epWorldSize - sharedExpertRankNum)",
    fail_text="`vllm-mindspore serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 6 --enable-expert-parallel` "
    "(128 experts over EP 6).", pass_example=_OK,
    fix="Choose --tensor-parallel-size x --data-parallel-size (or additional_config expert_parallel) dividing "
    "the experts, e.g. 8 or 16 for 128 experts.")
FIXED_GLOBAL_BS = rule(
    "MC922", "vllm-mindspore-fixed-global-bs", ERROR, "vllm-mindspore pure EP: tokens per rank above the fixed MC2 "
    "batch (256 on A2, 512 on A3)", family=_F,
    source=f"{_FM}:249-252 (max_bs = 256 if is_910b() else 512, x EP), :413-422 (global_bs=self.max_bs); "
    "layers/fused_moe/layer.py:771-776 (no chunking: 'Chunked forward can solve the batch size limitation of the "
    "dispatch-combine kernel'); vllm_mindspore/engine/arg_utils.py:92-108 (max_num_batched_tokens 2048 by default)",
    why="In pure EP mode every MoE layer dispatches all tokens of the step at once with global_bs fixed at "
    "256 x EP (A2) or 512 x EP (A3), whatever --max-num-batched-tokens says. A step with more tokens per rank than "
    "that (a prefill chunk of up to --max-num-batched-tokens; vllm-mindspore's default is 2048) is refused by the "
    "op (bs above its range, global_bs below bs x EP); the profile run at start-up already sends such a step.",
    cann_error="xDim0(BS) is invalid / globalBS is invalid",
    fail_text="`vllm-mindspore serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 16 --enable-expert-parallel` "
    "on A3 (max_num_batched_tokens 2048 > 512).", pass_example=_OK,
    fix="Lower --max-num-batched-tokens to at most 512 on A3 (256 on A2), or leave pure EP (no "
    "--enable-expert-parallel, or additional_config expert_parallel below tp x dp).")
EP_UNIMPLEMENTED = rule(
    "MC923", "vllm-mindspore-pure-ep-unimplemented", ERROR, "vllm-mindspore 0.5.x: pure EP is selected but not "
    "implemented for native MoE models", family=_F,
    source="VMS@40923e5 vllm_mindspore/model_executor/layers/fused_moe/fused_moe.py:100-109 (pure EP when EP > 1 "
    "and MoE TP 1), :256-258 (run_ep raises NotImplementedError('ep mode not implemented yet.'))",
    why="vllm-mindspore 0.5.0/0.5.1 choose pure EP whenever the EP size covers every MoE rank, and then raise "
    "NotImplementedError on the first MoE forward (the profile run at start-up). It was implemented after 0.5.1 "
    "(26625875, in r0.6.0.rc1).",
    cann_error="NotImplementedError: ep mode not implemented yet.",
    fail_text="`vllm-mindspore serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 4 --enable-expert-parallel` with "
    "vllm-mindspore 0.5.1.", pass_example=_OK,
    fix="Drop --enable-expert-parallel (pure TP), or set additional_config expert_parallel below tp x dp (TP+EP), "
    "or use a release from r0.6.0.rc1 on.")
MODEL_BACKEND = rule(
    "MC924", "vllm-mindspore-model-backend", ERROR, "VLLM_MS_MODEL_BACKEND (or vLLM_MODEL_BACKEND) names no backend "
    "vllm-mindspore knows", family=_F,
    source="VMS@423bd12 vllm_mindspore/utils.py:211-246 (MindFormers, MindONE or Native, any case; else ValueError "
    "'Illegal value of VLLM_MS_MODEL_BACKEND')",
    why="The model registry asks for the backend when vllm-mindspore is imported: a value other than MindFormers, "
    "MindONE or Native (any case) raises ValueError before any model loads.",
    cann_error="ValueError: Illegal value of VLLM_MS_MODEL_BACKEND 'mindformer', allowed_values: mindformers, "
    "mindone, native",
    fail_text="`export VLLM_MS_MODEL_BACKEND=MindFormer` before `vllm-mindspore serve ...`.", pass_example=_OK,
    fix="Set VLLM_MS_MODEL_BACKEND to MindFormers, MindONE or Native, or unset it (mixed: MindFormers, then native "
    "models, then MindONE).")
