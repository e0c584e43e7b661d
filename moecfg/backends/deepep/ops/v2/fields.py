"""Fields of `api: v2`: DeepEP V2 `ElasticBuffer(...)`, named as its keyword arguments."""
from __future__ import annotations

from moecfg.backends.deepep.shared.fields import API, DEVICE, PRESET
from moecfg.core.fields import FieldSpec as F

V2_FIELDS = (
    F("kind", "str", "backend", default="deepep"),
    API,
    F("num_ranks", "int", "EP ranks (the group size)", required=True),
    F("num_experts", "int", "experts passed to dispatch, redundant (EPLB) ones included", required=True),
    F("num_max_tokens_per_rank", "int", "ElasticBuffer num_max_tokens_per_rank: most tokens a rank sends per call",
      required=True),
    F("hidden", "int", "ElasticBuffer hidden", required=True),
    F("num_topk", "int", "ElasticBuffer num_topk (0: sized as top-32, as DeepEP does)", default=0),
    F("use_fp8_dispatch", "bool", "ElasticBuffer use_fp8_dispatch", default=False),
    F("num_bytes", "int", "ElasticBuffer num_bytes (GPU + CPU, 2 MiB multiple; default: the size hint)", default=None),
    F("num_cpu_bytes", "int", "ElasticBuffer num_cpu_bytes (Engram storage, 2 MiB multiple)", default=0),
    F("allow_hybrid_mode", "bool", "ElasticBuffer allow_hybrid_mode (RDMA + NVLink hierarchy)", default=True),
    F("allow_multiple_reduction", "bool", "ElasticBuffer allow_multiple_reduction", default=True),
    F("num_allocated_qps", "int", "ElasticBuffer num_allocated_qps (0: automatic)", default=0),
    F("num_nvl_ranks", "int", "ranks per NVLink domain (NCCL LSA team: 8 on HGX, up to 72 on GB200 NVL72)", default=8),
) + PRESET + DEVICE
FIELDS = V2_FIELDS
