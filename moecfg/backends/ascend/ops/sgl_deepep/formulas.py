"""Buffer formulas of sgl-kernel-npu's DeepEP ops (csrc/deepep @f425bdf): pure functions, ints in, ints out.

CAM = ops/op_host/cam_moe_dispatch_normal_tiling.cc (A3 build), CAM2 = ops2/op_host/cam_moe_dispatch_normal_tiling.cc
(A2 build), TA = ops/op_host/tiling_args.h, TA2 = ops2/op_host/tiling_args.h, MTU = ops/op_host/mc2_tiling_utils.h.
The low-latency fork (MoeLowLatencyDispatchV2) reuses formulas.a3_ep_window_bytes with its dtype switch.
"""
from __future__ import annotations

from moecfg.backends.ascend.shared import formulas as fx

DEFAULT_WINDOW_MB = 200  # MTU L24: uint16_t defaultWindowSize = 200
# (combine state, notify dispatch, extra) bytes of the normal window: TA L6-7 (A3); TA2 L6-8 and CAM2 L581-584 (A2)
NORMAL_STATE = {"A3": (4 * fx.MB, 102 * fx.MB, 0), "A2": (8 * fx.MB, 404 * fx.MB, 4 * 2 * fx.MB)}
MAX_TOKENS_PER_ROUND = 8192  # deep_ep.cpp L36; also the default per-round tokens (L72-73)
MIN_TOKENS_PER_ROUND = 32  # deep_ep.cpp L82: DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS in [32, 8192]
MAX_ROUNDS = 256  # deep_ep.cpp L80: DEEPEP_NORMAL_LONG_SEQ_ROUND in [1, MAX_ROUNDS]
MAX_TOTAL_TOKENS = 131072  # deep_ep.cpp L84-86: ROUND * PER_ROUND_TOKENS <= MAX_TOTAL_TOKENS


def tiling_window_mb(deepep_hccl_buffsize: int | None, hccl_buffsize: int | None) -> tuple[int, str]:
    # MTU L22-41: DEEPEP_HCCL_BUFFSIZE if set, else HCCL_BUFFSIZE, else 200; std::stoi into uint16_t wraps mod 65536,
    # a value beyond int (stoi out_of_range) keeps 200
    for name, value in (("DEEPEP_HCCL_BUFFSIZE", deepep_hccl_buffsize), ("HCCL_BUFFSIZE", hccl_buffsize)):
        if value is not None:
            return (value % 65536 if -2**31 <= value < 2**31 else DEFAULT_WINDOW_MB), name
    return DEFAULT_WINDOW_MB, ""


def normal_max_bs(per_round_tokens: int, real_max_bs: int) -> int:
    # deep_ep.cpp L322-325: global_bs = min(per_round_tokens, real_max_bs) * ranks; CAM L636 maxBs = globalBs / ep
    return min(per_round_tokens, real_max_bs)


def normal_combine_token_bytes(h: int, rounds: int) -> int:
    # CAM L642-644: Align512(2H), doubled when round > 1 (combine double buffer)
    return fx.a3_combine_token_bytes(h) * (2 if rounds > 1 else 1)


def normal_window_bytes(product: str, h: int, k: int, max_bs: int, rounds: int) -> int:
    # CAM L639-648 (A3): (maxBs * k * (tokDispatch + tokCombine) + 4 MiB + 102 MiB) * 2;
    # CAM2 L573-584 (A2): (... + 8 MiB + 404 MiB) * 2 + 4 * 2 MiB. tokDispatch = Align512(Align32(2H) + 44)
    combine_state, notify, extra = NORMAL_STATE[product]
    tokens = max_bs * k * (fx.a3_dispatch_token_bytes(h, False) + normal_combine_token_bytes(h, rounds))
    return (tokens + combine_state + notify) * 2 + extra


def ll_dispatch_elem_bytes(quant_code: int) -> int:
    # ops/op_host/moe_distribute_dispatch_v2_tiling.cpp L1223-1226: expandX's dtype size (1) for quant 2 and 5, else 2
    return 1 if quant_code in (2, 5) else 2


def ll_combine_window_bytes(h: int, k: int, ep_world_size: int, local_moe: int, max_bs: int, shared_num: int) -> int:
    # ops/op_host/moe_distribute_combine_v2_tiling.cpp L1194-1208 (ops2 ...combine_v2_tiling.cc L925-933): the fork's
    # combine checks the same window with 2-byte dispatch slots whatever the quant mode, and no 480 alignment
    return fx.a3_ep_window_bytes(h, k, ep_world_size, local_moe, max_bs, shared_num, False, 2)
