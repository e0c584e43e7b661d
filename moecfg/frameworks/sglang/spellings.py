"""Older and newer SGLang spellings of the settings the derivation reads, mapped onto one name.

- `--enable-deepep-moe` (sglang 0.4.4.post2 .. 0.5.4; sglang==0.4.9 python/sglang/srt/server_args.py: "Enabling
  DeepEP MoE implementation for EP MoE", with `--deepep-mode`) is the DeepEP all-to-all switch later spelled
  `--moe-a2a-backend deepep` (sglang==0.5.4 server_args.py keeps it as a deprecated alias that sets
  moe_a2a_backend = "deepep").
- `--attn-dp-size N` (sglang 0.5.23, arg_groups/fields/parallel.py:81) is the attention-DP width the older
  `--dp-size N --enable-dp-attention` gave (arg_groups/parallel_hook.py:40-60 turns the old spelling into it, and
  `--dp-size` then counts replicas): moecfg reads it as that older pair, per engine.
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
    attn = flags.get("--attn-dp-size")
    if attn is not None:
        flags.flags["--dp-size"] = Flag("--dp-size", attn.value, attn.span)
        flags.flags["--enable-dp-attention"] = Flag("--enable-dp-attention", "true", attn.span)
    decode = flags.get("--cuda-graph-max-bs-decode")
    if decode is not None and flags.get("--cuda-graph-max-bs") is None:
        flags.flags["--cuda-graph-max-bs"] = Flag("--cuda-graph-max-bs", decode.value, decode.span)
    return []
