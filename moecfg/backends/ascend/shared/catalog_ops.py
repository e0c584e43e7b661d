"""Catalogs of the ops beyond dispatch/combine v2 (ascend-mc2-rules.md §4-§6): combine_add_rms_norm, dispatch/
combine v1 and ffn_worker_batching; their classes and their limits per rule set (the names of
rulesets.RULESETS). Split from catalog.py / rulesets.py so that checking a v2 document does not build them;
both modules still export these names (loaded on first access).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

@dataclass(frozen=True, slots=True)
class AddRmsNormRules:
    """combine_add_rms_norm on top of the dispatch/combine v2 limits (§4: CV2T[M] L363-428, L634-671, L981-1054)."""

    products: tuple = ("A3",)  # op config has ascend910_93 only: no A2 binary
    expand_x_dtypes: tuple = ("bf16", "fp16")  # R85 own tiling L502-504: bf16 only
    residual_dtypes: tuple = ("bf16",)
    gamma_dtypes: tuple = ("bf16",)
    local_x_ep_max: int | None = 2048  # R85 L1049-1050: the combine side only needs local_moe > 0 (None)
    source: str = ""


@dataclass(frozen=True, slots=True)
class V1A3Rules:
    """npu_moe_distribute_dispatch / combine (v1) on A3 (§5: R85 dispatch tiling L168-512, combine L86-97, L440-717)."""

    ep_values: tuple = (8, 16, 32, 64, 128, 144, 256, 288)  # ep <= 288, %8, and (256 % ep == 0 or ep % 144 == 0)
    h_value: int = 7168
    k_max: int = 8
    bs_max: int = 512
    moe_max: int = 512
    shared_expert_num: int = 1
    tp_max: int = 2
    comm_quant_modes: tuple = (0, 2)


@dataclass(frozen=True, slots=True)
class V1A2Rules:
    """v1 on A2 (§5): layered only through HCCL_INTRA_PCIE_ENABLE=1 / HCCL_INTRA_ROCE_ENABLE=0."""

    ep_max: int = 256
    ep_multiple: int = 8
    moe_max: int = 512
    moe_per_rank_max_flat: int | None = 24
    h_max: int = 7168
    h_multiple: int = 32
    bs_max: int = 256
    k_max: int = 16
    layered_window_warning: bool = False  # [M] arch22 a2a3 L284-297: warning-only window check


@dataclass(frozen=True, slots=True)
class V1Rules:
    """Dispatch/combine v1 limits of one rule set, per product."""

    name: str
    source: str
    a2: V1A2Rules
    a3: V1A3Rules

    def product(self, product: str):
        return self.a2 if product == "A2" else self.a3


@dataclass(frozen=True, slots=True)
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


# ---- the limits by rule-set name (the names of rulesets.RULESETS) ----------------------------------------
ADD_RMS_NORM_RULES = {
    "8.5": AddRmsNormRules(expand_x_dtypes=("bf16",), local_x_ep_max=None,
                           source="R85 moe_distribute_combine_add_rms_norm_tiling.cpp (own copy)"),
    "9.0": AddRmsNormRules(source="R90 CombineV2 tiling with hasAddRmsNorm"),
    "9.1": AddRmsNormRules(source="R91 CombineV2 tiling with hasAddRmsNorm"),
    "latest": AddRmsNormRules(source="[M] CV2T L363-428, L634-671, L981-1054"),
}
V1_RULES = {
    name: V1Rules(name=name, source=src, a2=V1A2Rules(layered_window_warning=(name == "latest")), a3=V1A3Rules())
    for name, src in (("8.5", "R85 moe_distribute_dispatch/combine tiling"), ("9.0", "R90 (constants as R85)"),
                      ("9.1", "R91 (constants as R85)"), ("latest", "[M] (constants as R85; A2 window warning)"))
}
FFN_RULES = {
    "8.5": FfnRules(available=False, source="not in ops-transformer v8.5.0"),
    "9.0": FfnRules(source="ffn_worker_batching_tiling.cpp"),
    "9.1": FfnRules(source="ffn_worker_batching_tiling.cpp"),
    "latest": FfnRules(source="[M] ffn_worker_batching_tiling.cpp L85-168"),
}
# the later code points share their neighbours' tables (verified like rulesets.RULESETS): 9.1.0 and 9.1.0-beta.1
# change no v1 / add_rms_norm / ffn host code against 9.1 and 9.0; master-2026-07-24 already has the A2 v1
# window warning (cannmirror 25fb6b9 moe_distribute_dispatch_tiling_a2a3.cpp L266-270)
for _name, _like in (("9.1.0", "9.1"), ("9.1.0-beta.1", "9.0"), ("9.1.0-beta.3", "9.1"), ("9.1.0-beta.2", "9.1"),
                     ("master-2026-07-24", "latest")):
    ADD_RMS_NORM_RULES[_name] = ADD_RMS_NORM_RULES[_like]
    V1_RULES[_name] = replace(V1_RULES[_like], name=_name)
    FFN_RULES[_name] = FFN_RULES[_like]
