"""`kind: tutel`: Tutel has one op, its MoE layer; everything of it is in ops/moe_layer/."""
from moecfg.backends.tutel.ops.moe_layer.analysis import FIELDS, analyze  # noqa: F401  (the kind contract)
