"""Field table of `kind: deepep` documents (contract §1.2): the arguments a job passes to DeepEP's
`Buffer(...)`, its `Config(...)` objects and the model shapes the kernels are called with."""
from __future__ import annotations

from moecfg.backends.device.devices import GPU_DEVICES
from moecfg.core.fields import FieldSpec as F

MODES = ("normal", "low_latency")
MODE_ALIASES = (("low-latency", "low_latency"), ("ll", "low_latency"), ("high_throughput", "normal"),
                ("high-throughput", "normal"), ("ht", "normal"))
DTYPE_ALIASES = (("bfloat16", "bf16"), ("float8", "fp8"), ("fp8_e4m3", "fp8"), ("float8_e4m3fn", "fp8"))
CONFIG_DOC = "[nvl_send, nvl_recv, rdma_send, rdma_recv] chunk sizes of DeepEP Config (num_sms from `num_sms`)"

FIELDS = (
    F("kind", "str", "backend", default="deepep"),
    F("mode", "enum", "normal (high-throughput) or low_latency kernels", required=True, choices=MODES,
      aliases=MODE_ALIASES),
    F("num_ranks", "int", "EP ranks (GPUs)", required=True),
    F("hidden", "int", "hidden size", required=True),
    F("num_experts", "int", "routed experts, redundant (EPLB) ones included", required=True),
    F("num_topk", "int", "experts per token", required=True),
    F("dtype", "enum", "dispatch payload dtype (combine is always BF16)", default="bf16", choices=("bf16", "fp8"),
      aliases=DTYPE_ALIASES),
    F("num_sms", "int", "Buffer.num_sms: SMs of the normal-mode kernels (even)", default=20),
    F("num_max_dispatch_tokens_per_rank", "int", "low_latency: most tokens one rank dispatches per call", default=None),
    F("dispatch_config", "int_list", CONFIG_DOC + " for dispatch; default: DeepEP's table for num_ranks",
      default=None, length=4),
    F("combine_config", "int_list", CONFIG_DOC + " for combine; default: DeepEP's table for num_ranks",
      default=None, length=4),
    F("num_nvl_bytes", "int", "NVLink buffer bytes passed to Buffer (checked if given)", default=None),
    F("num_rdma_bytes", "int", "RDMA buffer bytes passed to Buffer (checked if given)", default=None),
    F("num_qps_per_rank", "int", "Buffer num_qps_per_rank (RDMA QPs per peer)", default=None),
    F("nvshmem_qp_depth", "int", "env NVSHMEM_QP_DEPTH", default=1024),
    F("device_sms", "int", "SMs of the GPU (H100/H800: 132, H20: 78, B200: 148)", default=132),
    F("model", "str", "built-in model preset (fills hidden, num_experts, num_topk; explicit keys win)", default=None),
    F("redundant_experts", "int", "EPLB redundant experts, added to num_experts", default=0),
    F("device", "enum", "GPU model: its memory bounds num_nvl_bytes + num_rdma_bytes (MC901/MC902)", default=None,
      choices=GPU_DEVICES),
    F("device_memory_gb", "float", "device memory per GPU, GB (default: the `device`'s HBM)", default=None),
)
