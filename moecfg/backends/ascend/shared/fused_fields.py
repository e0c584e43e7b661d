"""Field pieces the fused MoE ops `mega_moe` and `dispatch_ffn_combine` share (each op's table is in its folder).

Names are the ops' Python-facing keyword arguments in snake_case; where the op reads a value from a tensor
shape the existing moecfg names are used: `bs` = x.size(0), `h` = x.size(1), `k` = topk_ids.size(1),
`ep_world_size` = the EP group's size, `intermediate_hidden` = l2_weights[i].size(0) (the per-expert FFN width
after TP sharding). See ops/mega_moe/ and ops/dispatch_ffn_combine/ for the field lists with meanings.
"""
from __future__ import annotations

from moecfg.core.fields import FieldSpec as F

WEIGHT_DTYPES = ("bf16", "int8", "int4")  # l1/l2 weights: BF16 (A16W16), INT8 (A8W8), INT4 (A8W4, packed int32)
QUANT_OUT_DTYPES = ("int8", "float8_e5m2", "float8_e4m3fn", "float4_e2m1")
_WEIGHT_ALIASES = (("bfloat16", "bf16"), ("w8a8", "int8"), ("w4a8", "int4"), ("int32", "int4"))
X_ALIASES = (("bfloat16", "bf16"), ("float16", "fp16"), ("half", "fp16"))
QUANT_OUT_ALIASES = (("torch.int8", "int8"), ("fp8_e5m2", "float8_e5m2"), ("fp8_e4m3fn", "float8_e4m3fn"))


def shape_fields(tokens_doc: str, inter: F | None = None) -> tuple:
    return (
        F("bs", "int", tokens_doc, required=True),
        F("h", "int", "hidden size: x.size(1)", required=True),
        F("k", "int", "top-k experts per token: topk_ids.size(1)", required=True),
        F("ep_world_size", "int", "EP group size (the group's world size)", required=True),
        F("moe_expert_num", "int", "routed experts over the EP group (incl. EPLB redundant); "
          "experts per rank = moe_expert_num / ep_world_size", required=True),
        inter or F("intermediate_hidden", "int", "per-expert FFN width: l2_weights[i].size(0) (moe_intermediate_size "
                   "/ TP)", required=True),
    )


def weight_dtype(default, doc: str):
    return F("weight_dtype", "enum", "dtype of the expert weights: bf16, int8 (W8A8) or int4 (W4A8); " + doc,
             default=default, choices=WEIGHT_DTYPES, aliases=_WEIGHT_ALIASES, nullable=default is None)
