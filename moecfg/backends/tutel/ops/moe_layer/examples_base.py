"""Base document of the Tutel rules' docs (MC7xx examples start from it). Plain data: importing it builds no text."""
from __future__ import annotations

from moecfg.core.examples import ex  # noqa: F401  (re-exported: the docs lambdas call eg.ex)

# Tutel: 4 experts sharded over 16 GPUs (s = 4), top-2; r = 4 is what moecfg's model recommends. Valid.
TUTEL = dict(kind="tutel", world_size=16, num_global_experts=4, top_k=2, capacity_factor=1.15, tokens_per_device=400,
             model_dim=2048, hidden_size_per_expert=8192, adaptive_degree=4)
