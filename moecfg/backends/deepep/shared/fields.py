"""Fields every DeepEP API table shares: the `api` selector, the GPU model, the model preset."""
from __future__ import annotations

from moecfg.backends.deepep.ops import APIS as _REGISTRY
from moecfg.backends.device.devices import GPU_DEVICES
from moecfg.core.fields import FieldSpec as F

DEFAULT_OP = "v1"
APIS = tuple(_REGISTRY)
API_ALIASES = (("legacy", "v1"), ("buffer", "v1"), ("elastic", "v2"), ("elasticbuffer", "v2"), ("deepep_v2", "v2"),
               ("hybrid_ep", "hybridep"), ("hybrid-ep", "hybridep"))
DTYPE_ALIASES = (("bfloat16", "bf16"), ("float8", "fp8"), ("fp8_e4m3", "fp8"), ("float8_e4m3fn", "fp8"))

API = F("api", "enum", "DeepEP API: v1 (Buffer), v2 (ElasticBuffer) or hybridep (HybridEPBuffer)", default=DEFAULT_OP,
         choices=APIS, aliases=API_ALIASES)
DEVICE = (
    F("device", "enum", "GPU model: its memory bounds the buffers (MC901/MC902)", default=None, choices=GPU_DEVICES),
    F("device_memory_gb", "float", "device memory per GPU, GB (default: the `device`'s HBM)", default=None),
)
PRESET = (
    F("model", "str", "built-in model preset (fills hidden, num_experts, num_topk; explicit keys win)", default=None),
    F("redundant_experts", "int", "EPLB redundant experts, added to num_experts", default=0),
)
