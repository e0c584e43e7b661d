"""Fields of `api: v1` (default): the arguments a job passes to DeepEP's legacy `Buffer(...)`, its `Config(...)`
objects and the model shapes the kernels are called with."""
from __future__ import annotations

from moecfg.backends.deepep.shared.fields import API, DEVICE, DTYPE_ALIASES, PRESET
from moecfg.core.fields import FieldSpec as F

MODES = ("normal", "low_latency", "auto")
MODE_ALIASES = (("low-latency", "low_latency"), ("ll", "low_latency"), ("high_throughput", "normal"),
                ("high-throughput", "normal"), ("ht", "normal"))
CONFIG_DOC = ("DeepEP Config: [nvl_send, nvl_recv, rdma_send, rdma_recv] (num_sms from `num_sms`), or DeepEP's own "
              "Config(num_sms=20, num_max_nvl_chunked_send_tokens=6, num_max_nvl_chunked_recv_tokens=256, "
              "num_max_rdma_chunked_send_tokens=6, num_max_rdma_chunked_recv_tokens=256) as 1, 2, 3 or 5 "
              "positional values or a mapping of those keywords")
ENV_FIELDS = (
    F("NVSHMEM_QP_DEPTH", "env_int", "NVSHMEM QP depth (DeepEP default 1024; overrides nvshmem_qp_depth)"),
)


V1_FIELDS = (
    F("kind", "str", "backend", default="deepep"),
    API,
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
) + PRESET + DEVICE
FIELDS = V1_FIELDS
