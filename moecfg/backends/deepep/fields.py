"""Field tables of `kind: deepep` documents (contract §1.2), one per `api:`.

`api: v1` (default): the arguments a job passes to DeepEP's legacy `Buffer(...)`, its `Config(...)` objects
and the model shapes the kernels are called with. `api: v2`: DeepEP V2 `ElasticBuffer(...)`, fields named
as its keyword arguments. `api: hybridep`: NVIDIA Hybrid-EP `HybridEPBuffer(...)` (DeepEP branch hybrid-ep).
`OP_FIELDS[api]` is the table a document is validated against; `FIELDS` is the union (the `buffer` flags).
"""
from __future__ import annotations

from dataclasses import replace

from moecfg.backends.device.devices import GPU_DEVICES
from moecfg.core.fields import FieldSpec as F

OP_KEY = "api"  # the key that selects the table (models/export.py)
DEFAULT_OP = "v1"
APIS = ("v1", "v2", "hybridep")
API_ALIASES = (("legacy", "v1"), ("buffer", "v1"), ("elastic", "v2"), ("elasticbuffer", "v2"), ("deepep_v2", "v2"),
               ("hybrid_ep", "hybridep"), ("hybrid-ep", "hybridep"))
MODES = ("normal", "low_latency", "auto")
MODE_ALIASES = (("low-latency", "low_latency"), ("ll", "low_latency"), ("high_throughput", "normal"),
                ("high-throughput", "normal"), ("ht", "normal"))
DTYPE_ALIASES = (("bfloat16", "bf16"), ("float8", "fp8"), ("fp8_e4m3", "fp8"), ("float8_e4m3fn", "fp8"))
CONFIG_DOC = ("DeepEP Config: [nvl_send, nvl_recv, rdma_send, rdma_recv] (num_sms from `num_sms`), or DeepEP's own "
              "Config(num_sms=20, num_max_nvl_chunked_send_tokens=6, num_max_nvl_chunked_recv_tokens=256, "
              "num_max_rdma_chunked_send_tokens=6, num_max_rdma_chunked_recv_tokens=256) as 1, 2, 3 or 5 "
              "positional values or a mapping of those keywords")
ENV_FIELDS = (
    F("NVSHMEM_QP_DEPTH", "env_int", "NVSHMEM QP depth (DeepEP default 1024; overrides nvshmem_qp_depth)"),
)

_API = F("api", "enum", "DeepEP API: v1 (Buffer), v2 (ElasticBuffer) or hybridep (HybridEPBuffer)", default=DEFAULT_OP,
         choices=APIS, aliases=API_ALIASES)
_DEVICE = (
    F("device", "enum", "GPU model: its memory bounds the buffers (MC901/MC902)", default=None, choices=GPU_DEVICES),
    F("device_memory_gb", "float", "device memory per GPU, GB (default: the `device`'s HBM)", default=None),
)
_PRESET = (
    F("model", "str", "built-in model preset (fills hidden, num_experts, num_topk; explicit keys win)", default=None),
    F("redundant_experts", "int", "EPLB redundant experts, added to num_experts", default=0),
)

V1_FIELDS = (
    F("kind", "str", "backend", default="deepep"),
    _API,
    F("mode", "enum", "normal (high-throughput), low_latency, or auto (one Buffer for both, SGLang's default)",
      required=True, choices=MODES, aliases=MODE_ALIASES),
    F("num_ranks", "int", "EP ranks (GPUs)", required=True),
    F("hidden", "int", "hidden size", required=True),
    F("num_experts", "int", "routed experts, redundant (EPLB) ones included", required=True),
    F("num_topk", "int", "experts per token", required=True),
    F("dtype", "enum", "dispatch payload dtype (combine is always BF16)", default="bf16", choices=("bf16", "fp8"),
      aliases=DTYPE_ALIASES),
    F("num_sms", "int", "Buffer.num_sms: SMs of the normal-mode kernels (even)", default=20),
    F("num_max_dispatch_tokens_per_rank", "int", "low_latency / auto: most tokens one rank dispatches per call",
      default=None),
    F("dispatch_config", "int_list", CONFIG_DOC + " for dispatch; default: DeepEP's table for num_ranks",
      default=None, length=4),
    F("combine_config", "int_list", CONFIG_DOC + " for combine; default: DeepEP's table for num_ranks",
      default=None, length=4),
    F("num_nvl_bytes", "int", "NVLink buffer bytes passed to Buffer (checked if given)", default=None),
    F("num_rdma_bytes", "int", "RDMA buffer bytes passed to Buffer (checked if given)", default=None),
    F("num_qps_per_rank", "int", "Buffer num_qps_per_rank (RDMA QPs per peer)", default=None),
    F("nvshmem_qp_depth", "int", "env NVSHMEM_QP_DEPTH (also `env: {NVSHMEM_QP_DEPTH: ...}`)", default=1024),
    F("device_sms", "int", "SMs of the GPU (H100/H800: 132, H20: 78, B200: 148)", default=132),
    F("env", "mapping", "environment of the job (NVSHMEM_QP_DEPTH)", default={}, fields=ENV_FIELDS, open=True),
) + _PRESET + _DEVICE

V2_FIELDS = (
    F("kind", "str", "backend", default="deepep"),
    _API,
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
) + _PRESET + _DEVICE

HYBRIDEP_FIELDS = (
    F("kind", "str", "backend", default="deepep"),
    _API,
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
) + _DEVICE

OP_FIELDS = {"v1": V1_FIELDS, "v2": V2_FIELDS, "hybridep": HYBRIDEP_FIELDS}


def _union(tables) -> tuple:
    """The first table as is, then the other tables' fields it lacks, optional (the v1 planner reads FIELDS)."""
    seen, out = set(), []
    for i, table in enumerate(tables):
        for f in table:
            if f.name not in seen:
                seen.add(f.name)
                out.append(f if i == 0 else replace(f, required=False))
    return tuple(out)


FIELDS = _union(OP_FIELDS.values())
