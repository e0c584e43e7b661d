"""Buffer and shape formulas of the Ascend MC2 MoE ops: pure functions, ints in, ints out.

Sources are CANN ops-transformer files (see ../shared/spec/ascend-mc2-rules.md §1-§2 for line numbers):
DV2T = moe_distribute_dispatch_v2_tiling.cpp, CWS = moe_distribute_check_win_size.h,
DV2A22 = arch22/moe_distribute_dispatch_v2_tiling_arch22.cpp, CV2A22 = arch22 combine tiling.
"""
from __future__ import annotations

MB = 1 << 20
INT32_MAX = 2**31 - 1
HIERARCHY_BASE_MB = 404  # CWS[M] L63-73: fixed part of the A3 hierarchy window
UINT16_VALUES = 1 << 16  # GetMaxWindowSize stores HCCL_BUFFSIZE (MB) in a uint16_t
GET_MAX_WINDOW_DEFAULT_MB = 200  # GetMaxWindowSize's own default (env unset or unparsable)


def max_window_size_mb(hccl_buffsize_env: int | None) -> int:
    # MTU[M] .cpp L344-360 (libochao-huawei/ops-transformer@5778144; R90 mc2/common/src/mc2_tiling_utils.cpp
    # L348-354): uint16_t w = 200; w = std::stoi(env) -> the value mod 65536; stoi throws above INT32_MAX, w stays 200
    if hccl_buffsize_env is None or not -INT32_MAX - 1 <= hccl_buffsize_env <= INT32_MAX:
        return GET_MAX_WINDOW_DEFAULT_MB
    return hccl_buffsize_env % UINT16_VALUES


def context_window_bytes(ccl_buffer_size: int, wraps: bool) -> int:
    # CWS[M] L152 (R91+): ccl_buffer_size - MB_SIZE as uint64 (below 1 MB it wraps to ~2^64);
    # R90 CWS L92-93, L130-133: window = ccl, need + 1 MB -- the same bound without the wrap
    window = ccl_buffer_size - MB
    return window % (1 << 64) if wraps else window


def align_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def align480_512(x: int) -> int:
    # torch_npu doc "480Align512": ((x + 479) / 480) * 512, fullmesh_v2 dispatch token slot
    return (x + 479) // 480 * 512


def ceil_mb(nbytes: int) -> int:
    # the exact minimum buffer: need > window fails, so ceil(need / MB) MB is enough (MTU [M])
    return -(-nbytes // MB)


def normalized_shared_expert_num(shared_expert_num: int, shared_expert_rank_num: int) -> int:
    # DV2T[M] L851-854: torch_npu's default (1, 0) means "no shared expert"
    return 0 if (shared_expert_rank_num == 0 and shared_expert_num == 1) else shared_expert_num


def effective_global_bs(bs: int, ep_world_size: int, global_bs: int) -> int:
    # DV2T[M] L998: global_bs 0 means BS * ep
    return global_bs if global_bs != 0 else bs * ep_world_size


def max_bs_per_rank(global_bs_eff: int, ep_world_size: int) -> int:
    return global_bs_eff // ep_world_size


def local_moe_expert_num(moe_expert_num: int, ep_world_size: int, shared_expert_rank_num: int) -> int:
    # DV2T[M] L961: the MoE-rank value, also used on shared-expert ranks
    return moe_expert_num // (ep_world_size - shared_expert_rank_num)


def max_shared_group_num(ep_world_size: int, shared_expert_num: int, shared_expert_rank_num: int) -> int:
    # DV2T[M] L1188-1226: ceil(ep / (shared_rank / shared_num)); 0 without shared experts
    if not shared_expert_num or not shared_expert_rank_num:
        return 0
    ranks_per_expert = shared_expert_rank_num // shared_expert_num
    return -(-ep_world_size // ranks_per_expert) if ranks_per_expert else 0


def recv_tokens_moe_rank(global_bs_eff: int, local_moe: int, k: int) -> int:
    # A on a MoE-expert rank: global_bs * min(local_moe, K) (DV2T[M] L1188-1226)
    return global_bs_eff * min(local_moe, k)


def recv_tokens_shared_rank(max_bs: int, shared_group_num: int) -> int:
    # A on a shared-expert rank: max_bs * max_shared_group_num (CV2T[M] CalA L1255-1281)
    return max_bs * shared_group_num


def a3_combine_token_bytes(h: int) -> int:
    # CWS[M]: Align512(2H); MAX_OUT_DTYPE_SIZE = 2 whatever the dtype or quant mode
    return align_up(h * 2, 512)


def a3_dispatch_token_bytes(h: int, fullmesh_v2: bool, elem_bytes: int = 2) -> int:
    # CWS[M]: Align32(2H) + 44 (32 B scale + 3 int32), then Align512, or 480Align512 for fullmesh_v2;
    # elem_bytes 1: sgl-kernel-npu's MoeLowLatencyDispatchV2 fork sizes int8/fp8 tokens at 1 byte per element
    actual = align_up(h * elem_bytes, 32) + 44
    return align480_512(actual) if fullmesh_v2 else align_up(actual, 512)


def a3_ep_window_bytes(h: int, k: int, ep_world_size: int, local_moe: int, max_bs: int,
                       shared_expert_num: int, fullmesh_v2: bool = False, dispatch_elem_bytes: int = 2) -> int:
    # CWS[M] L110-124, DV2T[R85] L954-987: 2 * (dispatch area + combine area)
    dispatch = max_bs * a3_dispatch_token_bytes(h, fullmesh_v2, dispatch_elem_bytes) * ep_world_size * local_moe
    combine = max_bs * a3_combine_token_bytes(h) * (k + shared_expert_num)
    return 2 * (dispatch + combine)


def a3_hierarchy_token_bytes(h: int, k: int) -> int:
    # CWS[M] L63-73: 2H + ((3 * (K + 7)) / 8 * 8) * 4 + 64, in C's evaluation order
    return h * 2 + (3 * (k + 7) // 8 * 8) * 4 + 64


def a3_hierarchy_window_bytes(h: int, k: int, moe_expert_num: int, max_bs: int) -> int:
    # CWS[M] L63-73: moe * max_bs * token + 404 MB
    return moe_expert_num * max_bs * a3_hierarchy_token_bytes(h, k) + HIERARCHY_BASE_MB * MB


def a3_tp_window_bytes(recv_tokens: int, h: int) -> int:
    # DV2T[R85] L990-1006, CWS[R90] CheckTpWinSize: A * (Align512(Align32(2H)+44) + Align512(2H)) * 2
    return recv_tokens * (a3_dispatch_token_bytes(h, False) + a3_combine_token_bytes(h)) * 2


def a2_flat_token_bytes(h: int, x_bytes: int, x_int32: bool) -> int:
    # DV2A22[M] L160-218: H * sizeof(x) (+32 B scale for INT32 x)
    return h * x_bytes + (32 if x_int32 else 0)


def a2_flat_window_bytes(h: int, k: int, ep_world_size: int, local_moe: int, max_bs: int,
                         x_bytes: int = 2, x_int32: bool = False) -> int:
    # DV2A22[M] L160-218 (warning only): 2 * (max_bs * ep * min(local, K) * token + 2 MB)
    return 2 * (max_bs * ep_world_size * min(local_moe, k) * a2_flat_token_bytes(h, x_bytes, x_int32) + 2 * MB)


def a2_layered_token_bytes(h: int, k: int, x_bytes: int) -> int:
    # DV2A22[M]: H * sizeof(x) + 4 * Align8(K) * 4 (index, weight, scale, flag)
    return h * x_bytes + 4 * align_up(k, 8) * 4


def a2_layered_window_bytes(h: int, k: int, ep_world_size: int, moe_expert_num: int, max_bs: int,
                            x_bytes: int = 2) -> int:
    # DV2A22[M] L160-218 (warning only): Align512(max_bs * token) * (moe + ep/8*2) + 8 MB
    per_expert = align_up(max_bs * a2_layered_token_bytes(h, k, x_bytes), 512)
    return per_expert * (moe_expert_num + ep_world_size // 8 * 2) + 8 * MB


def a2_doc85_flat_window_bytes(h: int, k: int, ep_world_size: int, local_moe: int, bs: int) -> int:
    # torch_npu dispatch_v2 doc (CANN 8.5): 2 * (BS * ep * min(local, K) * H * sizeof(uint16) + 2 MB)
    return 2 * (bs * ep_world_size * min(local_moe, k) * h * 2 + 2 * MB)


def a2_doc85_hierarchy_window_bytes(h: int, k: int, moe_expert_num: int, bs: int, x_bytes: int) -> int:
    # torch_npu dispatch_v2 doc (CANN 8.5): moe * BS * (H * sizeof(x) + 4 * Align8(K) * 4) + 4 MB + 100 MB
    return moe_expert_num * bs * (h * x_bytes + 4 * align_up(k, 8) * 4) + 104 * MB


def a3_doc_hierarchy_window_bytes(h: int, k: int, moe_expert_num: int, bs: int, x_bytes: int) -> int:
    # torch_npu dispatch_v2 doc (A3 hierarchy): moe * BS * (H * sizeof(x) + 4 * Align8(K) * 4) + 4 MB + 400 MB
    return moe_expert_num * bs * (h * x_bytes + 4 * align_up(k, 8) * 4) + 404 * MB


def a3_fullmesh_v2_ub_bytes(bs: int, h: int, k: int, moe_expert_num: int, shared_expert_rank_num: int,
                            shared_expert_num: int, quant_mode: int, has_scales: bool, scales_col: int,
                            scales_tsize: int, has_mask: bool, is_expert_mask: bool, special_experts: int,
                            elastic: bool, ep_world_size: int, aiv_num: int) -> int:
    # DV2T[M] L1592-1738: UB estimate of the fullmesh_v2 dispatch kernel (fails if > UB size)
    c = align_up
    ub = 32
    if elastic:
        ub += c((4 + 2 * ep_world_size) * 4, 32)
    ub += c(h * 2, 32) * 2
    h_out_al = c(h * 2 if quant_mode == 0 else h, 32)
    if quant_mode == 0 and has_scales:
        h_out_al += scales_col * scales_tsize
    elif quant_mode == 2:
        h_out_al += 4
    h_out_al = (c(h_out_al, 32) // 4) * 4 + 32
    ub += (c(h_out_al, 480) // 480) * 512 * 2
    ids_buf = c(bs * k * 4, 256)
    ub += ids_buf
    need_mask = has_mask or special_experts != 0
    ub += ids_buf if need_mask else 0
    mx = max(c(h * 4, 32), c(bs * k * 4, 32), bs * c(k, 32) * 2, c(bs * k * 2, 256))
    if quant_mode > 0:
        ub += c(h_out_al, 32) + 2 * mx
    elif need_mask:
        ub += 2 * mx
    if is_expert_mask or special_experts != 0:
        ub += c(bs * 4, 32) + max(c(bs * k * 4, 32), bs * c(k, 32) * 2)
    cum = min(8, aiv_num // 2)
    a2a = aiv_num - cum
    share = k + shared_expert_num  # <= 0 only for an invalid shared_expert_num, which its own rule reports
    shared_aiv = max(1, a2a * shared_expert_num // share if share > 0 else 1) if shared_expert_rank_num else 0
    moe_aiv = a2a - shared_aiv
    ub += c((ids_buf // 4) // 8, 32) * (c(moe_expert_num, moe_aiv) // moe_aiv) + c(moe_expert_num * 4, 32)
    if bs < 128:
        ub += c(c(shared_expert_rank_num + moe_expert_num, aiv_num) // aiv_num, 8) * 32
    return ub
