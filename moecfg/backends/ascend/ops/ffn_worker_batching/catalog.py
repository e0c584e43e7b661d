"""Limits of `op: ffn_worker_batching` per rule set (ascend-mc2-rules.md §6), and torch_npu's ScheduleContext
layout; keyed by the names of shared/rulesets.RULESETS."""
from __future__ import annotations

from moecfg.core.record import record
from moecfg.backends.ascend.shared.catalog import LATER_CODE_POINTS


@record(frozen=True, slots=True)
class FfnRules:
    """FfnWorkerBatching (§6: ffn_worker_batching_tiling.cpp [M] L85-168; seed 004 constraints)."""

    available: bool = True  # new in 2026-02: not in CANN 8.5
    expert_num_max: int = 8192
    attention_workers_max: int = 1024  # max_out_shape[0] (the doc says the same)
    selected_experts_max: int = 64  # max_out_shape[2] = K + 1 (the doc says K <= 64)
    doc_top_k_max: int = 64
    doc_micro_batch_num_max: int = 64  # doc only: the tiling has no M
    need_schedule_values: tuple = (0, 1)
    schedule_block_dim_y_max: int = 200000  # need_schedule 1 and Y <= this: blockDim = min(aiv, 32)
    schedule_block_dim_max: int = 32
    source: str = ""


# ScheduleContext (seed 004; torch_npu afd/ScheduleContext.h, #pragma pack(1)): (area, ((member, bytes), ...)).
# CommonArea, ControlArea and AttentionArea are 128 bytes each; FfnArea is two 128-byte halves (input, output).
SCHEDULE_CONTEXT_BYTES = 1024
SCHEDULE_CONTEXT = (
    ("common", (("session_num", 4), ("micro_batch_num", 4), ("micro_batch_size", 4), ("selected_expert_num", 4),
                ("expert_num", 4), ("attn_to_ffn_token_size", 4), ("ffn_to_attn_token_size", 4),
                ("schedule_mode", 4), ("reserve0", 96))),
    ("control", (("run_flag", 4), ("reserve1", 124))),
    ("attention", (("token_info_buf", 8), ("token_info_buf_size", 8), ("token_data_buf", 8),
                   ("token_data_buf_size", 8), ("micro_batch_id", 4), ("reserve5", 92))),
    ("ffn", (("token_info_buf", 8), ("token_info_buf_size", 8), ("token_data_buf", 8), ("token_data_buf_size", 8),
             ("polling_index", 8), ("reserve3", 88),
             ("layer_ids_buf", 8), ("layer_ids_buf_size", 8), ("session_ids_buf", 8), ("session_ids_buf_size", 8),
             ("micro_batch_ids_buf", 8), ("micro_batch_ids_buf_size", 8), ("expert_ids_buf", 8),
             ("expert_ids_buf_size", 8), ("out_num", 4), ("reserve4", 60))),
    ("reserve6", (("reserve6", 384),)),
)


FFN_RULES = {
    "8.5": FfnRules(available=False, source="not in ops-transformer v8.5.0"),
    "9.0": FfnRules(source="ffn_worker_batching_tiling.cpp"),
    "9.1": FfnRules(source="ffn_worker_batching_tiling.cpp"),
    "latest": FfnRules(source="[M] ffn_worker_batching_tiling.cpp L85-168"),
}
# the later code points share their neighbours' tables (see LATER_CODE_POINTS)
for _name, _like in LATER_CODE_POINTS:
    FFN_RULES[_name] = FFN_RULES[_like]
