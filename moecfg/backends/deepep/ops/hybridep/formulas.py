"""NVIDIA Hybrid-EP (`HybridEPBuffer`, Megatron `--moe-flex-dispatcher-backend hybridep`) limits as pure functions.

Source tag HYBRIDEP is deepseek-ai/DeepEP@94a9f8f6b146c07d97ec58f67cd6d303296d6098 (branch hybrid-ep,
2026-07-10): csrc/hybrid_ep/config.cuh (BufferConfig::is_valid, Configurer) and deep_ep/hybrid_ep_buffer.py.
"""
from __future__ import annotations

# csrc/hybrid_ep/config.cuh:16 MAX_NUM_OF_RANKS_PER_NODE (GB200 NVL72); arrays are sized by it
# (csrc/hybrid_ep/backend/hybrid_ep_backend.cuh:587-639; extension/allgather.cu:96 asserts it).
MAX_RANKS_PER_NODE = 72
# csrc/hybrid_ep/config.cuh:18-20: multi-node dispatch needs 3 * tokens + 1 < 65536 IB QP TX depth.
IB_QP_MAX_TX_DEPTH = 65536
TX_DEPTH_TOKEN_FACTOR = 3
TX_DEPTH_EXTRA = 1
# csrc/hybrid_ep/config.cuh:86-90 is_valid: TMA needs hidden % 16 (BF16, UINT16) or % 512 (FP8 scales, UINT8).
HIDDEN_MULTIPLE_BF16 = 16
HIDDEN_MULTIPLE_FP8 = 512
# csrc/hybrid_ep/config.cuh:91-93 is_valid: (experts/rank * ranks/node) and (chunk * ranks/node) % 4 == 0.
TMA_GROUP_MULTIPLE = 4
# csrc/hybrid_ep/config.cuh:383-388 Configurer: NUM_OF_TOKENS_PER_CHUNK_{DISPATCH,COMBINE}_API default 64,
# tokens per rank padded from max(T, 512).
DEFAULT_TOKENS_PER_CHUNK = 64
MIN_BUFFER_TOKENS = 512
# csrc/hybrid_ep/config.cuh:366-367 Configurer: default SMs for dispatch / combine, one node 24, more 8.
DEFAULT_SMS_ONE_NODE = 24
DEFAULT_SMS_MULTI_NODE = 8


# csrc/hybrid_ep/config.cuh:36-38: the largest tokens per rank the IB TX depth allows (21844).
def max_tokens_multinode() -> int:
    return (IB_QP_MAX_TX_DEPTH - 1 - TX_DEPTH_EXTRA) // TX_DEPTH_TOKEN_FACTOR


# csrc/hybrid_ep/config.cuh:28-32: the TX depth one rank's dispatch needs.
def tx_depth(tokens_per_rank: int) -> int:
    return TX_DEPTH_TOKEN_FACTOR * tokens_per_rank + TX_DEPTH_EXTRA


# csrc/hybrid_ep/config.cuh:52-62,386-388 hybrid_ep_pad_num_of_tokens_per_rank(max(T, 512), combine chunk).
def buffer_tokens_per_rank(max_num_of_tokens_per_rank: int, tokens_per_chunk_combine: int = DEFAULT_TOKENS_PER_CHUNK) -> int:
    t = max(max_num_of_tokens_per_rank, MIN_BUFFER_TOKENS)
    if tokens_per_chunk_combine <= 0:
        return t
    return -(-t // tokens_per_chunk_combine) * tokens_per_chunk_combine


# Largest T whose padded buffer count still passes the multi-node TX depth check (21824 with chunk 64).
def max_tokens_multinode_padded(tokens_per_chunk_combine: int = DEFAULT_TOKENS_PER_CHUNK) -> int:
    limit = max_tokens_multinode()
    if tokens_per_chunk_combine <= 0:
        return limit
    return limit // tokens_per_chunk_combine * tokens_per_chunk_combine


def hidden_multiple(use_fp8: bool) -> int:
    return HIDDEN_MULTIPLE_FP8 if use_fp8 else HIDDEN_MULTIPLE_BF16


# csrc/hybrid_ep/config.cuh:366-367 default SMs of the dispatch and combine kernels.
def default_sms(num_of_nodes: int) -> int:
    return DEFAULT_SMS_ONE_NODE if num_of_nodes == 1 else DEFAULT_SMS_MULTI_NODE
