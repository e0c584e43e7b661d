"""Wasted memory (MC657-MC658, info): buffers DeepEP allocates on every GPU but never uses in full.

MC657: in `mode: low_latency` the kernels use only the RDMA buffer, yet `Buffer` still cudaMallocs
`num_nvl_bytes` (vLLM's low-latency backend passes VLLM_DEEPEP_BUFFER_SIZE_MB = 1024 MiB). MC658: a buffer
more than 4x what this setup needs and at least 256 MiB above it (V1: the hint; V2: get_buffer_size_hint).
"""
from __future__ import annotations

from moecfg.core.registry import rule
from moecfg.backends.deepep.shared.rules import finding, yaml_doc

_F = "deepep-usage"
MIB = 1 << 20
OVERSIZE_FACTOR = 4
OVERSIZE_MIN_BYTES = 256 * MIB
_LL = dict(kind="deepep", mode="low_latency", num_ranks=16, hidden=7168, num_experts=256, num_topk=8,
           num_max_dispatch_tokens_per_rank=128)
_INTRA = dict(kind="deepep", mode="normal", num_ranks=8, hidden=7168, num_experts=256, num_topk=8)
_VLLM = "vllm-project/vllm vllm/distributed/device_communicators/all2all.py DeepEPLLAll2AllManager"

UNUSED_NVL = rule(
    "MC657", "deepep-unused-nvl-buffer", "info", "low-latency mode allocates an NVL buffer no kernel uses",
    family=_F, tags=("buffer",), source="deepseek-ai/DeepEP@dd758ca csrc/legacy/buffer.hpp (low_latency_dispatch / "
    f"low_latency_combine use rdma_buffer_ptr only); {_VLLM} (num_nvl_bytes = VLLM_DEEPEP_BUFFER_SIZE_MB MiB)",
    why="Buffer(...) allocates num_nvl_bytes with cudaMalloc on every GPU, but the low-latency kernels work in the "
    "RDMA (NVSHMEM) buffer only: the NVL buffer is device memory taken from the KV cache for nothing.",
    fail_example=yaml_doc(_LL, num_nvl_bytes=1073741824), pass_example=yaml_doc(_LL, num_nvl_bytes=0),
    fix="Pass num_nvl_bytes = 0 for a low-latency-only Buffer (vLLM: VLLM_DEEPEP_BUFFER_SIZE_MB=0 with "
    "deepep_low_latency).")
OVERSIZED = rule(
    "MC658", "deepep-buffer-oversized", "info", "a buffer is more than 4x what this setup needs",
    family=_F, tags=("buffer",), source="deepseek-ai/DeepEP@dd758ca csrc/legacy/config.hpp get_*_buffer_size_hint; "
    "V2 csrc/elastic/buffer.hpp:652-686 calculate_buffer_size",
    why="Every byte of the buffer is allocated on every GPU of the EP group; a fixed size far above DeepEP's own "
    "hint (vLLM's 1 GiB high-throughput default) is memory the KV cache does not get.",
    fail_example=yaml_doc(_INTRA, num_nvl_bytes=2147483648), pass_example=yaml_doc(_INTRA, num_nvl_bytes=335709824),
    fix="Size the buffer with DeepEP's hint (the figure moecfg prints), with the headroom you want.")


def unused_nvl(d, f):
    if d.low_latency and d.num_nvl_bytes:
        yield finding(UNUSED_NVL, "num_nvl_bytes", f"num_nvl_bytes = {d.num_nvl_bytes} ({d.num_nvl_bytes / MIB:.0f} "
                      "MiB) is allocated on every GPU but low-latency kernels use only the RDMA buffer; set "
                      "num_nvl_bytes: 0")


def oversized_finding(field: str, have: int, need: int, what: str):
    """MC658 when `have` is > 4x `need` and >= 256 MiB above it (also used by api v2)."""
    if need <= 0 or have <= OVERSIZE_FACTOR * need or have - need < OVERSIZE_MIN_BYTES:
        return None
    return finding(OVERSIZED, field, f"{field} = {have} is {have / need:.1f}x {what} {need} "
                   f"({(have - need) / MIB:.0f} MiB more on every GPU); set {field}: {need} plus the headroom you want")


def oversized(d, f):
    from moecfg.backends.deepep.ops.v1.rules.buffers import requirements

    for req in requirements(d, f):
        if req.configured_bytes is not None:
            fd = oversized_finding(req.field, req.configured_bytes, req.required_bytes, "what DeepEP's hint needs,")
            if fd:
                yield fd


CHECKS = (unused_nvl, oversized)
