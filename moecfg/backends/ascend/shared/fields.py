"""Fields several Ascend op tables share: the keys every `kind: ascend` document has (COMMON), the environment
and per-communicator buffer tables, and the dispatch/combine v2 attributes that combine_add_rms_norm extends and
dispatch_combine_v1 takes a subset of. Names and defaults are torch_npu's (contract §1.1).
"""
from __future__ import annotations

from moecfg.backends.ascend.ops import OPS as _REGISTRY
from moecfg.backends.ascend.shared.products import PRODUCT_ALIASES
from moecfg.core.fields import FieldSpec as F

ENV_FIELDS = (
    F("HCCL_BUFFSIZE", "env_int", "HCCL communication buffer per communicator, MB (HCCL default 200)"),
    F("HCCL_INTRA_PCIE_ENABLE", "env_int", "A2: 1 with HCCL_INTRA_ROCE_ENABLE=0 selects the hierarchy algorithm"),
    F("HCCL_INTRA_ROCE_ENABLE", "env_int", "A2: see HCCL_INTRA_PCIE_ENABLE"),
)
HCCL_BUFFER_FIELDS = (
    F("ep", "int", "EP communicator buffer, MB (torch_npu hccl_buffer_size option)"),
    F("tp", "int", "TP communicator buffer, MB"),
)

DEFAULT_OP = "dispatch_combine_v2"
OPS = tuple(_REGISTRY)

DTYPE_ALIASES = (("bfloat16", "bf16"), ("float16", "fp16"), ("half", "fp16"))

COMMON = (
    F("kind", "str", "backend", default="ascend"),
    F("product", "enum", "Atlas A2 (910B) or A3 (910_93; one rank is one die)", required=True,
      choices=("A2", "A3"), aliases=PRODUCT_ALIASES),
    F("cann_version", "version", "CANN release whose rules apply, e.g. 9.0.1 or latest", default=None),
    F("op", "enum", "the op pair", default=DEFAULT_OP, choices=OPS),
)

# ---- dispatch_combine_v2: npu_moe_distribute_dispatch_v2 / combine_v2 ----------------------------
V2_FIELDS = COMMON + (
    F("bs", "int", "tokens per rank (x.dim0)", required=True),
    F("h", "int", "hidden size", required=True),
    F("k", "int", "top-k experts per token", required=True),
    F("ep_world_size", "int", "EP group size", required=True),
    F("moe_expert_num", "int", "routed MoE experts", required=True),
    F("model", "str", "built-in model preset (fills h, k, moe_expert_num, special experts; explicit keys win)", default=None),
    F("redundant_experts", "int", "EPLB redundant experts, added to moe_expert_num", default=0),
    F("device_memory_gb", "float", "device memory per rank, GB (default: the product's HBM per NPU/die)", default=None),
    F("ep_rank_id", "int", "this rank's id in the EP group (absent: every role is considered)", default=None),
    F("tp_world_size", "int", "TP group size", default=0),
    F("tp_rank_id", "int", "this rank's id in the TP group", default=0),
    F("expert_shard_type", "int", "shared-expert rank layout (0: shared ranks first)", default=0),
    F("shared_expert_num", "int", "shared experts (torch_npu default 1; (1, 0) means none)", default=1),
    F("shared_expert_rank_num", "int", "ranks holding shared experts", default=0),
    F("quant_mode", "int", "0 none, 2 dynamic int8", default=0),
    F("global_bs", "int", "global batch: 0 or max_bs * ep_world_size", default=0),
    F("expert_token_nums_type", "int", "0 prefix sums, 1 counts", default=1),
    F("comm_alg", "str", "communication algorithm", default="", nullable=True),
    F("zero_expert_num", "int", "zero-computation experts", default=0),
    F("copy_expert_num", "int", "copy experts", default=0),
    F("const_expert_num", "int", "constant experts", default=0),
    F("comm_quant_mode", "int", "combine communication quantisation (0 none, 2 int8)", default=0),
    F("group_ep", "str", "EP communicator name", default=None),
    F("group_tp", "str", "TP communicator name", default=None),
    F("x_dtype", "enum", "dtype of x", default="bf16", choices=("bf16", "fp16", "int32"), aliases=DTYPE_ALIASES),
    F("scales", "bool", "`scales` tensor passed", default=False),
    F("x_active_mask", "enum", "x_active_mask tensor: none, 1-D (BS,) or 2-D (BS, K)", default="none",
      choices=("none", "1d", "2d")),
    F("expert_scales", "bool", "dispatch `expert_scales` tensor passed", default=False),
    F("elastic_info", "bool", "`elastic_info` tensor passed", default=False),
    F("performance_info", "bool", "`performance_info` tensor passed", default=False),
    F("env", "mapping", "environment of the job", default={}, fields=ENV_FIELDS, open=True),
    F("hccl_buffer_size", "mapping", "per-communicator buffer option, MB", default=None, fields=HCCL_BUFFER_FIELDS),
    F("ori_x", "bool", "combine `ori_x` tensor passed (copy and const experts need it)", default=False),
    F("const_expert_alpha_1", "bool", "combine `const_expert_alpha_1` tensor passed (const experts)", default=False),
    F("const_expert_alpha_2", "bool", "combine `const_expert_alpha_2` tensor passed (const experts)", default=False),
    F("const_expert_v", "bool", "combine `const_expert_v` tensor passed (const experts)", default=False),
)
