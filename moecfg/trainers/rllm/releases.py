"""The rLLM release moecfg read (pyproject.toml:7 version 0.3.0.pre) and the verl release it pins
(pyproject.toml:80, the `verl` extra: verl==0.8.0)."""
from __future__ import annotations

RLLM = "rllm-org/rllm@9beb6e0"
VERL_PIN = "0.8.0"
