"""Memory budget per rank of a GPU launch (MC985): the communication buffers against what the framework leaves.

vLLM sizes its KV cache so that weights + activations + KV cache fill `--gpu-memory-utilization` (default 0.9) of the
device; SGLang does the same with `--mem-fraction-static`. The communication buffers DeepEP allocates on every rank
(num_nvl_bytes by cudaMalloc, num_rdma_bytes on the NVSHMEM symmetric heap, and a 32 MiB workspace) must then fit in
what is left: (1 - fraction) x device memory (uccl#924: Kimi-K2.6 EP16 low-latency on H200 at 0.70 ran out of memory
in the EP buffer allocation). The table lists every buffer with its bytes, the memory outside the fraction and the
headroom; the warning names the flag that sets the fraction and the largest buffer.
"""
from __future__ import annotations

from moecfg.backends.device.devices import GIB, describe, device_bytes
from moecfg.core.diagnostics import WARNING
from moecfg.core.registry import rule
from moecfg.frameworks import Note

_OK = ("# a DeepEP low-latency Buffer that fits the memory vLLM leaves at --gpu-memory-utilization 0.9 on H200\n"
       "kind: deepep\nmode: low_latency\nnum_ranks: 16\nhidden: 7168\nnum_experts: 256\nnum_topk: 8\n"
       "num_max_dispatch_tokens_per_rank: 128\ndevice: H200\n")
OVER_HEADROOM = rule(
    "MC985", "gpu-comm-buffers-over-headroom", WARNING, "The communication buffers of a rank exceed the device memory "
    "the framework leaves outside --gpu-memory-utilization / --mem-fraction-static", family="launch",
    source="uccl-project/uccl#924 (Kimi-K2.6 EP16 LL on H200, --gpu-memory-utilization 0.70: CUDA out of memory in "
    "the EP buffer allocation); vllm-project/vllm vllm/config/cache.py gpu_memory_utilization; sgl-project/sglang "
    "server_args.py mem_fraction_static",
    why="The framework fills its fraction of the device with weights, activations and KV cache; DeepEP's NVL and RDMA "
    "buffers and its workspace are allocated on top of that on every rank, so they must fit in the rest.",
    cann_error="torch.OutOfMemoryError: CUDA out of memory (uccl#924, during the EP buffer allocation)",
    fail_text="`vllm serve moonshotai/Kimi-K2-Instruct --enable-expert-parallel --all2all-backend deepep_low_latency "
    "--gpu-memory-utilization 0.99 -dp 16` on H200 (1% of 141 GB = 1.41 GB < the 2.2 GB of buffers).",
    pass_example=_OK,
    fix="Lower --gpu-memory-utilization / --mem-fraction-static to the value the message gives, or shrink the "
    "largest buffer (VLLM_DEEPEP_BUFFER_SIZE_MB, VLLM_MOE_DP_CHUNK_SIZE, SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK).")


def table(buffers: list[tuple[str, int, str]], device: str | None, device_how: str, memory_gb: float | None,
          fraction: float | None, fraction_text: str) -> dict:
    """The per-rank memory table: buffers [(name, bytes, what sets it)], the device and the framework's fraction."""
    total = sum(b for _, b, _ in buffers)
    out = {"buffers": {name: {"bytes": b, "from": text} for name, b, text in buffers}, "total_bytes": total,
           "total_gib": round(total / GIB, 3)}
    limit = device_bytes(device or "", memory_gb)
    if limit is None:
        out["device"] = device_how
        return out
    out |= {"device": device, "device_from": device_how if memory_gb is None else "device_memory_gb",
            "device_bytes": limit, "device_memory": describe(device, memory_gb) if device else f"{memory_gb:g} GB"}
    if fraction is None or not 0 <= fraction <= 1:  # nan, inf, 1e400: no fraction of the device (unknown)
        out["framework_fraction"] = fraction_text
        return out
    outside = int(limit * (1 - fraction))
    out |= {"framework_fraction": fraction, "framework_fraction_from": fraction_text, "outside_fraction_bytes": outside,
            "headroom_bytes": outside - total}
    return out


def over_headroom(budget: dict, fraction_flag: str, span, fixes: str, code: str = OVER_HEADROOM.code,
                  seen: str = "uccl#924") -> list[Note]:
    """MC985 (or the Ascend `code`) when the buffers exceed the memory outside the fraction; `fixes` names the flags
    that shrink them, `seen` the published failure."""
    headroom = budget.get("headroom_bytes")
    if headroom is None or headroom >= 0:
        return []
    total, limit = budget["total_bytes"], budget["device_bytes"]
    most = (limit - total) / limit
    best = int(most * 100) / 100
    parts = " + ".join(f"{n} {v['bytes'] / GIB:.2f} GB" for n, v in budget["buffers"].items())
    advice = f"set {fraction_flag} <= {best:.2f}" if best > 0 else f"the buffers do not fit even with {fraction_flag} 0"
    return [Note(code, f"communication buffers per rank ({parts} = {total / GIB:.2f} GB) exceed the "
                 f"{budget['outside_fraction_bytes'] / GIB:.2f} GB {budget['device_memory']} leaves outside "
                 f"{fraction_flag} {budget['framework_fraction']:g} (headroom {headroom / GIB:.2f} GB): the buffer "
                 f"allocation runs out of memory ({seen}); {advice}, or {fixes}", span)]
