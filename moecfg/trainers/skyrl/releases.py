"""The SkyRL release moecfg read (skyrl/__init__.py:3 __version__ 0.3.0) and its defaults: the dataclass fields of
skyrl/train/config/config.py that moecfg reads, each with its line."""
from __future__ import annotations

SKYRL = "NovaSky-AI/SkyRL@a956457"
VERSION = "0.3.0+a956457"
_C = "skyrl/train/config/config.py"
M = "trainer.policy.megatron_config."
R = "trainer.ref.megatron_config."
IE = "generator.inference_engine."
# key -> (default, where); None: no default (required, or Megatron's own)
DEFAULTS = {
    "trainer.strategy": ("fsdp", f"{_C}:1344"),
    "trainer.placement.policy_num_nodes": ("1", f"{_C}:593"),
    "trainer.placement.policy_num_gpus_per_node": ("1", f"{_C}:594"),
    "trainer.placement.ref_num_nodes": ("1", f"{_C}:597"),
    "trainer.placement.ref_num_gpus_per_node": ("1", f"{_C}:598"),
    **{p + k: (v, f"{_C}:{line}") for p in (M, R) for k, v, line in (
        ("tensor_model_parallel_size", "1", 449), ("pipeline_model_parallel_size", "1", 453),
        ("context_parallel_size", "1", 455), ("expert_model_parallel_size", "1", 457),
        ("moe_token_dispatcher_type", "alltoall", 464))},
    IE + "num_engines": ("1", f"{_C}:1107"),
    IE + "backend": ("vllm", f"{_C}:1109"),
    IE + "tensor_parallel_size": ("1", f"{_C}:1119"),
    IE + "pipeline_parallel_size": ("1", f"{_C}:1121"),
    IE + "expert_parallel_size": ("1", f"{_C}:1123"),
    IE + "data_parallel_size": ("1", f"{_C}:1127"),
    IE + "max_num_batched_tokens": ("8192", f"{_C}:1145"),
    IE + "gpu_memory_utilization": ("0.8", f"{_C}:1154"),
    IE + "max_num_seqs": ("1024", f"{_C}:1172"),
}
