"""MindSpeed-MM launch rules: what MindSpeed-MM's FSDP2 parallel arguments refuse (MC745-MC746), and what the CANN ops
of its mc2 EP dispatcher refuse (MC723-MC724).

Ascend/MindSpeed-MM@57069cd mindspeed_mm/fsdp/params/parallel_args.py:149-150,
mindspeed_mm/fsdp/distributed/expert_parallel/ep_dispatcher.py:319-350.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule
from moecfg.trainers.rule_text import PASS_EXAMPLE

_F = "launch"
_S = "Ascend/MindSpeed-MM@57069cd"
ERROR_LABELS = {c: "MindSpeed-MM's error" for c in ("MC745", "MC746")} | {"MC723": "the CANN op's error"}
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
# cannmirror/ops-transformer at v8.5.0 (6ead121), v9.0.0 (afe7214), v9.1.0.pre (121f37d): the two MC2 ops of the mc2
# dispatcher (torch_npu npu_alltoallv_gmm = AlltoAllvGroupedMatMul, npu_gmm_alltoallv = GroupedMatMulAlltoAllv)
_OT = "cannmirror/ops-transformer"
ATLAS_EP_WORLD_SIZES = (8, 16, 32, 64, 128)  # Atlas A3 in every release
ANY_EP_WORLD_SIZES = (2, 4, 8, 16, 32, 64, 128)  # A3's, or Ascend 950's for both ops (v9.0.0 on)
MC2_EP_WORLD_SIZE = rule(
    "MC723", "mindspeed-mc2-ep-world-size", ERROR, "the mc2 EP dispatcher's ops take 8, 16, 32, 64 or 128 EP ranks on "
    "Atlas A3", family=_F,
    source=f"{_OT}@afe7214 mc2/allto_allv_grouped_mat_mul/op_host/op_tiling/allto_allv_grouped_mat_mul_tiling_base.cpp"
    ":162-185, mc2/grouped_mat_mul_allto_allv/op_host/op_tiling/grouped_mat_mul_allto_allv_tiling.cpp:394-412 (and "
    f"{_OT}@6ead121 mc2/allto_allv_grouped_mat_mul/op_host/op_tiling/allto_allv_grouped_mat_mul_tiling.cpp:515-526; "
    f"{_OT}@121f37d mc2/allto_allv_grouped_mat_mul/op_host/op_tiling/allto_allv_grouped_mat_mul_tiling.cpp:64-76)",
    why="MindSpeed-MM's mc2 dispatcher runs torch_npu.npu_alltoallv_gmm and npu_gmm_alltoallv with epWorldSize = the "
    "EP group size (mindspeed_mm/fsdp/ops/moe_ops/gemm_mc2.py); their tiling refuses an epWorldSize outside "
    "{8, 16, 32, 64, 128} on Atlas A3 (and outside {2, 4, 8, 16, 32, 64} on Ascend 950) in every release.",
    cann_error="epWorldSize[..] should be in [8, 16, 32, 64, 128]!",
    fail_text="`ep_plan: {dispatcher: mc2}` with expert_parallel_size 4 on Atlas A3, or 12 anywhere.",
    pass_example=_OK, fix="Use an expert_parallel_size the ops take, or the alltoall dispatcher.")
MC2_NO_A2 = rule(
    "MC724", "mindspeed-mc2-no-atlas-a2-kernel", ERROR, "the mc2 EP dispatcher's ops have no Atlas A2 kernel",
    family=_F, source=f"{_OT}@afe7214 mc2/allto_allv_grouped_mat_mul/op_host/allto_allv_grouped_mat_mul_def.cpp:317,602, "
    "mc2/grouped_mat_mul_allto_allv/op_host/grouped_mat_mul_allto_allv_def.cpp:89-90 (AddConfig ascend910_93 and "
    f"ascend950 only; {_OT}@6ead121 mc2/allto_allv_grouped_mat_mul/op_host/allto_allv_grouped_mat_mul_def.cpp:95: "
    "ascend910_93 only)",
    why="AlltoAllvGroupedMatMul and GroupedMatMulAlltoAllv are built for Atlas A3 (ascend910_93) and Ascend 950 only: "
    "on Atlas A2 (ascend910b) the first MoE layer of the mc2 dispatcher finds no kernel.",
    fail_text="`ep_plan: {dispatcher: mc2}` with expert parallelism, checked with --product A2.",
    pass_example=_OK, fix="On Atlas A2 use the alltoall (or allgather) dispatcher.")
