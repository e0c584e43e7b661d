"""Fields of `op: dispatch_combine_v2` (npu_moe_distribute_dispatch_v2 / combine_v2): the shared v2 attributes
(shared/fields.py) and the entry point (`api`, aclnn V2..V5)."""
from __future__ import annotations

from moecfg.backends.ascend.shared.fields import V2_FIELDS
from moecfg.core.fields import FieldSpec as F

APIS = ("torch_npu", "aclnn_v2", "aclnn_v3", "aclnn_v4", "aclnn_v5")
V2_API_FIELDS = (
    F("api", "enum", "entry point: torch_npu, or aclnnMoeDistributeDispatch/CombineV2..V5 (V5: context mode, "
      "ccl_buffer_size)", default="torch_npu", choices=APIS),
    F("ccl_buffer_size", "int", "aclnn_v5 (context mode): CCL buffer of the mc2 context, bytes; window = "
      "ccl_buffer_size - 1 MB", default=None),
)

FIELDS = V2_FIELDS + V2_API_FIELDS
