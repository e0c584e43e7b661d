"""The LLaMA-Factory release moecfg read (src/llamafactory/extras/env.py:22 VERSION 0.9.6.dev0) and the mcore_adapter
it installs for USE_MCA=1 (docker/docker-cuda/Dockerfile.megatron:65: `git+https://github.com/alibaba/roll.git#
subdirectory=mcore_adapter`, read at alibaba/ROLL@8eb27cc)."""
from __future__ import annotations

LLAMAFACTORY = "hiyouga/LLaMA-Factory@ff6d4d12e"
MCORE_ADAPTER = "alibaba/ROLL@8eb27cc mcore_adapter"
VERSION = "0.9.6.dev0+ff6d4d12e"
