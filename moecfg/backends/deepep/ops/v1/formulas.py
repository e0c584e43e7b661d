"""DeepEP V1 ("legacy") buffer-size formulas as pure integer functions.

Everything here restates DeepEP source (spec: gpu-rules.md section 1). Every file:line citation in this module
and in the V1 rules is at DEEPEP-HEAD = deepseek-ai/DeepEP@dd758caf451848bd150e1046af3d0a73e5fff38d (main,
2026-07-14), where the V1 API lives under csrc/legacy/ (buffer.hpp, config.hpp), csrc/kernels/legacy/ and
deep_ep/buffers/legacy.py. Before 2026 the same code was csrc/deep_ep.cpp, csrc/config.hpp, csrc/kernels/*.cu
and deep_ep/buffer.py (e.g. deepseek-ai/DeepEP@567632d, 2026-02-03); the formulas and tables are unchanged
between the two (the citations were mapped line by line by content).

Rules:
- ints in, ints out; no I/O, no validation of deployment files (that is the engine's job);
- a function raises ValueError only where the C++ source itself asserts inside the formula
  (EP_HOST_ASSERT), so that a caller never gets a number DeepEP would refuse to compute.
"""

from __future__ import annotations

from moecfg.core.record import record

# ---------------------------------------------------------------------------------------------
# 1.1 Constants
# ---------------------------------------------------------------------------------------------

# csrc/kernels/legacy/compiled.cuh NUM_MAX_NVL_PEERS: GPUs per NVLink domain (node); SourceMeta assumes 8.
NUM_MAX_NVL_PEERS = 8
# csrc/kernels/legacy/compiled.cuh NUM_MAX_RDMA_PEERS: max nodes in normal mode (so at most 160 ranks).
NUM_MAX_RDMA_PEERS = 20
# csrc/kernels/legacy/compiled.cuh NUM_WORKSPACE_BYTES: separate cudaMalloc workspace per Buffer (32 MiB).
NUM_WORKSPACE_BYTES = 32 * 1024 * 1024
# csrc/kernels/legacy/compiled.cuh NUM_MAX_LOCAL_EXPERTS: local experts per rank in normal mode.
NUM_MAX_LOCAL_EXPERTS = 1024
# csrc/kernels/legacy/compiled.cuh NUM_BUFFER_ALIGNMENT_BYTES: alignment of num_nvl_bytes/num_rdma_bytes/LL hint.
NUM_BUFFER_ALIGNMENT_BYTES = 128
# csrc/kernels/legacy/compiled.cuh FINISHED_SUM_TAG: barrier/finish tag.
FINISHED_SUM_TAG = 1024
# csrc/legacy/config.hpp get_*_buffer_size_hint kNumMaxTopK: top-k assumed by both normal-mode hints.
HINT_NUM_MAX_TOPK = 128
# csrc/legacy/config.hpp get_*_buffer_size_hint kNumMaxScales: FP8 scale floats per token assumed by the hints.
HINT_NUM_MAX_SCALES = 128
# csrc/kernels/legacy/internode.cu get_source_meta_bytes: sizeof(SourceMeta) = {int src_rdma_rank; int bits}.
SOURCE_META_BYTES = 8
# deep_ep/include/deep_ep/common/compiled.cuh:72 topk_idx_t: int64 by default (EP_NUM_TOPK_IDX_BITS=64); int32 builds give 4.
TOPK_IDX_BYTES = 8
# csrc/legacy/config.hpp sizeof(int) / sizeof(float) / sizeof(int4) as used by the hint formulas.
INT_BYTES = 4
FLOAT_BYTES = 4
INT4_BYTES = 16
# csrc/kernels/legacy/internode_ll.cu kNumMaxTopK: low-latency top-k limit (was 9 before commit 9af0e0d).
LOW_LATENCY_NUM_MAX_TOPK = 11
# deep_ep/buffers/legacy.py Buffer.num_sms class attribute (README suggests Buffer.set_num_sms(24)).
DEFAULT_NUM_SMS = 20
# deep_ep/buffers/legacy.py NVSHMEM_QP_DEPTH default read by Buffer.__init__.
DEFAULT_NVSHMEM_QP_DEPTH = 1024
# deep_ep/buffers/legacy.py NVSHMEM_CUMEM_GRANULARITY = 2**29 (commit df4debe).
NVSHMEM_CUMEM_GRANULARITY = 2**29
# C++ INT_MAX, used by the Buffer constructor asserts (csrc/legacy/buffer.hpp Buffer::Buffer).
INT_MAX = 2**31 - 1


# csrc/legacy/config.hpp align_up (ceil_div(a, b) * b).
def align_up(value: int, alignment: int) -> int:
    """Round ``value`` up to a multiple of ``alignment`` (``alignment`` must be positive)."""
    if alignment <= 0:
        raise ValueError(f"alignment must be positive, got {alignment}")
    return (value + alignment - 1) // alignment * alignment


# README.md get_hidden_bytes (also Megatron fused_a2a.py get_hidden_bytes): hidden * max(elem, 2).
def hidden_bytes(hidden: int, elem_size: int) -> int:
    """Bytes per token used to size normal-mode buffers; FP8 is sized like BF16 (combine is BF16)."""
    return hidden * max(elem_size, 2)


# csrc/legacy/buffer.hpp Buffer ctor: num_rdma_ranks = max(1, num_ranks / NUM_MAX_NVL_PEERS).
def num_rdma_ranks(num_ranks: int) -> int:
    """Number of nodes (RDMA ranks) for ``num_ranks`` GPUs."""
    return max(num_ranks // NUM_MAX_NVL_PEERS, 1)


# csrc/legacy/buffer.hpp Buffer ctor: num_nvl_ranks = min(num_ranks, NUM_MAX_NVL_PEERS).
def num_nvl_ranks(num_ranks: int) -> int:
    """Number of GPUs per NVLink domain actually used."""
    return min(num_ranks, NUM_MAX_NVL_PEERS)


# ---------------------------------------------------------------------------------------------
# 1.2 / 1.3 Config and default tables
# ---------------------------------------------------------------------------------------------


@record(frozen=True)
class DeepEPConfig:
    """The five arguments of DeepEP ``Config`` as the user passes them (before any rounding)."""

    num_sms: int
    nvl_send: int  # num_max_nvl_chunked_send_tokens
    nvl_recv: int  # num_max_nvl_chunked_recv_tokens
    rdma_send: int  # num_max_rdma_chunked_send_tokens
    rdma_recv: int  # num_max_rdma_chunked_recv_tokens (Config stores it rounded up, see below)


# csrc/legacy/config.hpp Config::Config: num_max_rdma_chunked_recv_tokens = align_up(recv, send).
def stored_rdma_chunked_recv(rdma_chunked_send: int, rdma_chunked_recv: int) -> int:
    """The RDMA receive-queue depth the ``Config`` constructor actually stores (e.g. (20, 128) -> 140)."""
    return align_up(rdma_chunked_recv, rdma_chunked_send)


# csrc/legacy/buffer.hpp:1752-1758 pybind Config defaults: Config(num_sms=20, 6, 256, 6, 256).
PYBIND_DEFAULT_CONFIG = DeepEPConfig(num_sms=20, nvl_send=6, nvl_recv=256, rdma_send=6, rdma_recv=256)

# deep_ep/buffers/legacy.py:233-260 Buffer.get_dispatch_config config_map (same in 567632d
# deep_ep/buffer.py): num_ranks -> (nvl_send, nvl_recv, rdma_send, rdma_recv).
DISPATCH_CONFIG_TABLE: dict[int, tuple[int, int, int, int]] = {
    2: (24, 256, 6, 128),
    4: (6, 256, 6, 128),
    8: (6, 256, 6, 128),
    16: (36, 288, 20, 128),
    24: (32, 288, 8, 128),
    32: (32, 288, 8, 128),
    48: (32, 288, 8, 128),
    64: (32, 288, 8, 128),
    96: (20, 480, 12, 128),
    128: (20, 560, 12, 128),
    144: (32, 720, 12, 128),
    160: (28, 720, 12, 128),
}

# deep_ep/buffers/legacy.py:263-290 Buffer.get_combine_config config_map (same in 567632d).
COMBINE_CONFIG_TABLE: dict[int, tuple[int, int, int, int]] = {
    2: (10, 256, 6, 128),
    4: (9, 256, 6, 128),
    8: (4, 256, 6, 128),
    16: (4, 288, 12, 128),
    24: (1, 288, 8, 128),
    32: (1, 288, 8, 128),
    48: (1, 288, 8, 128),
    64: (1, 288, 8, 128),
    96: (1, 480, 8, 128),
    128: (1, 560, 8, 128),
    144: (2, 720, 8, 128),
    160: (2, 720, 8, 128),
}

# deep_ep/buffers/legacy.py get_dispatch_config / get_combine_config: rank counts with a default config.
DEFAULT_CONFIG_NUM_RANKS: tuple[int, ...] = tuple(sorted(DISPATCH_CONFIG_TABLE))


# deep_ep/buffers/legacy.py Buffer.get_dispatch_config (None where DeepEP asserts "Unsupported number of EP ranks").
def default_dispatch_config(num_ranks: int, num_sms: int = DEFAULT_NUM_SMS) -> DeepEPConfig | None:
    """DeepEP's recommended dispatch config for ``num_ranks``, or None if the table has no entry."""
    entry = DISPATCH_CONFIG_TABLE.get(num_ranks)
    return None if entry is None else DeepEPConfig(num_sms, *entry)


# deep_ep/buffers/legacy.py Buffer.get_combine_config (None where DeepEP asserts "Unsupported number of EP ranks").
def default_combine_config(num_ranks: int, num_sms: int = DEFAULT_NUM_SMS) -> DeepEPConfig | None:
    """DeepEP's recommended combine config for ``num_ranks``, or None if the table has no entry."""
    entry = COMBINE_CONFIG_TABLE.get(num_ranks)
    return None if entry is None else DeepEPConfig(num_sms, *entry)


# ---------------------------------------------------------------------------------------------
# 1.4 / 1.5 Normal-mode hints
# ---------------------------------------------------------------------------------------------


# csrc/legacy/config.hpp Config::get_nvl_buffer_size_hint.
def nvl_buffer_size_hint(
    hidden_bytes: int,
    num_ranks: int,
    num_sms: int,
    nvl_chunked_send: int,
    nvl_chunked_recv: int,
    rdma_chunked_send: int,
    rdma_chunked_recv: int,
    *,
    topk_idx_bytes: int = TOPK_IDX_BYTES,
    count_source_meta: bool = True,
) -> int:
    """NVLink buffer bytes DeepEP recommends for one config.

    Only ``num_sms`` and ``nvl_chunked_recv`` enter the formula; the send sizes and RDMA fields are
    accepted so that every config field can be passed uniformly. ``count_source_meta=False`` models a
    V1 build with DISABLE_NVSHMEM (SourceMeta is always counted in DEEPEP-HEAD).
    """
    if not (num_ranks < NUM_MAX_NVL_PEERS or num_ranks % NUM_MAX_NVL_PEERS == 0):
        raise ValueError(f"num_ranks must be < 8 or a multiple of 8, got {num_ranks}")
    if not (num_ranks <= NUM_MAX_NVL_PEERS or num_sms % 2 == 0):
        raise ValueError(f"num_sms must be even for more than 8 ranks, got {num_sms}")
    rdma_ranks = num_rdma_ranks(num_ranks)
    nvl_ranks = num_nvl_ranks(num_ranks)
    num_channels = num_sms // 2
    token_slots = num_channels * nvl_ranks * nvl_chunked_recv

    num_bytes = num_channels * nvl_ranks * (2 * rdma_ranks + 3) * INT_BYTES  # queue/prefix metadata
    num_bytes += token_slots * hidden_bytes
    if count_source_meta:
        num_bytes += token_slots * SOURCE_META_BYTES
    num_bytes += token_slots * HINT_NUM_MAX_TOPK * topk_idx_bytes  # top-k indices
    num_bytes += token_slots * HINT_NUM_MAX_TOPK * FLOAT_BYTES  # top-k weights
    num_bytes += token_slots * HINT_NUM_MAX_SCALES * FLOAT_BYTES  # FP8 scales
    return align_up(num_bytes, 128)


# csrc/legacy/config.hpp Config::get_rdma_buffer_size_hint.
def rdma_buffer_size_hint(
    hidden_bytes: int,
    num_ranks: int,
    num_sms: int,
    nvl_chunked_send: int,
    nvl_chunked_recv: int,
    rdma_chunked_send: int,
    rdma_chunked_recv: int,
    *,
    topk_idx_bytes: int = TOPK_IDX_BYTES,
) -> int:
    """RDMA buffer bytes DeepEP recommends for one config (0 for intranode, i.e. <= 8 ranks).

    ``rdma_chunked_recv`` is the value the user passes; it is rounded up to a multiple of
    ``rdma_chunked_send`` first, as the ``Config`` constructor does before the hint is computed.
    """
    if num_ranks <= NUM_MAX_NVL_PEERS:
        return 0
    if num_ranks % NUM_MAX_NVL_PEERS != 0:
        raise ValueError(f"num_ranks must be a multiple of 8 above 8 ranks, got {num_ranks}")
    if num_sms % 2 != 0:
        raise ValueError(f"num_sms must be even, got {num_sms}")
    rdma_ranks = num_ranks // NUM_MAX_NVL_PEERS
    num_channels = num_sms // 2
    recv_tokens = stored_rdma_chunked_recv(rdma_chunked_send, rdma_chunked_recv)
    token_slots = num_channels * rdma_ranks * recv_tokens

    num_bytes = num_channels * rdma_ranks * (NUM_MAX_NVL_PEERS * 2 + 2) * 2 * INT_BYTES
    num_bytes += token_slots * hidden_bytes * 2
    num_bytes += token_slots * SOURCE_META_BYTES * 2
    num_bytes += token_slots * HINT_NUM_MAX_TOPK * topk_idx_bytes * 2
    num_bytes += token_slots * HINT_NUM_MAX_TOPK * FLOAT_BYTES * 2
    num_bytes += token_slots * HINT_NUM_MAX_SCALES * FLOAT_BYTES * 2
    num_bytes += token_slots * INT4_BYTES * 2
    return align_up(num_bytes, 128)


# README.md normal-mode sizing: each buffer is the max of the hint over {dispatch, combine} configs.
def normal_mode_buffer_bytes(
    hidden_bytes: int, num_ranks: int, dispatch: DeepEPConfig, combine: DeepEPConfig
) -> tuple[int, int]:
    """(num_nvl_bytes, num_rdma_bytes) as DeepEP's README computes them for ``Buffer(...)``."""
    configs = (dispatch, combine)
    nvl = max(
        nvl_buffer_size_hint(hidden_bytes, num_ranks, c.num_sms, c.nvl_send, c.nvl_recv, c.rdma_send, c.rdma_recv)
        for c in configs
    )
    rdma = max(
        rdma_buffer_size_hint(hidden_bytes, num_ranks, c.num_sms, c.nvl_send, c.nvl_recv, c.rdma_send, c.rdma_recv)
        for c in configs
    )
    return nvl, rdma


# ---------------------------------------------------------------------------------------------
# 1.6 Low-latency layout
# ---------------------------------------------------------------------------------------------


@record(frozen=True)
class LowLatencyLayout:
    """Byte sizes of the regions of the LL RDMA buffer (one of each is double-buffered, odd/even)."""

    num_bytes_per_dispatch_msg: int
    num_bytes_per_combine_msg: int
    dispatch_send_buffer_bytes: int
    combine_send_buffer_bytes: int
    send_buffer_bytes: int  # max of the two above; allocated twice
    dispatch_recv_data_buffer_bytes: int
    combine_recv_buffer_bytes: int
    recv_buffer_bytes: int  # max of the two above; allocated twice
    signaling_buffer_bytes: int  # E * sizeof(int)
    signaling_buffer_bytes_aligned: int  # align_up(E * 4, 128); allocated twice
    total_bytes: int  # 2*send + 2*recv + 2*signaling_aligned (before the hint's rounding)


# csrc/legacy/config.hpp struct LowLatencyLayout constructor.
def low_latency_layout(
    num_max_dispatch_tokens_per_rank: int, hidden: int, num_ranks: int, num_experts: int
) -> LowLatencyLayout:
    """The LL buffer layout; ``num_ranks`` is accepted but unused, exactly as in DeepEP."""
    tokens = num_max_dispatch_tokens_per_rank
    num_scales = hidden // 128
    if num_scales * FLOAT_BYTES > hidden:
        raise ValueError(f"num_scales * 4 must be <= hidden, got hidden={hidden}")
    # int4 header + max(BF16 payload, FP8 payload + float scales)
    dispatch_msg = INT4_BYTES + max(hidden * 2, hidden + num_scales * FLOAT_BYTES)
    # per-128-channel bf162 min/max (LogFMT) + BF16 payload
    combine_msg = num_scales * 4 + hidden * 2

    dispatch_send = tokens * dispatch_msg
    combine_send = num_experts * tokens * combine_msg
    send = max(dispatch_send, combine_send)
    if send % INT4_BYTES != 0:
        raise ValueError(f"LL send buffer bytes {send} is not a multiple of 16 (hidden={hidden})")

    dispatch_recv = num_experts * tokens * dispatch_msg
    combine_recv = num_experts * tokens * combine_msg
    recv = max(dispatch_recv, combine_recv)
    if recv % INT4_BYTES != 0:
        raise ValueError(f"LL recv buffer bytes {recv} is not a multiple of 16 (hidden={hidden})")

    signaling = num_experts * INT_BYTES
    signaling_aligned = align_up(signaling, 128)
    total = 2 * send + 2 * recv + 2 * signaling_aligned
    return LowLatencyLayout(
        num_bytes_per_dispatch_msg=dispatch_msg,
        num_bytes_per_combine_msg=combine_msg,
        dispatch_send_buffer_bytes=dispatch_send,
        combine_send_buffer_bytes=combine_send,
        send_buffer_bytes=send,
        dispatch_recv_data_buffer_bytes=dispatch_recv,
        combine_recv_buffer_bytes=combine_recv,
        recv_buffer_bytes=recv,
        signaling_buffer_bytes=signaling,
        signaling_buffer_bytes_aligned=signaling_aligned,
        total_bytes=total,
    )


# csrc/legacy/config.hpp get_low_latency_rdma_size_hint: (total + 128) / 128 * 128 -- "+128", not "+127".
def low_latency_rdma_size_hint(
    num_max_dispatch_tokens_per_rank: int, hidden: int, num_ranks: int, num_experts: int
) -> int:
    """LL RDMA buffer bytes; adds 128 bytes even when the layout total is already 128-aligned."""
    total = low_latency_layout(num_max_dispatch_tokens_per_rank, hidden, num_ranks, num_experts).total_bytes
    return (total + NUM_BUFFER_ALIGNMENT_BYTES) // NUM_BUFFER_ALIGNMENT_BYTES * NUM_BUFFER_ALIGNMENT_BYTES


@record(frozen=True)
class LowLatencyDispatchTensors:
    """Bytes of the tensors each ``low_latency_dispatch`` call allocates outside the RDMA buffer."""

    packed_recv_x_bytes: int  # [L, R*T, hidden], FP8 (1 B) or BF16 (2 B)
    packed_recv_x_scales_bytes: int  # float [L, hidden/128, R*T], or int32 [L, hidden/512, R*T] (UE8M0); 0 for BF16
    packed_recv_src_info_bytes: int  # int32 [L, R*T]
    packed_recv_layout_range_bytes: int  # int64 [L, R]
    packed_recv_count_bytes: int  # int32 [L]
    total_bytes: int


# csrc/legacy/buffer.hpp Buffer::low_latency_dispatch (torch::empty allocations of packed_recv_*).
def low_latency_dispatch_tensors(
    num_max_dispatch_tokens_per_rank: int,
    hidden: int,
    num_ranks: int,
    num_experts: int,
    *,
    use_fp8: bool = True,
    use_ue8m0: bool = False,
) -> LowLatencyDispatchTensors:
    """Per-call framework-visible tensor sizes, with L = num_experts / num_ranks local experts."""
    if num_ranks <= 0 or num_experts % num_ranks != 0:
        raise ValueError(f"num_experts ({num_experts}) must be divisible by num_ranks ({num_ranks})")
    local_experts = num_experts // num_ranks
    recv_tokens = num_ranks * num_max_dispatch_tokens_per_rank
    x_bytes = local_experts * recv_tokens * hidden * (1 if use_fp8 else 2)
    if not use_fp8:
        scales_bytes = 0
    elif use_ue8m0:
        scales_bytes = local_experts * (hidden // 512) * recv_tokens * INT_BYTES
    else:
        scales_bytes = local_experts * (hidden // 128) * recv_tokens * FLOAT_BYTES
    src_info_bytes = local_experts * recv_tokens * INT_BYTES
    layout_range_bytes = local_experts * num_ranks * 8
    count_bytes = local_experts * INT_BYTES
    return LowLatencyDispatchTensors(
        packed_recv_x_bytes=x_bytes,
        packed_recv_x_scales_bytes=scales_bytes,
        packed_recv_src_info_bytes=src_info_bytes,
        packed_recv_layout_range_bytes=layout_range_bytes,
        packed_recv_count_bytes=count_bytes,
        total_bytes=x_bytes + scales_bytes + src_info_bytes + layout_range_bytes + count_bytes,
    )


# ---------------------------------------------------------------------------------------------
# 1.8 Numeric limits as data (the engine turns them into checks)
# ---------------------------------------------------------------------------------------------


@record(frozen=True)
class Limit:
    """One numeric fact from the section 1.8 constraint list, with where it comes from."""

    rule: str  # id in gpu-rules.md section 1.8 (B*, N*, L*) or section 1.3
    value: int | tuple[int, ...]
    meaning: str
    source: str  # file:line at DEEPEP-HEAD (dd758ca)


# csrc/kernels/legacy/launch.cuh SWITCH_RANKS.
INTRANODE_KERNEL_NUM_RANKS = Limit(
    "1.3", (2, 4, 8), "intranode kernels are instantiated only for these rank counts", "csrc/kernels/legacy/launch.cuh SWITCH_RANKS"
)
# csrc/kernels/legacy/launch.cuh SWITCH_RDMA_RANKS.
INTERNODE_KERNEL_NUM_RDMA_RANKS = Limit(
    "1.3",
    (2, 3, 4, 6, 8, 12, 16, 18, 20),
    "internode kernels are instantiated only for these node counts (num_ranks / 8)",
    "csrc/kernels/legacy/launch.cuh SWITCH_RDMA_RANKS",
)
# csrc/kernels/legacy/launch.cuh SWITCH_RDMA_RANKS, expressed in ranks (8 GPUs per node).
INTERNODE_KERNEL_NUM_RANKS = Limit(
    "1.3",
    tuple(n * NUM_MAX_NVL_PEERS for n in (2, 3, 4, 6, 8, 12, 16, 18, 20)),
    "internode kernels are instantiated only for these rank counts",
    "csrc/kernels/legacy/launch.cuh SWITCH_RDMA_RANKS",
)
# csrc/kernels/legacy/launch.cuh SWITCH_HIDDEN (L3).
LOW_LATENCY_HIDDEN_SIZES = Limit(
    "L3",
    (2048, 2560, 3072, 4096, 5120, 6144, 7168, 8192),
    "low-latency kernels are instantiated only for these hidden sizes",
    "csrc/kernels/legacy/launch.cuh:113; csrc/kernels/legacy/internode_ll.cu:552,1236",
)
# csrc/legacy/buffer.hpp:107,109 (B1, B2): normal-mode buffers are bounded by INT_MAX.
NORMAL_MODE_MAX_BUFFER_BYTES = Limit(
    "B1/B2",
    INT_MAX,
    "num_rdma_bytes <= INT_MAX unless low_latency_mode; num_nvl_bytes <= INT_MAX when num_rdma_bytes > 0",
    "csrc/legacy/buffer.hpp:107,109",
)
# csrc/legacy/buffer.hpp:111-112 (B3): num_bytes / 16 < INT_MAX, i.e. num_bytes <= 16*INT_MAX - 1.
MAX_BUFFER_BYTES_ANY_MODE = Limit(
    "B3",
    16 * INT_MAX - 1,
    "num_nvl_bytes / 16 < INT_MAX and num_rdma_bytes / 16 < INT_MAX (integer division), in every mode",
    "csrc/legacy/buffer.hpp:111-112",
)
# csrc/legacy/buffer.hpp:113 (B4).
NORMAL_MODE_MAX_NUM_RANKS = Limit(
    "B4", NUM_MAX_NVL_PEERS * NUM_MAX_RDMA_PEERS, "num_ranks <= 160 unless low_latency_mode", "csrc/legacy/buffer.hpp:113"
)
# csrc/legacy/buffer.hpp:468-469 (N3).
NORMAL_MODE_MAX_LOCAL_EXPERTS = Limit(
    "N3", NUM_MAX_LOCAL_EXPERTS, "num_experts / num_ranks <= 1024", "csrc/legacy/buffer.hpp:468-469,948-949"
)
# csrc/kernels/legacy/intranode.cu:167-168 (N4): 128-thread notify kernel.
INTRANODE_NOTIFY_MAX_LOCAL_EXPERTS = Limit(
    "N4", 128, "intranode: num_experts / num_ranks <= 128", "csrc/kernels/legacy/intranode.cu:167-168"
)
INTRANODE_NOTIFY_MAX_NUM_RANKS = Limit("N4", 128, "intranode: num_ranks <= 128", "csrc/kernels/legacy/intranode.cu:167-168")
# csrc/kernels/legacy/internode.cu:227,415 (N5): 512-thread notify kernel.
INTERNODE_NOTIFY_MAX_EXPERTS_PER_RDMA_RANK = Limit(
    "N5", 512, "internode: num_experts / num_rdma_ranks <= 512", "csrc/kernels/legacy/internode.cu:227,415"
)
# csrc/kernels/legacy/intranode.cu:251,730; csrc/kernels/legacy/internode.cu:519,1754 (N6).
NORMAL_MODE_MAX_TOPK = Limit(
    "N6", 32, "normal mode: num_topk <= 32", "csrc/kernels/legacy/intranode.cu:251,730; csrc/kernels/legacy/internode.cu:519,1754"
)
# csrc/legacy/buffer.hpp:458,750,930,1285 (N2).
NORMAL_MODE_HIDDEN_BYTES_MULTIPLE = Limit(
    "N2", 16, "(hidden * elem_size) % 16 == 0", "csrc/legacy/buffer.hpp:458,750,930,1285"
)
# csrc/kernels/legacy/intranode.cu:304 (N10): kNumTMABytesPerWarp of the intranode dispatch kernel.
INTRANODE_DISPATCH_TMA_BYTES_PER_WARP = Limit(
    "N10",
    8192,
    "hidden_int4 % 2 == 0 and (hidden_int4 / 2) * 16 + 8 <= 8192 (SM90 builds)",
    "csrc/kernels/legacy/intranode.cu:304",
)
# csrc/legacy/buffer.hpp:902 (N11).
INTERNODE_MAX_RDMA_RANKS = Limit("N11", NUM_MAX_RDMA_PEERS, "0 < num_rdma_ranks <= 20", "csrc/legacy/buffer.hpp:902")
# csrc/kernels/legacy/internode.cu:578,1758,1816 (N16, N17): kNumTMABytesPerWarp of the internode kernels.
INTERNODE_TMA_BYTES_PER_WARP = Limit(
    "N16/N17",
    16384,
    "internode: get_num_bytes_per_token(...) + 8 <= 16384 (dispatch and combine)",
    "csrc/kernels/legacy/internode.cu:578,1758,1816",
)
# csrc/kernels/legacy/internode.cu:1588 (N18): TMA combine forwarder needs hidden_int4 % 32 == 0.
INTERNODE_COMBINE_HIDDEN_BYTES_MULTIPLE = Limit(
    "N18", 512, "internode: hidden_bytes % 512 == 0 (BF16 hidden % 256 == 0)", "csrc/kernels/legacy/internode.cu:1588,2091"
)
# csrc/kernels/legacy/internode.cu:442-444,686 (N19).
INTERNODE_MAX_NODES_PER_TOKEN = Limit(
    "N19", 8, "a token may target at most min(num_rdma_ranks, 8) nodes", "csrc/kernels/legacy/internode.cu:442-444,686"
)
# csrc/legacy/buffer.hpp:1478-1479 (L2).
LOW_LATENCY_HIDDEN_MULTIPLE = Limit("L2", 128, "low latency: hidden % 128 == 0 (and % 16)", "csrc/legacy/buffer.hpp:1478-1479")
# csrc/legacy/buffer.hpp:1526 (L7).
LOW_LATENCY_RECV_TOKENS_MULTIPLE = Limit(
    "L7", 4, "(num_ranks * num_max_dispatch_tokens_per_rank) % 4 == 0 (TMA)", "csrc/legacy/buffer.hpp:1526"
)
# csrc/legacy/buffer.hpp:1530 (L8).
LOW_LATENCY_FP8_HIDDEN_MULTIPLE = Limit("L8", 512, "low latency FP8 dispatch: hidden % 512 == 0", "csrc/legacy/buffer.hpp:1530")
# csrc/kernels/legacy/internode_ll.cu:493-501,1166-1179 (L9).
LOW_LATENCY_MAX_TOPK = Limit(
    "L9", LOW_LATENCY_NUM_MAX_TOPK, "low latency: num_topk <= 11", "csrc/kernels/legacy/internode_ll.cu:493-501,1166-1179"
)
# csrc/kernels/legacy/internode_ll.cu:382,916 (L11): device asserts num_warp_groups < 15 (dispatch recv) and < 16 (combine).
LOW_LATENCY_MAX_NUM_WARP_GROUPS = 14
LOW_LATENCY_MAX_WARP_GROUPS = Limit(
    "L11",
    LOW_LATENCY_MAX_NUM_WARP_GROUPS,
    "ceil(num_experts / device_sms) <= 14, i.e. num_experts <= 14 * device_sms",
    "csrc/kernels/legacy/internode_ll.cu:382,494-497,916",
)
# csrc/kernels/legacy/internode_ll.cu:506 (L12).
LOW_LATENCY_MAX_EXPERTS_BY_WORKSPACE = Limit(
    "L12", NUM_WORKSPACE_BYTES // (4 * 2), "num_experts * 4 * 2 <= 32 MiB workspace", "csrc/kernels/legacy/internode_ll.cu:506"
)

# Derived maximum BF16 hidden sizes in normal mode with top-8 (gpu-rules.md 1.8 summary); each is
# reproduced from the helper formulas below by the tests.
INTRANODE_DISPATCH_MAX_HIDDEN_BF16 = Limit("N10", 8176, "largest BF16 hidden passing N10", "csrc/kernels/legacy/intranode.cu:304")
INTERNODE_DISPATCH_MAX_HIDDEN_BF16_TOP8 = Limit(
    "N16", 8144, "largest BF16 top-8 hidden passing N16 (with N2)", "csrc/kernels/legacy/internode.cu:47,578"
)
INTERNODE_COMBINE_MAX_HIDDEN_BF16_TOP8 = Limit(
    "N17", 8160, "largest BF16 top-8 hidden passing N17 (with N2)", "csrc/kernels/legacy/internode.cu:47,1758,1816"
)


# csrc/kernels/legacy/intranode.cu:304 dispatch TMA: half_hidden_bytes + sizeof(uint64_t) shared-memory bytes.
def intranode_dispatch_tma_bytes(hidden_bytes: int) -> int:
    """Shared-memory bytes per warp the intranode dispatch TMA needs (compare with 8192, N10)."""
    half_hidden_int4 = hidden_bytes // INT4_BYTES // 2
    return half_hidden_int4 * INT4_BYTES + 8


# csrc/kernels/legacy/internode.cu get_num_bytes_per_token (dispatch: scales + top-k idx + weights).
def internode_dispatch_token_bytes(hidden_bytes: int, num_scales: int, num_topk: int) -> int:
    """Bytes of one staged internode dispatch token: align16(hidden + SourceMeta + scales + 2*topk*4)."""
    raw = hidden_bytes + SOURCE_META_BYTES + num_scales * FLOAT_BYTES + num_topk * INT_BYTES + num_topk * FLOAT_BYTES
    return align_up(raw, INT4_BYTES)


# csrc/kernels/legacy/internode.cu combine: get_num_bytes_per_token(hidden_int4, 0, 0, num_topk).
def internode_combine_token_bytes(hidden_bytes: int, num_topk: int) -> int:
    """Bytes of one staged internode combine token: align16(hidden + SourceMeta + topk*4)."""
    return align_up(hidden_bytes + SOURCE_META_BYTES + num_topk * FLOAT_BYTES, INT4_BYTES)


# deep_ep/buffers/legacy.py:609,665 (L10): NVSHMEM_QP_DEPTH >= (T + 1) * 2.
def low_latency_max_tokens_for_qp_depth(qp_depth: int = DEFAULT_NVSHMEM_QP_DEPTH) -> int:
    """Largest num_max_dispatch_tokens_per_rank the QP-depth assert allows (511 for depth 1024)."""
    return qp_depth // 2 - 1


# csrc/kernels/legacy/internode_ll.cu:494-497 (L11): num_warp_groups = ceil(E / SMs), warps per group = 32 / groups.
def low_latency_warp_groups(num_experts: int, device_sms: int) -> tuple[int, int]:
    """(num_warp_groups, num_warps_per_group) the LL kernels launch with."""
    groups = (num_experts + device_sms - 1) // device_sms
    warps_per_group = 32 // groups if groups > 0 else 0
    return groups, warps_per_group


# csrc/kernels/legacy/internode_ll.cu:382,916 (L11): largest E with ceil(E / SMs) <= 14.
def low_latency_max_experts(device_sms: int) -> int:
    """Largest num_experts the LL kernels accept on a GPU with ``device_sms`` SMs (1848 on 132 SMs)."""
    return LOW_LATENCY_MAX_NUM_WARP_GROUPS * device_sms


# ---------------------------------------------------------------------------------------------
# Per-slot payload of the normal-mode hints (for showing the formula's terms) and the exact
# intranode host checks N7-N9 (the real minimum; the hints above over-size for top-k 128)
# ---------------------------------------------------------------------------------------------

# csrc/legacy/config.hpp get_nvl_buffer_size_hint: per-slot bytes besides hidden_bytes (8 + 128*8 + 128*4 + 128*4).
NVL_HINT_SLOT_EXTRA_BYTES = (
    SOURCE_META_BYTES + HINT_NUM_MAX_TOPK * TOPK_IDX_BYTES + HINT_NUM_MAX_TOPK * FLOAT_BYTES
    + HINT_NUM_MAX_SCALES * FLOAT_BYTES
)
# csrc/legacy/config.hpp get_rdma_buffer_size_hint: the NVL extra plus one int4 per slot (x2 for send/recv).
RDMA_HINT_SLOT_EXTRA_BYTES = NVL_HINT_SLOT_EXTRA_BYTES + INT4_BYTES


# csrc/legacy/buffer.hpp:552 (N7) intranode notify: num_ranks * (num_ranks + num_local_experts) * sizeof(int).
def intranode_notify_bytes(num_ranks: int, num_experts: int) -> int:
    """NVL bytes the intranode layout notification needs: R * (R + E/R) * 4."""
    return num_ranks * (num_ranks + num_experts // num_ranks) * INT_BYTES


# csrc/legacy/buffer.hpp:627-637 (N8) intranode dispatch: prefix matrix, channel offsets/queues, token slots.
def intranode_dispatch_bytes(
    num_ranks: int, num_sms: int, nvl_chunked_recv: int, hidden: int, elem_size: int, num_topk: int, num_scales: int
) -> int:
    """R*R*4 + 4*ch*R*4 + ch*R*recv*(hidden*elem + 4 + topk*8 + topk*4 + 4*num_scales) (top-k idx int64)."""
    channels = num_sms // 2
    per_token = hidden * elem_size + INT_BYTES + num_topk * TOPK_IDX_BYTES + num_topk * FLOAT_BYTES
    per_token += num_scales * FLOAT_BYTES
    return (num_ranks * num_ranks * INT_BYTES + 4 * channels * num_ranks * INT_BYTES
            + channels * num_ranks * nvl_chunked_recv * per_token)


# csrc/legacy/buffer.hpp:807-811 (N9) intranode combine: channel queues and token slots (BF16 payload).
def intranode_combine_bytes(
    num_ranks: int, num_sms: int, nvl_chunked_recv: int, hidden: int, elem_size: int, num_topk: int
) -> int:
    """ch*R*4*2 + ch*R*recv*(hidden*elem + 4 + topk*4)."""
    channels = num_sms // 2
    per_token = hidden * elem_size + INT_BYTES + num_topk * FLOAT_BYTES
    return channels * num_ranks * INT_BYTES * 2 + channels * num_ranks * nvl_chunked_recv * per_token
