"""What the fused MoE ops (mega_moe, dispatch_ffn_combine) share of their workspace formulas; each op's own
formulas are in its folder (ops/<op>/formulas.py).

MMT = cannmirror/ops-transformer@25fb6b9 mc2/mega_moe/op_host/op_tiling/arch22/mega_moe_tiling_arch22.cpp
DFC = vllm-project/vllm-ascend@182b75e csrc/mc2/dispatch_ffn_combine/op_host/dispatch_ffn_combine_tiling.cpp
(the _bf16 / _w4_a8 variants: csrc/mc2/dispatch_ffn_combine_{bf16,w4_a8}/op_host/*_tiling.cpp)
"""
from __future__ import annotations

MIB = 1 << 20
SYSTEM_WORKSPACE = 16 * MIB  # MMT L75 / DFC L48 SYSTEM_NEED_WORKSPACE


def total_workspace(op_workspace: int) -> int:
    # MMT L1276 / DFC L308: 16 MiB + max(op workspace, init-routing workspace); the init-routing term
    # (MoeInitRoutingQuantV2 tiling) is not modelled, so this is a lower bound when it is larger
    return SYSTEM_WORKSPACE + op_workspace
