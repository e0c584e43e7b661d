"""xLLM start-up rules (MC915-MC919): what the `xllm` binary refuses at start-up with these gflags, and what it
derives for its MoE collectives.

Read at jd-opensource/xllm@87e8d6e (main, 2026-07-02; tags v0.6.0 .. v0.10.0 for the flag tables). The world is
`len(--devices) x --nnodes` (xllm/core/distributed_runtime/dist_manager.cpp:177-178): every process names its own
devices, and `--nnodes` counts processes (xLLM's multi-node guides run one process per NPU with `--nnodes 32`).
The op calls xLLM then makes are judged by the existing `ascend` kind (dispatch_combine_v2, api aclnn_v2).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, INFO, WARNING
from moecfg.core.registry import rule

_F = "launch"
_X = "jd-opensource/xllm@87e8d6e xllm"
_OK = ("# the decode dispatch xLLM's TORCH backend makes: DeepSeek-V4-Flash, --ep_size 16, --max_seqs_per_batch 8\n"
       "kind: ascend\nproduct: A3\ncann_version: 9.0.1\nop: dispatch_combine_v2\napi: aclnn_v2\nbs: 8\nh: 4096\nk: 6\n"
       "ep_world_size: 16\n"
       "moe_expert_num: 256\nquant_mode: 0\ntp_world_size: 0\nglobal_bs: 128\nexpert_scales: true\n"
       "env:\n  HCCL_BUFFSIZE: 1024\n")

ERROR_LABELS = {code: "xLLM's error" for code in ("MC915", "MC916", "MC917", "MC919")}  # explain: whose error is quoted
WORLD_DP = rule(
    "MC915", "xllm-world-size-dp", ERROR, "xLLM: the world size (devices x --nnodes) must be a multiple of --dp_size",
    family=_F, source=f"{_X}/core/distributed_runtime/dist_manager.cpp:177-178,207-209 (CHECK_EQ(world_size % dp_size, "
    f"0)); {_X}/core/framework/parallel_state/mapping_npu.cpp:266-281 (attention tp x dp x cp == world size)",
    why="xLLM splits the world into --dp_size attention groups of world / dp ranks each; a remainder stops every "
    "process at start-up with a CHECK failure before any weight loads.",
    cann_error="Check failed: (world_size % dp_size) == 0 Global world size must be divisible by dp size in "
    "multi-node serving mode.",
    fail_text="`xllm --devices npu:0 --nnodes 16 --dp_size 3 ...` (world 16).", pass_example=_OK,
    fix="Set --dp_size to a divisor of the world size (devices per process x --nnodes).")
WORLD_EP = rule(
    "MC916", "xllm-world-size-ep", ERROR, "xLLM: the world size must be a multiple of --ep_size (MoE TP = world / EP)",
    family=_F, source=f"{_X}/core/framework/parallel_state/collective_communicator.cpp:407-408 (CHECK_EQ(moe_tp_size "
    f"* ep_size, world_size), TORCH backend), :245-248 and mapping_npu.cpp:299-311 (ATB backend: moe_tp = world / "
    "ep, 'World size must equal to MoE's ep_size * MoE's tp_size')",
    why="xLLM derives the MoE tensor-parallel size as world / --ep_size (integer division) and checks that "
    "moe_tp x ep gives the world back: an EP size that does not divide the world (or exceeds it) stops start-up.",
    cann_error="Check failed: moe_tp_size * ep_size == world_size (15 vs. 16)",
    fail_text="`xllm --devices npu:0 --nnodes 16 --ep_size 5 ...` (world 16).", pass_example=_OK,
    fix="Set --ep_size to a divisor of the world size (usually the world size itself for EP level 2).")
RANK_TABLE_BACKEND = rule(
    "MC917", "xllm-rank-table-backend", ERROR, "xLLM: --rank_tablefile needs --communication_backend=hccl",
    family=_F, source=f"{_X}/core/distributed_runtime/master.cpp:109-117 (validate_rank_tablefile_backend: "
    "LOG(FATAL)); since v0.10.0",
    why="A rank table describes HCCL's cluster; xLLM refuses it with any other backend (lccl) and stops at "
    "start-up.", cann_error="--rank_tablefile requires --communication_backend=hccl, but got "
    "--communication_backend=lccl",
    fail_text="`xllm ... --rank_tablefile ranktable.json --communication_backend lccl`.", pass_example=_OK,
    fix="Set --communication_backend=hccl (the default since v0.7.1), or drop --rank_tablefile.")
LAUNCH = rule(
    "MC918", "xllm-launch", INFO, "What xLLM derives from its gflags: world, attention/MoE groups, the MoE path and "
    "the moe_ep HCCL buffer", family=_F,
    source=f"{_X}/core/distributed_runtime/dist_manager.cpp:177-184; "
    f"{_X}/core/framework/parallel_state/mapping_npu.cpp:129-141 (every group's buffer: HCCL_BUFFSIZE or 512 MB); "
    f"{_X}/core/layers/npu_torch/fused_moe.cpp:1164-1207,1411-1444; kernel_config.cpp:62-73",
    why="A recognised xLLM launch: the values xLLM resolves from its flags and which MoE path runs. With the ATB "
    "kernel backend the MC2 dispatch/combine is made inside xllm_atb_layers (a separate repository, not read): "
    "its arguments are not derived and nothing is checked for it; the direct dispatch_v2 calls of the TORCH "
    "backend are derived and checked.",
    fail_text="any xllm launch on NPUs.", pass_example=_OK, fix="Nothing to fix: read it to see what xLLM builds.")
EP_LEVEL = rule(
    "MC919", "xllm-ep-level-2", WARNING, "xLLM: --expert_parallel_degree 2 (EP level 2) needs --ep_size equal to the "
    "world size", family=_F,
    source=f"{_X}/core/framework/parallel_state/collective_communicator.cpp:444-454 (the dispatch/combine domain "
    f"is built only when ep_size == world_size); {_X}/core/layers/npu_torch/fused_moe.cpp:1380-1386 (CHECK 'requires "
    "a pre-initialized dispatch/combine comm domain'); docs/en/features/moe_params.md ('When ep_size equals the "
    "total number of devices, can be set to 2')",
    why="EP level 2 replaces the all-gather between attention and MoE by MC2 all-to-all over the whole world, and "
    "xLLM's docs allow it only when --ep_size is the number of devices. The TORCH backend builds the domain those "
    "ops run on only then, so its first EP2 dispatch fails a CHECK; what the ATB layers do with a smaller EP group "
    "is not read (a warning, not an error). With --ep_size 1 the level is ignored and nothing is said.",
    cann_error="Check failed: !moe_ep_group_name_.empty() DeepSeek-V4 NPU EP2 dispatch/combine requires a "
    "pre-initialized dispatch/combine comm domain.",
    fail_text="`xllm --devices npu:0 --nnodes 32 --ep_size 16 --expert_parallel_degree 2 ...`.", pass_example=_OK,
    fix="Set --ep_size to the world size with --expert_parallel_degree 2, or use EP level 1 "
    "(--expert_parallel_degree 1).")
