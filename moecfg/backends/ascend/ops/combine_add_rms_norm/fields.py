"""Fields of `op: combine_add_rms_norm`: dispatch v2 (aclnn DispatchV3) + npu_moe_distribute_combine_add_rms_norm,
the v2 attributes plus the norm's inputs."""
from __future__ import annotations

from moecfg.backends.ascend.shared.fields import DTYPE_ALIASES, V2_FIELDS
from moecfg.core.fields import FieldSpec as F

ELASTIC_SCALE_DOWN_FIELDS = (
    F("ep_world_size", "int", "EP ranks left after the scale-down", required=True),
    F("shared_expert_rank_num", "int", "shared-expert ranks left (default: as before)", default=None),
    F("moe_expert_num", "int", "MoE experts still deployed (default: local_expert_num * MoE ranks left)", default=None),
)
ADD_RMS_NORM_FIELDS = V2_FIELDS + (
    F("norm_eps", "float", "combine_add_rms_norm: RmsNorm epsilon (attr normEps)", default=None),
    F("residual_x_dtype", "enum", "combine_add_rms_norm: residual_x dtype", default="bf16", choices=("bf16", "fp16"),
      aliases=DTYPE_ALIASES),
    F("residual_x_shape", "int_list", "combine_add_rms_norm: residual_x shape (default (bs, 1, h))", default=None, length=3),
    F("gamma_dtype", "enum", "combine_add_rms_norm: gamma dtype", default="bf16", choices=("bf16", "fp16"),
      aliases=DTYPE_ALIASES),
    F("gamma_shape", "int_list", "combine_add_rms_norm: gamma shape (default (h,))", default=None, length=1),
    F("elastic_scale_down", "mapping", "combine_add_rms_norm: the deployment after losing ranks (elastic_info)",
      default=None, fields=ELASTIC_SCALE_DOWN_FIELDS),
)
FIELDS = ADD_RMS_NORM_FIELDS
