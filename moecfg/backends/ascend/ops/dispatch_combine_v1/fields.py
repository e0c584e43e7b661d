"""Fields of `op: dispatch_combine_v1` (npu_moe_distribute_dispatch / combine): the v1 keyword arguments, a
subset of v2's."""
from __future__ import annotations

from moecfg.backends.ascend.shared.fields import DTYPE_ALIASES, COMMON, V2_FIELDS
from moecfg.core.fields import FieldSpec as F

_V1_NAMES = ("bs", "h", "k", "ep_world_size", "moe_expert_num", "ep_rank_id", "tp_world_size", "tp_rank_id",
             "expert_shard_type", "shared_expert_num", "shared_expert_rank_num", "quant_mode", "global_bs",
             "expert_token_nums_type", "comm_quant_mode", "group_ep", "group_tp", "scales", "x_active_mask",
             "expert_scales", "env", "hccl_buffer_size")
V1_FIELDS = COMMON + tuple(f for f in V2_FIELDS if f.name in _V1_NAMES) + (
    F("x_dtype", "enum", "dtype of x", default="bf16", choices=("bf16", "fp16"), aliases=DTYPE_ALIASES),
)
FIELDS = V1_FIELDS
