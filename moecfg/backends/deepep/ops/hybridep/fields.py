"""Fields of `api: hybridep`: NVIDIA Hybrid-EP `HybridEPBuffer(...)` (DeepEP branch hybrid-ep)."""
from __future__ import annotations

from moecfg.backends.deepep.shared.fields import API, DEVICE
from moecfg.core.fields import FieldSpec as F

HYBRIDEP_FIELDS = (
    F("kind", "str", "backend", default="deepep"),
    API,
    F("num_ranks", "int", "EP ranks (the group size)", required=True),
    F("hidden_dim", "int", "HybridEPBuffer hidden_dim", required=True),
    F("max_num_of_tokens_per_rank", "int", "HybridEPBuffer max_num_of_tokens_per_rank", required=True),
    F("num_local_experts", "int", "HybridEPBuffer num_local_experts (experts per rank)", required=True),
    F("use_fp8", "bool", "HybridEPBuffer use_fp8 (UINT8 tokens with scales)", default=False),
    F("num_of_hybrid_ep_ranks_per_nvlink_domain", "int", "ranks per NVLink domain (env "
      "NUM_OF_HYBRID_EP_RANKS_PER_NVLINK_DOMAIN, else detected: 8 on HGX, up to 72 on GB200)", default=8),
    F("num_of_tokens_per_chunk_dispatch_api", "int", "env NUM_OF_TOKENS_PER_CHUNK_DISPATCH_API", default=64),
    F("num_of_tokens_per_chunk_combine_api", "int", "env NUM_OF_TOKENS_PER_CHUNK_COMBINE_API", default=64),
    F("num_sms_dispatch_api", "int", "SMs of the dispatch kernel (default 24 on one node, 8 across nodes)",
      default=None),
    F("num_sms_combine_api", "int", "SMs of the combine kernel (default 24 on one node, 8 across nodes)", default=None),
    F("device_sms", "int", "SMs of the GPU (H100: 132, B200/GB200: 148)", default=132),
) + DEVICE
FIELDS = HYBRIDEP_FIELDS
