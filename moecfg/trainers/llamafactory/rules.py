"""LLaMA-Factory launch rules: none of its own yet. Its Megatron-Bridge check (src/llamafactory/hparams/parser.py:336-
349: TP x PP x CP x EP must divide the world) needs the world, which `llamafactory-cli` takes from NPROC_PER_NODE x
NNODES at run time (src/llamafactory/launcher.py:63-65, default: the devices it finds): not known from the config."""
from __future__ import annotations

ERROR_LABELS: dict[str, str] = {}
