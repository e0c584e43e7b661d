"""Fields of `op: dispatch_ffn_combine` (vllm-ascend's fused op): its Python-facing keyword arguments; shape values
under the moecfg names (see shared/fused_fields.py)."""
from __future__ import annotations

from moecfg.backends.ascend.shared.fields import COMMON, ENV_FIELDS
from moecfg.backends.ascend.shared.fused_fields import shape_fields, weight_dtype
from moecfg.core.fields import FieldSpec as F

ENV = F("env", "mapping", "environment of the job", default={}, fields=ENV_FIELDS, open=True)
FIELDS = COMMON + shape_fields("tokens of this call on this rank: x.size(0) (M)") + (
    weight_dtype("int8", "selects the variant: int8 dispatch_ffn_combine, int4 _w4_a8, bf16 _bf16"),
    F("max_output_size", "int", "tokens one rank can receive (vllm-ascend: additional_config mega_moe_max_tokens, "
      "default 131072)", required=True),
    F("swiglu_limit", "float", "SwiGLU clamp (0: none)", default=0.0),
    ENV,
)
