"""Field table of `kind: tutel` documents: one Tutel MoE layer (`tutel.moe.moe_layer`) on `world_size` GPUs."""
from __future__ import annotations

from moecfg.core.fields import FieldSpec as F

DTYPE_ALIASES = (("bfloat16", "bf16"), ("float16", "fp16"), ("half", "fp16"), ("float32", "fp32"), ("float", "fp32"))

FIELDS = (
    F("kind", "str", "backend", default="tutel"),
    F("world_size", "int", "GPUs in the MoE group (W)", required=True),
    F("num_global_experts", "int", "experts in the layer (E); E < W means W / E GPUs share one expert", required=True),
    F("top_k", "int", "experts per token (gate k; clipped to E as Tutel does)", default=2),
    F("capacity_factor", "float", "> 0 fixed capacity, 0 = max load (dropless), < 0 = min(max load, -cf bound)",
      default=1.0),
    F("tokens_per_device", "int", "tokens each GPU routes per step (num_samples)", required=True),
    F("model_dim", "int", "model (hidden) dimension M", required=True),
    F("hidden_size_per_expert", "int", "FFN hidden size of one expert H", required=True),
    F("dtype", "enum", "dtype of the dispatched tokens and expert parameters", default="bf16",
      choices=("bf16", "fp16", "fp32"), aliases=DTYPE_ALIASES),
    F("adaptive_degree", "int", "parallel_type 'adaptive:r': 0 = DP, 1 = DP+EP, W/E = MP+EP", default=1),
    F("a2a_ffn_overlap_degree", "int", "all-to-all / FFN overlap splits (<= 32)", default=1),
    F("megablocks_size", "int", "megablocks block size (0 = off); capacity aligns to it (Tutel ignores it unless "
      "world_size 1, several local experts and grad_enabled false)", default=0),
    F("grad_enabled", "bool", "torch.is_grad_enabled() at forward: true when training, false under torch.no_grad() / "
      "inference_mode() (Tutel then may use megablocks)", default=True),
    F("max_expert_load", "int", "most tokens routed to one expert (group-wide max); needed when capacity_factor <= 0",
      default=None),
)
