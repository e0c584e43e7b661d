"""The NeMo-RL release moecfg read, and the engine releases it pins.

NVIDIA-NeMo/RL@7ea279abf (2026-08-22): nemo_rl/package_info.py:16-18 (0.6.0); pyproject.toml:148-150 pins vLLM 0.25.1
and :158 SGLang 0.5.12.post1; Megatron-core comes from the Megatron-Bridge submodule (pyproject.toml:183, :268).
No other release is read: a launch is read as this one, said once per launch (MC040).
"""
from __future__ import annotations

NEMO_RL = "NVIDIA-NeMo/RL@7ea279abf"
VERSION = "0.6.0+7ea279abf"
VLLM = "0.25.1"  # pyproject.toml:148-150
SGLANG = "0.5.12.post1"  # pyproject.toml:158
