"""Fields of `op: mega_moe` (CANN MegaMoE): the op's Python-facing keyword arguments in snake_case; where the
op reads a value from a tensor shape the moecfg names are used (see shared/fused_fields.py)."""
from __future__ import annotations

from moecfg.backends.ascend.shared.fields import COMMON, ENV_FIELDS, HCCL_BUFFER_FIELDS
from moecfg.backends.ascend.shared.fused_fields import (QUANT_OUT_ALIASES, QUANT_OUT_DTYPES, X_ALIASES, shape_fields,
                                                        weight_dtype)
from moecfg.core.fields import FieldSpec as F

ENV = F("env", "mapping", "environment of the job", default={}, fields=ENV_FIELDS, open=True)
FIELDS = COMMON + shape_fields("tokens of this call on this rank: x.size(0)") + (
    weight_dtype(None, "default: int8 when dispatch_quant_mode is 2, else bf16"),
    F("x_dtype", "enum", "dtype of x (the torch wrapper takes bf16 or fp16; the A2/A3 tiling only bf16)",
      default="bf16", choices=("bf16", "fp16"), aliases=X_ALIASES),
    F("num_max_tokens_per_rank", "int", "get_symm_buffer_for_mega_moe: the most tokens any call sends from "
      "one rank (default: bs)", default=None),
    F("max_recv_token_num", "int", "tokens one rank can receive; 0 = auto bs * ep * min(k, experts/rank)",
      default=0),
    F("dispatch_quant_mode", "int", "0 none (bf16 weights), 2 int8 (int8/int4 weights), 4 MXFP (Ascend 950)",
      default=0),
    F("dispatch_quant_out_dtype", "enum", "dtype of the quantised dispatch (None, or int8 on A2/A3)",
      default=None, choices=QUANT_OUT_DTYPES, aliases=QUANT_OUT_ALIASES, nullable=True),
    F("combine_quant_mode", "int", "combine communication quantisation (A2/A3: 0 only)", default=0),
    F("comm_alg", "str", "communication algorithm (A2/A3: \"\" only)", default="", nullable=True),
    F("activation", "str", "activation between the two GEMMs", default="swiglu"),
    F("activation_clamp", "float", "symmetric clamp of the activation input (None: no clamp)", default=None),
    ENV,
    F("hccl_buffer_size", "mapping", "per-communicator buffer option, MB (the EP group's window)", default=None,
      fields=HCCL_BUFFER_FIELDS),
)
