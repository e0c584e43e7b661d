"""MindSpeed-LLM launch rules (MC925-MC929): what MindSpeed refuses at start-up, a group buffer it never applies, and
the HCCL buffers of a rank against its device memory. Sources are in each rule."""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, WARNING
from moecfg.core.registry import rule

ERROR_LABELS = {"MC925": "MindSpeed's error", "MC926": "MindSpeed's error", "MC927": "Megatron's error",
                "MC928": "The error"}  # explain: whose error is quoted
_F = "launch"
MS = "Ascend/MindSpeed@028de58"
_OK = ("# the dispatch MindSpeed-LLM's DeepSeek-V3 A3 example runs is HCCL all-to-all (no fused op to check here);\n"
       "# a correct ascend document for comparison\n"
       "kind: ascend\nproduct: A3\ncann_version: 9.0.1\nbs: 16\nh: 7168\nk: 8\nep_world_size: 16\n"
       "moe_expert_num: 256\nquant_mode: 2\ntp_world_size: 1\nx_active_mask: 1d\nenv:\n  HCCL_BUFFSIZE: 1024\n")
GROUP_BUFFER_SYNTAX = rule(
    "MC925", "mindspeed-hccl-group-buffer-syntax", ERROR, "--hccl-group-buffer is text MindSpeed refuses at start-up",
    family=_F, source=f"{MS} mindspeed/core/hccl_buffer/hccl_adaptive_func.py:8-71 (allowed keys :12-43, split "
    "on ',' else ';' :46, RuntimeError per part :48-67), called from adaptor.py:46-57 in initialize_model_parallel",
    why="MindSpeed splits the text on ',' (when it holds one) else ';', and every part must be `group:MB` with a group "
    "name from its list and an integer MB > 0; anything else raises RuntimeError while the process groups are built, "
    "before the first step. A trailing ';' leaves an empty part, which is refused too.",
    cann_error="RuntimeError: The value format of --hccl-group-buffer is not valid. Expected 'key:value' pairs "
    "separated by ';'", fail_text="`--hccl-group-buffer \"dp:200;tp:300;\"` or `--hccl-group-buffer \"dp:200;"
    "moe:400\"`.", pass_example=_OK,
    fix="Write `group:MB` pairs separated by ';' (no trailing ';'), with groups MindSpeed accepts (dp, dp_cp, cp, mp, "
    "tp, pp, embd, tp_dp_cp, tp_dp, tp_cp, ep, tp_ep_mp, ...) and MB > 0.")
MOE_FLAGS_REFUSED = rule(
    "MC926", "mindspeed-moe-flags-refused", ERROR, "A MindSpeed MoE flag combination its argument validation refuses",
    family=_F, source=f"{MS} mindspeed/features_manager/moe/tp_extend_ep.py:20-28, moe_alltoall_overlap.py:22-45, "
    "moe_allgather_overlap.py:22-30, fb_overlap.py:85-94, moe_alltoall_mc2.py:21-42 (validate_args, run for every "
    "feature by Ascend/MindSpeed-LLM@c77308a mindspeed_llm/training/arguments.py:216)",
    why="MindSpeed checks its MoE features when it validates the arguments and raises AssertionError: "
    "--moe-tp-extend-ep needs num_experts divisible by TP x EP, --moe-permutation-async-comm and --moe-grouped-gemm, "
    "and no capacity factor; --moe-alltoall-overlap-comm needs an alltoall / alltoall_seq dispatcher and EP > 1 (and "
    "its own companions per dispatcher); --moe-allgather-overlap-comm the allgather dispatcher; --moe-fb-overlap "
    "--moe-grouped-gemm, the alltoall dispatcher, expert-TP 1 and EP > 1, and no --moe-tp-extend-ep; "
    "--moe-alltoall-mc2 an alltoall / alltoall_seq dispatcher (TP 1 / expert-TP 1) and none of the overlap features.",
    cann_error="AssertionError: `--moe-tp-extend-ep` needs `--moe-permutation-async-comm` and `--moe-grouped-gemm`.",
    fail_text="`--moe-tp-extend-ep --moe-token-dispatcher-type alltoall_seq --moe-grouped-gemm` without "
    "--moe-permutation-async-comm.", pass_example=_OK, fix="Add the flag the message names, or drop the feature flag.")
WORLD_INDIVISIBLE = rule(
    "MC927", "mindspeed-world-size-indivisible", ERROR, "The launcher's world size is not a multiple of TP x PP x CP "
    "or of expert-TP x EP x PP", family=_F,
    source="NVIDIA/Megatron-LM@a845aa7 (core_v0.12.1, the Megatron MindSpeed-LLM runs on) megatron/core/parallel_state.py:"
    "629-630 ('world_size (..) is not divisible by ..'), :698-703 ('decoder world_size (..) is not divisible by "
    "expert_tensor_model_pipeline_parallel size'); msrun --worker_num / torchrun --nproc_per_node x --nnodes",
    why="Megatron splits the world into TP x PP x CP model replicas and, for the experts, ETP x EP x PP; a world size "
    "that is not a multiple of either raises RuntimeError when the process groups are built.",
    cann_error="RuntimeError: decoder world_size (16) is not divisible by expert_tensor_model_pipeline_parallel size (24)",
    fail_text="`msrun --worker_num 16 ... pretrain_gpt.py --tensor-model-parallel-size 2 --pipeline-model-parallel-size "
    "2 --expert-model-parallel-size 6`.", pass_example=_OK,
    fix="Pick sizes whose product divides the world size, or change --worker_num / --nnodes.")
BUFFERS_OVER_DEVICE = rule(
    "MC928", "mindspeed-hccl-buffers-memory", ERROR, "The HCCL buffers of a MindSpeed rank (2 x buffer per "
    "communicator) exceed its device memory", family=_F,
    source=f"{MS} mindspeed/core/hccl_buffer/adaptor.py:16-28 (hccl_buffer_size per group) + NVIDIA/Megatron-LM@a845aa7 "
    "megatron/core/parallel_state.py:795-1200 (the groups) + CANN HCCL guide (2 x HCCL_BUFFSIZE per communicator, "
    "as MC950 counts it for vllm-ascend)",
    why="Every process group of more than one rank gets an HCCL communicator that allocates 2 x its buffer "
    "(HCCL_BUFFSIZE, or MindSpeed's per-group size) when the group first communicates. An error when the groups every "
    "training step uses (tp, ep or tp_ep_mp, dp_cp, ep_dp) already exceed the device; a warning when only all the "
    "groups Megatron creates do (some may never communicate). Weights, optimizer state and activations need the "
    "device too, so a fit here is no promise.",
    cann_error="RuntimeError: NPU out of memory (HCCL communicator init)",
    fail_text="`export HCCL_BUFFSIZE=9000` with TP 8, EP 8 (expert-TP 1) and DP 2 on A3 (64 GB per die): tp, ep, "
    "dp_cp and ep_dp alone need 4 x 2 x 9000 MB = 70.3 GB > 64.",
    pass_example=_OK, fix="Lower HCCL_BUFFSIZE to the value the message gives, or size the groups with "
    "--hccl-group-buffer-adaptive (and --hccl-group-buffer for the rest).")
GROUP_BUFFER_UNAPPLIED = rule(
    "MC929", "mindspeed-hccl-group-buffer-unapplied", WARNING, "A --hccl-group-buffer entry MindSpeed accepts but no "
    "process group receives", family=_F,
    source=f"{MS} mindspeed/core/hccl_buffer/adaptor.py:16-28 (the table is applied only under "
    "--hccl-group-buffer-adaptive) + NVIDIA/Megatron-LM@a845aa7 megatron/core/parallel_state.py:1132-1196 (the "
    "expert groups are named ep, ep_tp, tp_ep_mp, tp_ep_pp, ep_dp)",
    why="MindSpeed's get_nccl_options wrapper returns a group's size only when --hccl-group-buffer-adaptive is set: "
    "--hccl-group-buffer alone is parsed (MC925 checks it) and then ignored, every group keeps HCCL_BUFFSIZE. An entry "
    "under an older Megatron group name (exp, tp_exp, mp_exp, dp_modulo_exp — MindSpeed's documented example uses "
    "`exp:400`) or for a feature's group the launch does not create matches no group of Megatron core_v0.12.1.",
    fail_text="`--hccl-group-buffer \"dp:200;tp:300;exp:400\"` without --hccl-group-buffer-adaptive.", pass_example=_OK,
    fix="Add --hccl-group-buffer-adaptive (the manual entries then override its sizes), and name the EP group `ep`.")
