"""Field tables of the sgl-kernel-npu DeepEP ops (`op: sgl_deepep_normal`, `op: sgl_deepep_low_latency`).

Names follow sgl-kernel-npu's `deep_ep.Buffer` (python/deep_ep/deep_ep/buffer.py @f425bdf): `num_experts`,
`num_max_dispatch_tokens_per_rank`, `use_fp8`, `quant_mode` as its strings; `bs`, `h`, `k`, `ep_world_size` are
what the op infers from x / topk_idx shapes and the group size. The environment the C++ Buffer and the tilings
read is under `env:`.
"""
from __future__ import annotations

from moecfg.backends.ascend.shared.products import PRODUCT_ALIASES
from moecfg.core.fields import FieldSpec as F

OPS = ("sgl_deepep_normal", "sgl_deepep_low_latency")
# buffer.py dispatch(quant_mode=...): ep_strategy.py VALID_QUANT_MODES L31-39
NORMAL_QUANT_MODES = ("bf16", "int8", "mx_fp8_e4m3", "mx_fp8_e5m2", "pertoken_fp8_e4m3", "mx_fp4_e2m1")
# low_latency_strategy.py L59-66 (None is written `none`, deep_ep.cpp L898-902)
LL_QUANT_MODES = ("none", "int8", "mx_fp8_e4m3", "mx_fp8_e5m2", "pertoken_fp8_e4m3", "mx_fp4_e2m1")
# build.sh: `-a deepep` builds csrc/deepep/ops (A3), `-a deepep2` builds ops2 (A2) (doc/A2_DEEPEP.md)
BUILDS = ("deepep", "deepep2")

ENV_FIELDS = (
    F("HCCL_BUFFSIZE", "env_int", "HCCL buffer per communicator, MB (HCCL default 200); the tilings read it when "
      "DEEPEP_HCCL_BUFFSIZE is unset"),
    F("DEEPEP_HCCL_BUFFSIZE", "env_int", "sgl-kernel-npu: the buffer size the tilings check against, MB (wins over "
      "HCCL_BUFFSIZE)"),
    F("DEEPEP_NORMAL_LONG_SEQ_ROUND", "env_int", "normal mode: rounds per dispatch, [1, 256] (default 1)"),
    F("DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS", "env_int", "normal mode: tokens per round, [32, 8192] (default 8192)"),
    F("DEEPEP_NORMAL_COMBINE_ENABLE_LONG_SEQ", "env_int", "normal mode: combine also runs in rounds (1)"),
    F("DEEP_NORMAL_MODE_USE_INT8_QUANT", "env_int", "normal mode: 1 dispatches int8 when quant_mode is not given"),
    F("HCCL_OP_EXPANSION_MODE", "str", "HCCL op expansion (AIV); must be unset for DeepEP on A2"),
    F("HCCL_INTRA_PCIE_ENABLE", "env_int", "A2: 1 with HCCL_INTRA_ROCE_ENABLE=0 selects the layered algorithm"),
    F("HCCL_INTRA_ROCE_ENABLE", "env_int", "A2: see HCCL_INTRA_PCIE_ENABLE"),
    F("MOE_SHARED_EXPERT_RANK_NUM", "env_int", "ranks holding shared experts (default 0)"),
    F("MOE_ENABLE_CCU", "env_int", "A3 low latency: 1 passes comm_alg ccu"),
    F("MOE_EXPERT_TOKEN_NUMS_TYPE", "env_int", "0 prefix sums, 1 counts (default 1)"),
)

_COMMON = (
    F("kind", "str", "backend", default="ascend"),
    F("product", "enum", "Atlas A2 (910B) or A3 (910_93)", required=True, choices=("A2", "A3"),
      aliases=PRODUCT_ALIASES),
    F("op", "enum", "the op", required=True, choices=OPS),
    F("h", "int", "hidden size (x.size(1))", required=True),
    F("k", "int", "top-k experts per token (topk_idx.size(1))", required=True),
    F("ep_world_size", "int", "EP group size (group.size())", required=True),
    F("num_experts", "int", "routed experts over all ranks (incl. redundant)", required=True),
    F("kernel_build", "enum", "sgl-kernel-npu build installed: deepep (A3 ops) or deepep2 (A2 ops2); default: "
      "the product's", default=None, choices=BUILDS),
    F("hccl_buffer_size", "int", "MB of the EP group's HCCL window when the group is created with the torch_npu "
      "hccl_buffer_size option (SGLang does for groups named moe); default: env HCCL_BUFFSIZE", default=None),
    F("env", "mapping", "environment of the job", default={}, fields=ENV_FIELDS, open=True),
)

NORMAL_FIELDS = _COMMON + (
    F("bs", "int", "tokens this rank dispatches (x.size(0)); the largest over ranks sizes the buffer",
      required=True),
    F("num_worst_tokens", "int", "Buffer.dispatch num_worst_tokens (raises real_max_bs)", default=0),
    F("quant_mode", "enum", "Buffer.dispatch quant_mode (default: int8 if DEEP_NORMAL_MODE_USE_INT8_QUANT=1, "
      "else bf16)", default=None, choices=NORMAL_QUANT_MODES, nullable=True),
)

LOW_LATENCY_FIELDS = _COMMON + (
    F("num_max_dispatch_tokens_per_rank", "int", "Buffer.low_latency_dispatch cap T; global_bs = T * ep",
      required=True),
    F("bs", "int", "tokens this rank dispatches (x.size(0)); default T", default=None),
    F("use_fp8", "bool", "Buffer.low_latency_dispatch use_fp8 (default True: int8 when quant_mode is not given)",
      default=True),
    F("quant_mode", "enum", "Buffer.low_latency_dispatch quant_mode (default: int8 if use_fp8 else none)",
      default=None, choices=LL_QUANT_MODES, nullable=True),
    F("comm_alg", "str", "commAlg deep_ep.cpp passes (default: fullmesh on A2; fullmesh_v1, or ccu with "
      "MOE_ENABLE_CCU=1, on A3)", default=None, nullable=True),
)

OP_FIELDS = {"sgl_deepep_normal": NORMAL_FIELDS, "sgl_deepep_low_latency": LOW_LATENCY_FIELDS}
