"""The prime-rl release moecfg read (pyproject.toml:3 version 0.8.0, PrimeIntellect-ai/prime-rl@559b44772) and its
defaults: the fields of the config classes moecfg reads, each with its line; and the vLLM it pins (pyproject.toml
[tool.uv.sources] vllm = the v0.26.0 wheels, :224-226), derived with vLLM's >= 0.16 rules (frameworks/vllm)."""
from __future__ import annotations

PRIME_RL = "PrimeIntellect-ai/prime-rl@559b44772"
VERSION = "0.8.0+559b44772"
VLLM = "0.26.0"
C = "packages/prime-rl-configs/src/prime_rl/configs"
INF = f"{C}/inference.py"
RL = f"{C}/rl.py"
TRAINER = f"{C}/trainer.py"
# key (without the `inference.` of an RL config) -> (default, where)
INFERENCE_DEFAULTS = {
    "vllm.model": ("Qwen/Qwen3-0.6B", f"{INF}:57"),
    "vllm.tensor_parallel_size": ("1", f"{INF}:84"),
    "vllm.data_parallel_size": ("1", f"{INF}:87"),
    "vllm.gpu_memory_utilization": ("0.9", f"{INF}:102"),
    "vllm.enable_expert_parallel": ("false", f"{INF}:129"),
    "vllm.all2all_backend": ("allgather_reducescatter", f"{INF}:132"),
    "vllm.enable_eplb": ("false", f"{INF}:135"),
    "deployment.type": ("single_node", f"{INF}:371, :474"),
    "deployment.gpus_per_node": ("8", f"{INF}:366"),
    "deployment.num_nodes": ("2", f"{INF}:378"),
    "deployment.prefill_nodes_per_replica": ("1", f"{INF}:388"),
    "deployment.decode_nodes_per_replica": ("1", f"{INF}:391"),
}
RL_DEFAULTS = {
    "deployment.type": ("single_node", f"{RL}:178, :294"),
    "deployment.gpus_per_node": ("8", f"{RL}:173"),
    "deployment.num_train_gpus": ("1", f"{RL}:180"),
    "deployment.num_infer_gpus": ("1", f"{RL}:183"),
    "deployment.num_infer_replicas": ("1", f"{RL}:206"),
}
TRAINER_DEFAULTS = {
    "ep": ("auto", f"{TRAINER}:212"),
    "ep_comm_backend": ("torch", f"{TRAINER}:215"),
}
