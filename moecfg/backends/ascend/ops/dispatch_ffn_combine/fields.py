"""Fields of `op: dispatch_ffn_combine` (vllm-ascend's fused op): its Python-facing keyword arguments; shape values
under the moecfg names (see shared/fused_fields.py)."""
from __future__ import annotations

from moecfg.backends.ascend.shared.fields import COMMON, ENV_FIELDS
from moecfg.backends.ascend.shared.fused_fields import shape_fields, weight_dtype
from moecfg.core.fields import FieldSpec as F

ENV = F("env", "mapping", "environment of the job", default={}, fields=ENV_FIELDS, open=True)
# dispatch_ffn_combine reads N = 2 x intermediate_hidden but only the bf16 / w4a8 workspace uses it; the int8
# tiling stores k2 = N / 2 and never reads it (vllm-ascend@182b75e dispatch_ffn_combine_tiling.cpp L297-306)
INTER = F("intermediate_hidden", "int", "per-expert FFN width: weight2 dim0 (N = 2 x this); needed for the bf16 "
          "/ w4a8 workspace only (the int8 tiling does not use it)", default=None, nullable=True)
FIELDS = COMMON + shape_fields("tokens of this call on this rank: x.size(0) (M)", INTER) + (
    weight_dtype("int8", "selects the variant: int8 dispatch_ffn_combine, int4 _w4_a8, bf16 _bf16"),
    F("max_output_size", "int", "tokens one rank can receive (vllm-ascend: additional_config mega_moe_max_tokens "
      "from v0.23.0, default 65536 there and 131072 v0.24.0rc1-main@182b75e; fixed before)", required=True),
    F("swiglu_limit", "float", "SwiGLU clamp (0: none)", default=0.0),
    # the op's `group` attribute, as group_ep is dispatch_v2's: the EP communicator's HCCL name (vllm-ascend passes
    # the MC2 group's); the tiling refuses an empty one (dispatch_ffn_combine_tiling.cpp:98-99 @182b75e)
    F("group", "str", "EP communicator name (the op's `group` attribute; vllm-ascend: the MC2 group)", default=None),
    ENV,
)
