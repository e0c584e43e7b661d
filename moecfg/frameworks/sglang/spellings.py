"""Older and newer SGLang spellings of the settings the derivation reads, mapped onto one name.

- `--enable-deepep-moe` (sglang 0.4.4.post2 .. 0.5.4; sglang==0.4.9 python/sglang/srt/server_args.py: "Enabling
  DeepEP MoE implementation for EP MoE", with `--deepep-mode`) is the DeepEP all-to-all switch later spelled
  `--moe-a2a-backend deepep` (sglang==0.5.4 server_args.py keeps it as a deprecated alias that sets
  moe_a2a_backend = "deepep").
- `--cuda-graph-max-bs-decode` (sglang >= 0.5.21, sglang==0.5.23 arg_groups/fields/exec_.py:629) replaced
  `--cuda-graph-max-bs` for the decode graphs the low-latency rules read.
"""
from __future__ import annotations

from moecfg.frameworks.flags import Flag, Flags


def normalise(flags: Flags) -> list:
    """Rewrite `flags` in place so the derivation finds each setting under the name it reads; no notes today."""
    deepep = flags.get("--enable-deepep-moe")
    if deepep is not None and deepep.value != "false" and flags.get("--moe-a2a-backend") is None:
        flags.flags["--moe-a2a-backend"] = Flag("--moe-a2a-backend", "deepep", deepep.span)
    decode = flags.get("--cuda-graph-max-bs-decode")
    if decode is not None and flags.get("--cuda-graph-max-bs") is None:
        flags.flags["--cuda-graph-max-bs"] = Flag("--cuda-graph-max-bs", decode.value, decode.span)
    return []
