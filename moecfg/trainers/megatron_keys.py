"""Megatron-LM's settings as the trainers write them in their configs (`expert_model_parallel_size: 8`, the
TransformerConfig field name) and the Megatron flag each one is, for the Megatron train phase the trainers hand to
frameworks/megatron (which reads flags): one table for every trainer."""
from __future__ import annotations

from moecfg.frameworks.megatron.calls import FLAGS

TAKES_VALUE = {s.name: s.takes_value for s in FLAGS}  # Megatron flag -> whether it takes a value
SIZE_FLAGS = {"tensor_model_parallel_size": "--tensor-model-parallel-size",
              "pipeline_model_parallel_size": "--pipeline-model-parallel-size",
              "context_parallel_size": "--context-parallel-size",
              "expert_model_parallel_size": "--expert-model-parallel-size",
              "expert_tensor_parallel_size": "--expert-tensor-parallel-size"}
FIELD_FLAGS = {"num_moe_experts": "--num-experts"}  # TransformerConfig fields whose flag has another name
