"""Field tables of `kind: ascend` documents, one per `op:` (contract §1.1): names and defaults are torch_npu's.

`OP_FIELDS[op]` is the table a document of that op is validated against; `FIELDS` is every field of every
op except shape lists (the CLI builds the `moecfg buffer` flags from it, and config defaults are matched
against it).
"""
from __future__ import annotations

from moecfg.core.fields import FieldSpec as F
from moecfg.backends.ascend.shared.fused_fields import fused_op_fields

from moecfg.backends.ascend.shared.products import PRODUCT_ALIASES
from moecfg.backends.ascend.ops.sgl_deepep.fields import OP_FIELDS as SGL_OP_FIELDS, OPS as SGL_OPS

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
OPS = ("dispatch_combine_v2", "combine_add_rms_norm", "dispatch_combine_v1", "ffn_worker_batching", "mega_moe",
       "dispatch_ffn_combine") + SGL_OPS

_DTYPE_ALIASES = (("bfloat16", "bf16"), ("float16", "fp16"), ("half", "fp16"))

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
    F("x_dtype", "enum", "dtype of x", default="bf16", choices=("bf16", "fp16", "int32"), aliases=_DTYPE_ALIASES),
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
APIS = ("torch_npu", "aclnn_v2", "aclnn_v3", "aclnn_v4", "aclnn_v5")
V2_API_FIELDS = (
    F("api", "enum", "entry point: torch_npu, or aclnnMoeDistributeDispatch/CombineV2..V5 (V5: context mode, "
      "ccl_buffer_size)", default="torch_npu", choices=APIS),
    F("ccl_buffer_size", "int", "aclnn_v5 (context mode): CCL buffer of the mc2 context, bytes; window = "
      "ccl_buffer_size - 1 MB", default=None),
)

# ---- combine_add_rms_norm: dispatch v2 (aclnn DispatchV3) + npu_moe_distribute_combine_add_rms_norm -------
ELASTIC_SCALE_DOWN_FIELDS = (
    F("ep_world_size", "int", "EP ranks left after the scale-down", required=True),
    F("shared_expert_rank_num", "int", "shared-expert ranks left (default: as before)", default=None),
    F("moe_expert_num", "int", "MoE experts still deployed (default: local_expert_num * MoE ranks left)", default=None),
)
ADD_RMS_NORM_FIELDS = V2_FIELDS + (
    F("norm_eps", "float", "combine_add_rms_norm: RmsNorm epsilon (attr normEps)", default=None),
    F("residual_x_dtype", "enum", "combine_add_rms_norm: residual_x dtype", default="bf16", choices=("bf16", "fp16"),
      aliases=_DTYPE_ALIASES),
    F("residual_x_shape", "int_list", "combine_add_rms_norm: residual_x shape (default (bs, 1, h))", default=None, length=3),
    F("gamma_dtype", "enum", "combine_add_rms_norm: gamma dtype", default="bf16", choices=("bf16", "fp16"),
      aliases=_DTYPE_ALIASES),
    F("gamma_shape", "int_list", "combine_add_rms_norm: gamma shape (default (h,))", default=None, length=1),
    F("elastic_scale_down", "mapping", "combine_add_rms_norm: the deployment after losing ranks (elastic_info)",
      default=None, fields=ELASTIC_SCALE_DOWN_FIELDS),
)

# ---- dispatch_combine_v1: npu_moe_distribute_dispatch / npu_moe_distribute_combine ----------------------
_V1_NAMES = ("bs", "h", "k", "ep_world_size", "moe_expert_num", "ep_rank_id", "tp_world_size", "tp_rank_id",
             "expert_shard_type", "shared_expert_num", "shared_expert_rank_num", "quant_mode", "global_bs",
             "expert_token_nums_type", "comm_quant_mode", "group_ep", "group_tp", "scales", "x_active_mask",
             "expert_scales", "env", "hccl_buffer_size")
V1_FIELDS = COMMON + tuple(f for f in V2_FIELDS if f.name in _V1_NAMES) + (
    F("x_dtype", "enum", "dtype of x", default="bf16", choices=("bf16", "fp16"), aliases=_DTYPE_ALIASES),
)

# ---- ffn_worker_batching: FfnWorkerBatching (attention/FFN disaggregation) ------------------------------
TOKEN_DTYPES = ("fp16", "bf16", "int8")  # attr token_dtype 0, 1, 2
FFN_FIELDS = COMMON + (
    F("attention_workers", "int", "ffn_worker_batching: A, attention workers (sessions) served", required=True),
    F("micro_batch_num", "int", "ffn_worker_batching: M, micro batches per attention worker", required=True),
    F("micro_batch_size", "int", "ffn_worker_batching: BS, tokens per micro batch", required=True),
    F("top_k", "int", "ffn_worker_batching: K, routed experts per token (the op adds the shared expert: K+1)",
      required=True),
    F("hidden", "int", "ffn_worker_batching: H, hidden size", required=True),
    F("expert_num", "int", "ffn_worker_batching: experts on this FFN rank over all layers", required=True),
    F("layer_num", "int", "ffn_worker_batching: layers (0: one expert index space)", default=0),
    F("token_dtype", "enum", "ffn_worker_batching: token dtype: fp16 (0), bf16 (1), int8 + fp32 scale (2)",
      default="fp16", choices=TOKEN_DTYPES, aliases=_DTYPE_ALIASES),
    F("need_schedule", "int", "ffn_worker_batching: 0 batching only, 1 scan the data first", default=0),
    F("attn_to_ffn_token_size", "int", "ffn_worker_batching: bytes per token slot in the FFN window "
      "(default: the payload aligned to 512)", default=None),
    F("ffn_window_size", "int", "ffn_worker_batching: bytes of the FFN window (token_info + token_data)", default=None),
)

OP_FIELDS = {
    "dispatch_combine_v2": V2_FIELDS + V2_API_FIELDS,
    "combine_add_rms_norm": ADD_RMS_NORM_FIELDS,
    "dispatch_combine_v1": V1_FIELDS,
    "ffn_worker_batching": FFN_FIELDS,
    **fused_op_fields(COMMON, ENV_FIELDS, HCCL_BUFFER_FIELDS),  # mega_moe, dispatch_ffn_combine
    **SGL_OP_FIELDS,
}


def _union(tables) -> tuple:
    seen, out = set(), []
    for table in tables:
        for f in table:
            if f.name not in seen and f.type != "int_list":
                seen.add(f.name)
                out.append(f)
    return tuple(out)


FIELDS = _union(OP_FIELDS.values())
