"""MindSpeed-MM launch rules (MC745-MC746): what MindSpeed-MM's FSDP2 parallel arguments refuse.

Ascend/MindSpeed-MM@57069cd mindspeed_mm/fsdp/params/parallel_args.py:149-150,
mindspeed_mm/fsdp/distributed/expert_parallel/ep_dispatcher.py:319-350.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_S = "Ascend/MindSpeed-MM@57069cd"
ERROR_LABELS = {c: "MindSpeed-MM's error" for c in ("MC745", "MC746")}
_OK = PASS_EXAMPLE
TP_UNSUPPORTED = rule(
    "MC745", "mindspeed-mm-fsdp2-tensor-parallel", ERROR, "MindSpeed-MM's FSDP2 trainer takes no tensor parallelism",
    family=_F, source=f"{_S} mindspeed_mm/fsdp/params/parallel_args.py:149-150 (raise ValueError('Tensor parallel size "
    "not supported yet.'))", why="The FSDP2 parallel arguments refuse parallel.tensor_parallel_size other than 1 "
    "before training starts.", cann_error="ValueError: Tensor parallel size not supported yet.",
    fail_text="`parallel: {tensor_parallel_size: 2}` in an FSDP2 config.", pass_example=_OK,
    fix="Set parallel.tensor_parallel_size: 1 (shard with FSDP, Ulysses or EP instead).")
MC2_NEEDS_FUSED = rule(
    "MC746", "mindspeed-mm-mc2-needs-fused-ops", ERROR, "the mc2 EP dispatcher needs ep_plan.use_npu_fused_ops",
    family=_F, source=f"{_S} mindspeed_mm/fsdp/distributed/expert_parallel/ep_dispatcher.py:319-350 (ep_mc2_forward: "
    "raise ValueError('ep mc2 only support fused = True'))",
    why="ep_plan.dispatcher mc2 runs the fused torch_npu npu_alltoallv_gmm / npu_gmm_alltoallv kernels only; with "
    "use_npu_fused_ops false the first MoE layer raises.", cann_error="ValueError: ep mc2 only support fused = True",
    fail_text="`ep_plan: {dispatcher: mc2, use_npu_fused_ops: false}` with expert_parallel_size > 1.",
    pass_example=_OK, fix="Set parallel.ep_plan.use_npu_fused_ops: true, or use the alltoall dispatcher.")
