"""Formulas of `op: dispatch_combine_v1` (ascend-mc2-rules.md §5: R85 moe_distribute_dispatch_tiling.cpp,
moe_distribute_combine_tiling.cpp): pure functions, ints in, ints out."""
from __future__ import annotations

from moecfg.backends.ascend.shared.formulas import MB, align_up


def v1_a3_ep_window_bytes(ep_world_size: int, max_bs: int, h: int, local_moe: int) -> int:
    # R85 dispatch v1 tiling L479-497 (combine L712-717): ep * max_bs * H * 2 * 2 * local_moe
    return ep_world_size * max_bs * h * 2 * 2 * local_moe


def v1_a3_tp_window_bytes(recv_tokens: int, h: int) -> int:
    # R85 dispatch v1 tiling L501-512: A * (2H + 128) * 2
    return recv_tokens * (2 * h + 128) * 2


def v1_recv_tokens_shared_rank(global_bs_eff: int, shared_expert_rank_num: int) -> int:
    # §5: on a v1 shared-expert rank A = global_bs / shared_expert_rank_num
    return global_bs_eff // shared_expert_rank_num


def v1_a2_layered_window_bytes(h: int, k: int, ep_world_size: int, moe_expert_num: int, max_bs: int) -> int:
    # [M] moe_distribute_dispatch arch22 a2a3 tiling L284-297 (warning only):
    # (moe + ep/8*2) * max_bs * (2H + 16 * Align8(K)) + 6 MB, no Align512
    return (moe_expert_num + ep_world_size // 8 * 2) * max_bs * (2 * h + 16 * align_up(k, 8)) + 6 * MB
