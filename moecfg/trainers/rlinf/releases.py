"""The RLinf release moecfg read (pyproject.toml:7 version 0.4.0). RLinf supports several rollout engine releases
(requirements/: sglang 0.4.6.post5 .. 0.5.12.post1, vllm 0.8.5 and 0.23.0) and pins none for a config: the engines
say their own release."""
from __future__ import annotations

RLINF = "RLinf/RLinf@a3816b596"
VERSION = "0.4.0+a3816b596"
