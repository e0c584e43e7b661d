"""Memory budget per rank of an Ascend launch (MC954): every HCCL communicator's buffer pair and the fused MoE op's
workspace against the device memory the framework leaves outside its fraction.

vllm-ascend sizes its KV cache as requested - non-KV memory, requested = total x `--gpu-memory-utilization` (vLLM's
CacheConfig default 0.9) and non-KV = weights + torch peak + the non-torch memory that grew during the profiling run
(VA@182b75e vllm_ascend/worker/worker.py:424-425,483-547). SGLang does the same with `--mem-fraction-static`
(computed at start-up from the device memory when not given, so not known statically). torch_npu's ProcessGroupHCCL
creates a group's HCCL communicator at its first collective, as ProcessGroupNCCL does (assumed, not read in torch_npu
here), and HCCL allocates its buffer pair (2 x HCCL_BUFFSIZE / hccl_buffer_size) then: a communicator first used after the profiling run (the all-to-all `ep` group at the first long prefill, a
group used only by real traffic) lands outside the fraction and must fit in what is left. The table counts every
communicator the launch creates (an upper bound: those used during the profiling run are inside the fraction).
vllm-ascend#10839 is the published failure (MiniMax-M2.7, TP8 DP2 EP, HCCL_BUFFSIZE=1200: "vllm server may still
be oom after successfully startup"). A3 ranks are dies (64 GB each); `device_memory_gb` overrides the catalogue.
"""
from __future__ import annotations

from moecfg.backends.device.devices import MIB
from moecfg.core.diagnostics import INFO, WARNING
from moecfg.core.registry import rule
from moecfg.frameworks import budget

_OK = ("# the decode call of DeepSeek-R1-W8A8 on A3, DP4 TP4, HCCL_BUFFSIZE 1024: the buffers fit the 6.4 GB outside\n"
       "# --gpu-memory-utilization 0.9\n"
       "kind: ascend\nproduct: A3\ncann_version: 9.0.1\nbs: 16\nh: 7168\nk: 8\nep_world_size: 16\n"
       "moe_expert_num: 256\nquant_mode: 2\ntp_world_size: 1\nx_active_mask: 1d\nenv:\n  HCCL_BUFFSIZE: 1024\n")
OVER_HEADROOM = rule(
    "MC954", "ascend-hccl-buffers-over-headroom", INFO, "The HCCL buffers (2 x buffer per communicator) and fused "
    "MoE workspace of an Ascend rank exceed the memory vllm-ascend / SGLang leaves outside --gpu-memory-utilization "
    "/ --mem-fraction-static", family="launch",
    source="vllm-project/vllm-ascend#10839 (MiniMax-M2.7 TP8 DP2 EP, HCCL_BUFFSIZE=1200: OOM after a successful "
    "start-up); vllm-project/vllm-ascend@182b75e vllm_ascend/utils.py:968-1005 (buffer per group) + "
    "patch/worker/patch_distributed.py:156-166 + worker/worker.py:424-425,483-547 (KV cache = total x fraction - "
    "what the profiling run saw); CANN HCCL guide (2 x HCCL_BUFFSIZE per communicator); "
    "sgl-project/sglang python/sglang/srt/distributed/parallel_state.py get_torch_distributed_pg_options",
    why="The framework fills its fraction of the NPU with weights, activations and KV cache. Each HCCL communicator "
    "allocates two buffers of its size on the first collective of its group, and the fused MoE op its workspace per "
    "call, outside what the profiling run saw when the group is first used later: they must fit in the rest, or the "
    "server runs out of memory after it reported ready (vllm-ascend#10839). Counted per rank: every group of more "
    "than one rank the launch creates (vllm-ascend: tp, dcp, pcp, pp, dp, ep, mc2, dynamic_eplb, fine-grained TP; "
    "SGLang: moe_ep = the DeepEP group, on NPU its own communicator beside tp, attention_tp, pp). When the buffers "
    "exceed the whole device, vllm-ascend's MC950 "
    "reports it instead. The count is an upper bound, hence an info: vllm-ascend's profile_run exercises MC2 at its "
    "capacity and all-to-all at max_num_tokens (worker/model_runner_v1.py:3469-3474 @182b75e), and the worker counts "
    "memory that appears during profiling into its budget (worker/worker.py:513-530), so the buffers of the groups "
    "used there (mc2, ep, tp) may already sit inside the fraction.",
    cann_error="RuntimeError: NPU out of memory (after start-up, vllm-ascend#10839)",
    fail_text="`export HCCL_BUFFSIZE=1200` + `vllm serve MiniMax-M2.7 --tensor-parallel-size 8 --data-parallel-size "
    "2 --enable-expert-parallel --gpu-memory-utilization 0.97` on A3 (64 GB per die): 1.92 GB outside the fraction "
    "< 2.34 (mc2) + 0.39 (tp) + 0.10 (dp) + 0.39 (ep) = 3.22 GB of HCCL buffers.",
    pass_example=_OK,
    fix="Lower --gpu-memory-utilization / --mem-fraction-static to the value the message gives, or lower HCCL_BUFFSIZE "
    "(the mc2 / DeepEP group's pair is the largest) to what the op needs.")


def table(comms, extras: list[tuple[str, int, str]], product: str, product_how: str, memory_gb: float | None,
          fraction: float | None, fraction_text: str) -> dict:
    """The per-rank table: one row per communicator (2 x its buffer) plus `extras` [(name, bytes, what sets it)]."""
    rows = [(c.name, c.bytes, f"2 x {c.mb} MB ({c.ranks} ranks): {c.why}") for c in comms] + extras
    return budget.table(rows, product, product_how, memory_gb, fraction, fraction_text)


def largest_fitting_mb(tab: dict, row: str) -> int:
    """The largest buffer (MB) the communicator `row` may have so that every row fits outside the fraction:
    (outside - the other rows) / 2 MiB; <= 0 when the other rows alone do not fit."""
    others = tab["total_bytes"] - tab["buffers"][row]["bytes"]
    return (tab["outside_fraction_bytes"] - others) // (2 * MIB)


def over_headroom(tab: dict, fraction_flag: str, span, fixes: str, seen: str = "vllm-ascend#10839"):
    """MC954 notes when the table's headroom is negative."""
    return budget.over_headroom(tab, fraction_flag, span, fixes, code=OVER_HEADROOM.code, seen=seen)
