"""vllm-ascend's token arithmetic as pure functions (ints in, ints out), each citing its source.

VA = vllm-project/vllm-ascend; tags v0.11.0 = 2f1aed9, v0.13.0 = 6281c12, main = 182b75e (2026-08-22).
"""
from __future__ import annotations

import math

MC2_TOKENS_PER_RANK_LIMIT = 512  # VA@182b75e vllm_ascend/ascend_forward_context.py:35
DISPATCH_FFN_COMBINE_TOKENS_PER_RANK_LIMIT = 512  # VA@182b75e vllm_ascend/ascend_forward_context.py:34
MEGA_MOE_TOKENS_PER_RANK_LIMIT = 4096  # VA@182b75e vllm_ascend/ascend_forward_context.py:33
EAGER_TOKEN_CAP = 512  # VA@6281c12 vllm_ascend/ascend_forward_context.py:180-182 ("cap ... to 512")
GRAPH_TOKEN_CAP = 512  # VA@182b75e vllm_ascend/platform.py:1309; VA@6281c12 patch_set_cudagraph_sizes.py:56-57
A2_MIN_EP_FOR_MC2 = 16  # VA@2f1aed9 model_runner_v1.py:1890; VA@182b75e ascend_forward_context.py:235
A3_MEGA_MOE_MAX_EP = 64  # VA@182b75e vllm_ascend/ascend_forward_context.py:250
A3_DISPATCH_FFN_COMBINE_MAX_EP = 32  # VA@182b75e ascend_forward_context.py:253; VA@6281c12 :259
MEGA_MOE_HIDDEN = (1024, 8192, 512)  # VA@182b75e vllm_ascend/ascend_config.py:414 (min, max, multiple)
MEGA_MOE_INTERMEDIATE = (1024, 3072, 512)  # VA@182b75e vllm_ascend/ascend_config.py:424
MEGA_MOE_QUANTS = ("w8a8", "w4a8", "w8a8_dynamic", "w4a8_dynamic")  # VA@182b75e ascend_config.py:436-443
HIERARCHY_MAX_EXPERTS = 512  # VA@182b75e vllm_ascend/ascend_config.py:345-350
HCCL_DEFAULT_BUFFER_MB = 200  # VA@182b75e vllm_ascend/utils.py:70 (every group but mc2 and dp)
DP_MIN_BUFFER_MB = 50  # VA@182b75e vllm_ascend/utils.py:71


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def vllm011_ladder(max_size: int) -> list[int]:
    """vLLM 0.11 default capture sizes: [1, 2, 4] + multiples of 8 up to cuda_graph_sizes[0]
    (vllm v0.11 vllm/config/__init__.py _set_cudagraph_sizes, `range(8, cuda_graph_sizes[0] + 1, 8)`)."""
    return [1, 2, 4] + list(range(8, max_size + 1, 8))


def ascend_ladder(max_size: int) -> list[int]:
    """Capture sizes up to max_size: 1, 2, 4, multiples of 8 below 256, of 16 from 256, then max_size itself
    (VA@6281c12 vllm_ascend/patch/platform/patch_set_cudagraph_sizes.py:80-92; upstream vLLM's ladder)."""
    sizes = [i for i in (1, 2, 4) if i <= max_size]
    if max_size >= 8:
        sizes += list(range(8, min(max_size + 1, 256), 8))
    if max_size >= 256:
        sizes += list(range(256, max_size + 1, 16))
    if sizes[-1] < max_size:
        sizes.append(max_size)
    return sizes


def v011_max_capture(max_num_seqs: int, max_num_batched_tokens: int, cuda_graph_sizes: list[int] | None,
                     user_sizes: list[int] | None) -> int:
    """Largest capture size in vLLM 0.11: user `cudagraph_capture_sizes` win; else cuda_graph_sizes (one value:
    the ladder up to it; several: the list; default [min(2*max_num_seqs, 512)]), filtered <= max_num_batched_tokens
    (vllm v0.11 vllm/config/__init__.py _set_cudagraph_sizes; SchedulerConfig.__post_init__)."""
    if user_sizes:
        return max(user_sizes)
    graph = cuda_graph_sizes or [min(max_num_seqs * 2, 512)]
    sizes = vllm011_ladder(max(graph[0], 1)) if len(graph) == 1 else sorted(graph)
    sizes = [s for s in sizes if s <= max_num_batched_tokens]
    return max(sizes) if sizes else 0


def v011_spec_enlarged(max_capture: int, max_num_seqs: int, spec_tokens: int) -> int:
    """PIECEWISE graphs with > 1 speculative token: every size x (1+spec) when the largest < (1+spec)*max_num_seqs
    (VA@2f1aed9 vllm_ascend/utils.py:491-501)."""
    if spec_tokens > 1 and max_capture < (spec_tokens + 1) * max_num_seqs:
        return max_capture * (spec_tokens + 1)
    return max_capture


def ascend_max_capture(max_num_seqs: int, max_num_batched_tokens: int, spec_tokens: int,
                       user_sizes: list[int] | None, user_max: int | None) -> int:
    """max_cudagraph_capture_size (v0.13 patch, main platform default): min(max_num_seqs*(1+spec), 512) unless the
    user sets it, clipped to max_num_batched_tokens; user sizes: the largest <= max_num_batched_tokens
    (VA@6281c12 patch_set_cudagraph_sizes.py:49-60,67-78,101-120; VA@182b75e platform.py:1294-1309)."""
    if user_sizes:
        kept = [s for s in set(user_sizes) if s <= max_num_batched_tokens]
        return max(kept) if kept else 0
    cap = user_max if user_max is not None else min(max_num_seqs * (1 + spec_tokens), GRAPH_TOKEN_CAP)
    return min(max_num_batched_tokens, cap)


def tp_aligned_max(sizes: list[int], tp: int) -> int:
    """Largest capture size that is a multiple of TP (VllmConfig.update_sizes_for_sequence_parallelism), applied by
    main when shared-expert DP / sequence-parallel MoE / DSA-CP shard tokens (VA@182b75e platform.py:1043-1064);
    0 when none is (vLLM then raises)."""
    kept = [s for s in sizes if s % tp == 0]
    return max(kept) if kept else 0


def eager_tokens(max_num_seqs: int, spec_tokens: int, cap: int | None) -> int:
    """Without graphs: max_num_reqs * uniform_decode_query_len, capped at 512 in v0.11/v0.13
    (VA@2f1aed9 model_runner_v1.py:547-548; VA@6281c12 ascend_forward_context.py:182; VA@182b75e :185 no cap)."""
    tokens = max_num_seqs * (1 + spec_tokens)
    return min(tokens, cap) if cap is not None else tokens


def tokens_per_tp_rank(max_num_tokens: int, tp: int, limit: int | None) -> int:
    """ceil(max_num_tokens / TP), capped at `limit` on main (VA@2f1aed9 model_runner_v1.py:551;
    VA@6281c12 ascend_forward_context.py:185; VA@182b75e ascend_forward_context.py:189-199)."""
    per_rank = ceil_div(max_num_tokens, tp)
    return min(per_rank, limit) if limit is not None else per_rank


def torchair_capacity(max_num_seqs: int, spec_tokens: int, tp: int) -> int:
    """v0.11 torchair: max_num_seqs*(1+spec) rounded up to a TP multiple, or lcm(TP, it) with > 1 speculative
    token (VA@2f1aed9 vllm_ascend/torchair/torchair_model_runner.py:104-108,473-482)."""
    tokens = max_num_seqs * (1 + spec_tokens)
    if spec_tokens > 1:
        return tp * tokens // math.gcd(tp, tokens)
    return ceil_div(tokens, tp) * tp


def mega_moe_max_recv(num_max_tokens_per_rank: int, ep: int, topk: int, experts: int) -> int:
    """MegaMoE max_recv_token_num = nmt * ep * min(topk, experts/ep) (VA@182b75e moe_comm_method.py:312-317)."""
    return max(1, num_max_tokens_per_rank * ep * min(topk, max(1, experts // ep)))


def dp_buffer_mb(dp: int, flags: int) -> int:
    """dp group buffer: max(ceil((dp + flags) * 4 B / MiB), 50) MB; flags 2 in v0.11, 1 on main
    (VA@2f1aed9 vllm_ascend/utils.py:801-811; VA@182b75e vllm_ascend/utils.py:994-1008)."""
    return max(ceil_div((dp + flags) * 4, 1024 * 1024), DP_MIN_BUFFER_MB)


def in_range(value: int, bounds: tuple[int, int, int]) -> bool:
    lo, hi, multiple = bounds
    return lo <= value <= hi and value % multiple == 0
