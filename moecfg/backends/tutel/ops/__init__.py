"""The Tutel ops: one, the MoE layer (tutel.moe.moe_layer)."""
