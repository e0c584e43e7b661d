"""Buffer and workspace formulas of `op: dispatch_ffn_combine`: pure functions, ints in, ints out.

DFC = vllm-project/vllm-ascend@182b75e csrc/mc2/dispatch_ffn_combine/op_host/dispatch_ffn_combine_tiling.cpp
(the _bf16 / _w4_a8 variants: csrc/mc2/dispatch_ffn_combine_{bf16,w4_a8}/op_host/*_tiling.cpp)
"""
from __future__ import annotations

from moecfg.backends.ascend.shared.formulas import align_up
from moecfg.backends.ascend.shared.fused_formulas import MIB


def dfc_window_mb(env_value) -> int:
    # DFC L62-84 GetMaxWindowSize: HCCL_BUFFSIZE parsed into uint16_t; unset or > 65535 -> 200
    if env_value is None or not 0 <= env_value <= 65535:
        return 200
    return env_value


def dfc_least_window_bytes(bs: int, k: int, h: int, reserved: int = 10 * MIB) -> int:
    # DFC L285: M * topK * K * sizeof(int8) * 3 + 10 MB (the error text at L287-289 says "+ 3MB")
    return bs * k * h * 3 + reserved


def dfc_workspace_int8(bs: int, k: int, h: int, ep: int, epr: int, max_out: int) -> int:
    # DFC L297-306 (W8A8): n2 = K; the max_output_size terms grow by 8 + 2h + h bytes per token
    return (align_up(bs, 256) * k * 4 + ep * ep * epr * 4 * 2 + max_out * 4 * 2 + max_out * h * 2
            + max_out * h + ep * 4 * 16 + (epr + ep) * 4 * 16)


def dfc_workspace_bf16(bs: int, k: int, h: int, inter: int, ep: int, epr: int, max_out: int) -> int:
    # dispatch_ffn_combine_bf16_tiling.cpp L237-245: N = 2*inter, n2 = h, k2 = inter, all 2-byte
    n, n2, k2 = 2 * inter, h, inter
    return (align_up(bs, 256) * k * 4 + ep * ep * epr * 4 * 3 + max_out * 4 * 2 + max_out * n * 2
            + max_out * n2 * 2 + max_out * h * 2 + max_out * k2 * 2 + ep * 4 * 16 + (epr + ep) * 4 * 16)


def dfc_workspace_w4a8(bs: int, k: int, h: int, inter: int, ep: int, epr: int, max_out: int) -> int:
    # dispatch_ffn_combine_w4_a8_tiling.cpp L256-261: aliased buffers take max(N, n2) and max(K, k2)
    n, n2, k2 = 2 * inter, h, inter
    return (align_up(bs, 256) * k * 4 + ep * ep * epr * 4 * 2 + max_out * 4 * 2 + max_out * max(n, n2) * 2 * 2
            + max_out * max(h, k2) + ep * 4 * 16)
