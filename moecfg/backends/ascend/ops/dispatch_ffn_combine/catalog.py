"""Limits of `op: dispatch_ffn_combine`, as frozen data. It is vllm-ascend's own op (csrc/mc2/dispatch_ffn_combine*,
vllm-ascend@182b75e): it does not change with the CANN release, so it has one entry.
"""
from __future__ import annotations

from moecfg.core.record import record

MIB = 1 << 20


@record(frozen=True, slots=True)
class DfcRules:
    """vllm-ascend dispatch_ffn_combine (csrc/mc2/dispatch_ffn_combine/op_host/dispatch_ffn_combine_tiling.cpp)."""

    source: str = "vllm-ascend@182b75e csrc/mc2/dispatch_ffn_combine*/op_host/*_tiling.cpp"
    default_window_mb: int = 200  # GetMaxWindowSize: HCCL_BUFFSIZE unset, unparsable or > 65535
    window_max_mb: int = 65535  # parsed into uint16_t; larger values are ignored (a warning in the log)
    reserved_bytes: int = 10 * MIB  # the code adds 10 MB; its error message says 3 MB
    checked_dtypes: tuple = ("int8",)  # only the W8A8 variant checks HCCL_BUFFSIZE (bf16, w4a8: none)
    # vllm-ascend selects dispatch_ffn_combine for EP <= 32 (ascend_forward_context.py L247-254 @182b75e)
    vllm_ep_max: int = 32
    default_max_output_size: int = 131072  # additional_config mega_moe_max_tokens (ascend_config.py L283)


DFC_RULES = DfcRules()
