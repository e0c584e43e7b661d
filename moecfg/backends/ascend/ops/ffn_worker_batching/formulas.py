"""Formulas of `op: ffn_worker_batching` (ascend-mc2-rules.md §6; torch_npu afd ScheduleContextHolder, seed 004):
pure functions, ints in, ints out."""
from __future__ import annotations

from moecfg.backends.ascend.shared.formulas import align_up

FFN_BUF_ALIGN = 512  # torch_npu afd kBufAlignSize: token slots and buffers aligned to 512 bytes
FFN_TOKEN_BYTES = {"fp16": 2, "bf16": 2, "int8": 1}  # token_dtype 0, 1, 2
FFN_INT8_SCALE_BYTES = 4  # token_dtype 2: the fp32 dynamic scale follows the int8 data


def ffn_output_tokens(attention_workers: int, micro_batch_size: int, top_k: int) -> int:
    # seed 004: Y = A * BS * (K + 1)
    return attention_workers * micro_batch_size * (top_k + 1)


def ffn_token_payload_bytes(hidden: int, token_dtype: str) -> int:
    # seed 004: int8 data and its fp32 scale are contiguous; fp16/bf16 tokens are 2 bytes per element
    extra = FFN_INT8_SCALE_BYTES if token_dtype == "int8" else 0
    return hidden * FFN_TOKEN_BYTES[token_dtype] + extra


def ffn_token_slot_bytes(payload_bytes: int) -> int:
    # ScheduleContext.CommonArea.attn_to_ffn_token_size: per-token size in the FFN window, aligned to 512
    return align_up(payload_bytes, FFN_BUF_ALIGN)


def ffn_token_info_bytes(attention_workers: int, micro_batch_num: int, micro_batch_size: int,
                         selected_experts: int) -> int:
    # torch_npu CalcFfnTokenInfoSize: [A, M] FfnDataDesc = flag + layer_id (2 int32) + expert_ids[BS][K+1] int32
    return attention_workers * micro_batch_num * (2 * 4 + 4 * micro_batch_size * selected_experts)


def ffn_token_data_bytes(attention_workers: int, micro_batch_num: int, micro_batch_size: int,
                         selected_experts: int, token_slot_bytes: int) -> int:
    # ScheduleContext.FfnArea.token_data_buf: [A, M, BS, K+1, HS], HS = attn_to_ffn_token_size
    return attention_workers * micro_batch_num * micro_batch_size * selected_experts * token_slot_bytes


def ffn_window_bytes(token_info_bytes: int, token_data_bytes: int) -> int:
    # torch_npu InitFfn: token_info_buf at the window start, token_data_buf after Align512(token_info_size)
    return align_up(token_info_bytes, FFN_BUF_ALIGN) + token_data_bytes


def ffn_output_area_bytes(attention_workers: int, micro_batch_size: int, selected_experts: int) -> int:
    # torch_npu AllocAndAssignDevMem: Align512(4A) * 3 (layer, session, micro-batch ids) + Align512(4 * A * BS * (K+1))
    ids = align_up(4 * attention_workers, FFN_BUF_ALIGN)
    return ids * 3 + align_up(4 * attention_workers * micro_batch_size * selected_experts, FFN_BUF_ALIGN)


def ffn_workspace_bytes(output_tokens: int, expert_num: int) -> int:
    # ffn_worker_batching_tiling.cpp L46-61: 128*4 + Y*4 + Y*4*2*4 + expert_num*4 (+ libApiWorkspace, not included)
    return 128 * 4 + output_tokens * 4 + output_tokens * 4 * 2 * 4 + expert_num * 4


def ffn_output_bytes(output_tokens: int, hidden: int, expert_num: int, token_dtype: str) -> dict:
    # ffn_worker_batching_infershape.cpp: y (Y, H); group_list (expert_num, 2) int64; four (Y,) int32;
    # dynamic_scale (Y,) fp32 only for int8 tokens; actual_token_num one int64
    return {"y": output_tokens * hidden * FFN_TOKEN_BYTES[token_dtype],
            "group_list": expert_num * 2 * 8,
            "session_ids": output_tokens * 4, "micro_batch_ids": output_tokens * 4,
            "token_ids": output_tokens * 4, "expert_offsets": output_tokens * 4,
            "dynamic_scale": output_tokens * 4 if token_dtype == "int8" else 0,
            "actual_token_num": 8}


def packed_struct_layout(members) -> list:
    # #pragma pack(1) C struct: [(name, offset, size)] of (name, size) members laid out back to back
    out, offset = [], 0
    for name, size in members:
        out.append((name, offset, size))
        offset += size
    return out
