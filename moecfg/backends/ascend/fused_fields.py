"""Field tables of the fused MoE ops `mega_moe` and `dispatch_ffn_combine` (fields.py adds them to OP_FIELDS).

Names are the ops' Python-facing keyword arguments in snake_case; where the op reads a value from a tensor
shape the existing moecfg names are used: `bs` = x.size(0), `h` = x.size(1), `k` = topk_ids.size(1),
`ep_world_size` = the EP group's size, `intermediate_hidden` = l2_weights[i].size(0) (the per-expert FFN width
after TP sharding). See ops/mega_moe.py and ops/dispatch_ffn_combine.py for the field list with meanings.
"""
from __future__ import annotations

from moecfg.core.fields import FieldSpec as F

WEIGHT_DTYPES = ("bf16", "int8", "int4")  # l1/l2 weights: BF16 (A16W16), INT8 (A8W8), INT4 (A8W4, packed int32)
QUANT_OUT_DTYPES = ("int8", "float8_e5m2", "float8_e4m3fn", "float4_e2m1")
_WEIGHT_ALIASES = (("bfloat16", "bf16"), ("w8a8", "int8"), ("w4a8", "int4"), ("int32", "int4"))
_X_ALIASES = (("bfloat16", "bf16"), ("float16", "fp16"), ("half", "fp16"))
_QUANT_OUT_ALIASES = (("torch.int8", "int8"), ("fp8_e5m2", "float8_e5m2"), ("fp8_e4m3fn", "float8_e4m3fn"))


def _shape_fields(tokens_doc: str, inter: F | None = None) -> tuple:
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


# dispatch_ffn_combine reads N = 2 x intermediate_hidden but only the bf16 / w4a8 workspace uses it; the int8
# tiling stores k2 = N / 2 and never reads it (vllm-ascend@182b75e dispatch_ffn_combine_tiling.cpp L297-306)
_DFC_INTER = F("intermediate_hidden", "int", "per-expert FFN width: weight2 dim0 (N = 2 x this); needed for the bf16 "
               "/ w4a8 workspace only (the int8 tiling does not use it)", default=None, nullable=True)


def _weight_dtype(default, doc: str):
    return F("weight_dtype", "enum", "dtype of the expert weights: bf16, int8 (W8A8) or int4 (W4A8); " + doc,
             default=default, choices=WEIGHT_DTYPES, aliases=_WEIGHT_ALIASES, nullable=default is None)


def fused_op_fields(common: tuple, env_fields: tuple, hccl_buffer_fields: tuple) -> dict:
    """{op: field table} of the fused ops, built on fields.py's COMMON / env tables."""
    env = F("env", "mapping", "environment of the job", default={}, fields=env_fields, open=True)
    mega_moe = common + _shape_fields("tokens of this call on this rank: x.size(0)") + (
        _weight_dtype(None, "default: int8 when dispatch_quant_mode is 2, else bf16"),
        F("x_dtype", "enum", "dtype of x (the torch wrapper takes bf16 or fp16; the A2/A3 tiling only bf16)",
          default="bf16", choices=("bf16", "fp16"), aliases=_X_ALIASES),
        F("num_max_tokens_per_rank", "int", "get_symm_buffer_for_mega_moe: the most tokens any call sends from "
          "one rank (default: bs)", default=None),
        F("max_recv_token_num", "int", "tokens one rank can receive; 0 = auto bs * ep * min(k, experts/rank)",
          default=0),
        F("dispatch_quant_mode", "int", "0 none (bf16 weights), 2 int8 (int8/int4 weights), 4 MXFP (Ascend 950)",
          default=0),
        F("dispatch_quant_out_dtype", "enum", "dtype of the quantised dispatch (None, or int8 on A2/A3)",
          default=None, choices=QUANT_OUT_DTYPES, aliases=_QUANT_OUT_ALIASES, nullable=True),
        F("combine_quant_mode", "int", "combine communication quantisation (A2/A3: 0 only)", default=0),
        F("comm_alg", "str", "communication algorithm (A2/A3: \"\" only)", default="", nullable=True),
        F("activation", "str", "activation between the two GEMMs", default="swiglu"),
        F("activation_clamp", "float", "symmetric clamp of the activation input (None: no clamp)", default=None),
        env,
        F("hccl_buffer_size", "mapping", "per-communicator buffer option, MB (the EP group's window)", default=None,
          fields=hccl_buffer_fields),
    )
    dfc = common + _shape_fields("tokens of this call on this rank: x.size(0) (M)", _DFC_INTER) + (
        _weight_dtype("int8", "selects the variant: int8 dispatch_ffn_combine, int4 _w4_a8, bf16 _bf16"),
        F("max_output_size", "int", "tokens one rank can receive (vllm-ascend: additional_config mega_moe_max_tokens "
          "from v0.23.0, default 65536 there and 131072 v0.24.0rc1-main@182b75e; fixed before)", required=True),
        F("swiglu_limit", "float", "SwiGLU clamp (0: none)", default=0.0),
        env,
    )
    return {"mega_moe": mega_moe, "dispatch_ffn_combine": dfc}
