"""Buffer and workspace formulas of `op: mega_moe`: pure functions, ints in, ints out.

MMT = cannmirror/ops-transformer@25fb6b9 mc2/mega_moe/op_host/op_tiling/arch22/mega_moe_tiling_arch22.cpp
"""
from __future__ import annotations

from moecfg.backends.ascend.shared.formulas import align_up
from moecfg.backends.ascend.shared.fused_formulas import MIB

MEGA_MOE_MAX_EXPERT_PER_RANK = 128  # MMT L94: the token-per-expert table is sized for 128 experts per rank
MEGA_MOE_RESERVED = 10 * MIB  # MMT L77 RESERVED_SPACE_SIZE


def mega_moe_auto_max_recv(bs: int, ep: int, k: int, experts_per_rank: int) -> int:
    # MMT L367-373: max_recv_token_num 0 -> bs * ep * min(topK, expertPerRank)
    return bs * ep * min(k, experts_per_rank)


def mega_moe_token_bytes(h: int, quant: bool) -> int:
    # MMT L123-125: a dispatched token is h+512 bytes (int8 + scale area) quantised, else 2h (bf16)
    return h + 512 if quant else 2 * h


def mega_moe_tpe_bytes(ep: int) -> int:
    # MMT L115-116: TPE = ep * CeilAlign(ep * 128 + 1, 128) * 4
    return ep * align_up(ep * MEGA_MOE_MAX_EXPERT_PER_RANK + 1, 128) * 4


def mega_moe_flag_bytes(ep: int, a3: bool) -> int:
    # MMT L145-151: CrossRankSync ep*512; A2 adds dispatch flags ep*128*64 and all-gather flags ep*64
    return ep * 512 if a3 else ep * 512 + ep * MEGA_MOE_MAX_EXPERT_PER_RANK * 64 + ep * 64


def mega_moe_tensor_bytes(h: int, k: int, bs: int, max_recv: int, quant: bool, a3: bool) -> int:
    # MMT L121-141: A3 packs bs*k tokens into winIn; A2 takes max(winIn, winOut); + per-token fp32 scales
    tok, out_tok = mega_moe_token_bytes(h, quant), 2 * h
    if a3:
        return bs * k * tok + bs * k * out_tok + (bs * k * 4 if quant else 0)
    win_in = max_recv * tok + bs * k * out_tok
    win_out = bs * k * tok + max_recv * out_tok
    return max(win_in, win_out) + (max_recv * 4 if quant else 0)


def mega_moe_least_window_bytes(h: int, k: int, ep: int, bs: int, max_recv: int, quant: bool, a3: bool) -> int:
    # MMT L152: leastCclBufferSize = TPE + tensors + flags + 10 MiB, compared with ccl_buffer_size / 2 (L1024)
    return (mega_moe_tpe_bytes(ep) + mega_moe_tensor_bytes(h, k, bs, max_recv, quant, a3)
            + mega_moe_flag_bytes(ep, a3) + MEGA_MOE_RESERVED)


def mega_moe_suggested_mb(least: int) -> int:
    # MMT L1047-1050: "Suggestion: set hccl buffsize to (least + MB) / MB MB" (floor + 1)
    return (least + MIB) // MIB


def mega_moe_workspace_a3(bs: int, k: int, h: int, inter: int, ep: int, epr: int, max_recv: int,
                          quant: bool, w4a8: bool) -> int:
    # MMT L1240-1257 (Ascend910_93): N = 2*inter, n2 = h, k2 = N/2; the SumBeforeRank term keeps its
    # left-to-right integer evaluation ws * (epr + 15) / 16 * 16 * 4
    n, n2, k2 = 2 * inter, h, inter
    ws = (align_up(bs, 256) * k * 4 + ep * ep * epr * 4 + max_recv * max(n, n2) * 2 + max_recv * max(h, k2) * 2
          + ep * (epr + 15) // 16 * 16 * 4 + ep * 4 * 16)
    ws += max_recv * 4 * 2 if quant else 0
    ws += max_recv * max(n, n2) * 2 if w4a8 else 0
    return ws


def mega_moe_workspace_a2(bs: int, k: int, h: int, inter: int, ep: int, epr: int, max_recv: int,
                          quant: bool, w4a8: bool) -> int:
    # MMT L1258-1273 (Ascend910B): swiglu out 1 byte quantised, else 2
    n, n2, k2 = 2 * inter, h, inter
    padded = align_up(ep * epr + 1, 128)
    ws = (align_up(bs, 256) * k * 4 + padded * (ep + 2) * 4 + max_recv * max(n, n2) * 2
          + max_recv * max(h, k2) * (1 if quant else 2) + ep * 4 * 16)
    ws += max_recv * 4 * 2 if quant else 0
    ws += max_recv * max(n, n2) * 2 if w4a8 else 0
    return ws
