"""DeepEP V2 (`ElasticBuffer`) buffer size and limits as pure integer functions.

Source tag DEEPEP-MAIN is deepseek-ai/DeepEP@dd758caf451848bd150e1046af3d0a73e5fff38d (main, 2026-07-14);
V2 arrived in b306af0 (2026-04-30, PR #605) and its sizing code is unchanged since 099d5f2 (2026-07-03).
`calculate_buffer_size` needs the topology: NCCL's LSA team (the NVLink domain, `num_nvl_ranks`) splits the
ranks into scale-up (NVLink) and scale-out (RDMA) ranks. Every function takes ints and returns ints.
"""
from __future__ import annotations

from moecfg.core.record import record

# csrc/kernels/backend/symmetric.hpp:16 kNumAlignmentBytes: num_bytes is a multiple of 2 MiB.
ALIGNMENT_BYTES = 2 * 1024 * 1024
# deep_ep/include/deep_ep/common/ptx.cuh:16 kNumTMAAlignBytes: every part of a token is 32-byte aligned.
TMA_ALIGN_BYTES = 32
# csrc/elastic/buffer.hpp:57-59 kNumMaxChannels = kNumMaxChannelsPerSM (8) * kNumMaxSMs (160).
MAX_CHANNELS = 8 * 160
# csrc/elastic/buffer.hpp:662-663: "num_topk == 0 ? 32" (the kernels' kNumTopk <= 32 bound).
TOPK_WHEN_UNKNOWN = 32
MAX_TOPK = 32
# deep_ep/include/deep_ep/common/layout.cuh:19-21 WorkspaceLayout limits.
MAX_RANKS = 1024
MAX_EXPERTS = 2048
MAX_EXPERTS_PER_RANK = 256
MAX_INFLIGHT_AGRS = 32
# deep_ep/include/deep_ep/common/compiled.cuh:74-77 sf_pack_t (float or 4 x UE8M0): 4 bytes.
SF_PACK_BYTES = 4
INT_BYTES = FLOAT_BYTES = 4
INT64_BYTES = 8
# deep_ep/buffers/elastic.py:328-335 automatic num_allocated_qps: hybrid 65 (fast RDMA atomics) or 129, direct 17.
AUTO_QPS_HYBRID_FAST_ATOMICS = 65
AUTO_QPS_HYBRID = 129
AUTO_QPS_DIRECT = 17


def align(value: int, alignment: int) -> int:
    """Round ``value`` up to a multiple of ``alignment`` (deep_ep math::align)."""
    return -(-value // alignment) * alignment


@record(frozen=True, slots=True)
class Topology:
    """csrc/kernels/backend/nccl.cu:49-60 get_physical_domain_size / get_logical_domain_size."""

    num_rdma_ranks: int  # physical: num_ranks / NVLink-domain size
    num_nvl_ranks: int
    num_scaleout_ranks: int  # logical: hybrid = RDMA ranks, direct = 1
    num_scaleup_ranks: int  # logical: hybrid = NVLink ranks, direct = all ranks

    @property
    def hybrid(self) -> bool:
        return self.num_scaleout_ranks > 1

    @property
    def is_scaleup_nvlink(self) -> bool:  # csrc/elastic/buffer.hpp:668
        return self.num_scaleup_ranks == self.num_nvl_ranks


# csrc/kernels/backend/nccl.cu:49-60 (asserts num_ranks % num_nvl_ranks == 0).
def topology(num_ranks: int, num_nvl_ranks: int, allow_hybrid_mode: bool = True) -> Topology:
    nvl = min(num_nvl_ranks, num_ranks)
    if num_ranks % nvl:
        raise ValueError(f"num_ranks {num_ranks} is not a multiple of the NVLink domain {nvl}")
    rdma = num_ranks // nvl
    if allow_hybrid_mode:
        return Topology(rdma, nvl, rdma, nvl)
    return Topology(rdma, nvl, 1, num_ranks)


# deep_ep/include/deep_ep/common/layout.cuh:187-208 TokenLayout::get_num_bytes<false> (A32 each part).
def token_bytes(hidden_bytes: int, sf_bytes: int, num_topk: int, with_metadata: bool) -> int:
    metadata = num_topk * (INT_BYTES + FLOAT_BYTES) + ((1 + num_topk) * INT_BYTES if with_metadata else 0)
    return align(hidden_bytes, TMA_ALIGN_BYTES) + align(sf_bytes, TMA_ALIGN_BYTES) + align(metadata, TMA_ALIGN_BYTES)


# csrc/kernels/elastic/dispatch.hpp:136-139 get_dispatch_token_layout (sf = ceil(hidden / 32) packs for FP8).
def dispatch_token_bytes(hidden: int, num_topk: int, use_fp8_dispatch: bool) -> int:
    elem = 1 if use_fp8_dispatch else 2
    sf = -(-hidden // 32) * SF_PACK_BYTES if use_fp8_dispatch else 0
    return token_bytes(hidden * elem, sf, num_topk, True)


# csrc/kernels/elastic/combine.hpp:109-112 get_combine_token_layout (BF16, no scales, no metadata).
def combine_token_bytes(hidden: int, num_topk: int) -> int:
    return token_bytes(hidden * 2, 0, num_topk, False)


# csrc/elastic/buffer.hpp:586-613 get_dispatch_buffer_size.
def dispatch_buffer_bytes(t: int, hidden: int, num_topk: int, use_fp8_dispatch: bool, topo: Topology) -> int:
    tok = dispatch_token_bytes(hidden, num_topk, use_fp8_dispatch)
    ranks = topo.num_scaleout_ranks * topo.num_scaleup_ranks
    if not topo.hybrid:  # direct: send (none over NVLink) + one slot row per rank
        return tok * (0 if topo.is_scaleup_nvlink else 1) * t + tok * ranks * t
    out = topo.num_scaleout_ranks
    return tok * topo.num_scaleup_ranks * out * t + tok * t + tok * out * (t + MAX_CHANNELS)


# csrc/elastic/buffer.hpp:615-650 get_combine_buffer_size.
def combine_buffer_bytes(t: int, hidden: int, num_topk: int, topo: Topology, allow_multiple_reduction: bool = True) -> int:
    tok = combine_token_bytes(hidden, num_topk)
    ranks = topo.num_scaleout_ranks * topo.num_scaleup_ranks
    multi = allow_multiple_reduction
    if not topo.hybrid:
        send = tok * (0 if topo.is_scaleup_nvlink else ranks) * t * (1 if multi else num_topk)
        return send + tok * (min(ranks, num_topk) if multi else num_topk) * t
    out, up = topo.num_scaleout_ranks, topo.num_scaleup_ranks
    scaleup_recv = tok * (min(up, num_topk) if multi else num_topk) * out * t
    scaleout_recv = tok * (min(out, num_topk) if multi else num_topk) * t
    scaleout_send = tok * (1 if multi else num_topk) * out * (t + MAX_CHANNELS)
    return scaleup_recv + scaleout_send + scaleout_recv


@record(frozen=True, slots=True)
class ElasticSize:
    dispatch_bytes: int
    combine_bytes: int
    num_topk_sized: int  # the top-k the layout was sized with (32 when 0 was passed)
    num_bytes: int  # align 2 MiB of the larger

    @property
    def unaligned_bytes(self) -> int:
        return max(self.dispatch_bytes, self.combine_bytes)


# csrc/elastic/buffer.hpp:652-686 calculate_buffer_size (ElasticBuffer.get_buffer_size_hint, elastic.py:381-407).
def buffer_size(t: int, hidden: int, num_topk: int, use_fp8_dispatch: bool, topo: Topology,
                allow_multiple_reduction: bool = True) -> ElasticSize:
    if t <= 0 or hidden <= 0:
        raise ValueError("num_max_tokens_per_rank > 0 and hidden > 0")  # buffer.hpp:657
    if -(-hidden // 32) * FLOAT_BYTES > hidden:
        raise ValueError("ceil_div(hidden, 32) * sizeof(float) <= hidden")  # buffer.hpp:660
    topk = num_topk or TOPK_WHEN_UNKNOWN
    d = dispatch_buffer_bytes(t, hidden, topk, use_fp8_dispatch, topo)
    c = combine_buffer_bytes(t, hidden, topk, topo, allow_multiple_reduction)
    return ElasticSize(d, c, topk, align(max(d, c), ALIGNMENT_BYTES))


# deep_ep/include/deep_ep/common/layout.cuh:43-82 WorkspaceLayout::get_num_bytes, aligned to 2 MiB (buffer.hpp:104-105).
def workspace_bytes() -> int:
    r, e, ch = MAX_RANKS, MAX_EXPERTS, MAX_CHANNELS
    raw = (16 + (r + e) * INT64_BYTES + r * INT64_BYTES * 2 + e * INT64_BYTES * 2 + r * INT_BYTES
           + r * INT_BYTES * 2 + e * INT_BYTES * 2 + r * ch * INT64_BYTES + r * ch * INT_BYTES
           + 2 * 2 * INT64_BYTES + (MAX_INFLIGHT_AGRS + 1) * r * INT_BYTES)
    return align(raw, ALIGNMENT_BYTES)


# deep_ep/buffers/elastic.py:328-335: the QPs allocated when num_allocated_qps == 0.
def auto_allocated_qps(allow_hybrid_mode: bool, fast_rdma_atomics: bool = True) -> int:
    if not allow_hybrid_mode:
        return AUTO_QPS_DIRECT
    return AUTO_QPS_HYBRID_FAST_ATOMICS if fast_rdma_atomics else AUTO_QPS_HYBRID
