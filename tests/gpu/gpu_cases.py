"""Base documents and a boundary-table helper for the DeepEP and Tutel rule tests."""
from __future__ import annotations

import pytest
import yaml

from lintkit import Linted  # the shared result wrapper of tests/lintkit.py
from moecfg.checking.engine import lint_text

# DeepSeek-V3 shapes (hidden 7168, top-8 of 256 routed experts).
# Normal mode on 2 nodes x 8 H800 (internode), 24 SMs as in DeepEP's README.
NORMAL = {"kind": "deepep", "mode": "normal", "num_ranks": 16, "hidden": 7168, "num_experts": 256, "num_topk": 8,
          "num_sms": 24}
# Normal mode on one node of 8 GPUs (intranode), DeepEP's default 20 SMs.
INTRA = {"kind": "deepep", "mode": "normal", "num_ranks": 8, "hidden": 7168, "num_experts": 256, "num_topk": 8}
# Low-latency decode, 128 tokens per rank, FP8 dispatch.
LL = {"kind": "deepep", "mode": "low_latency", "num_ranks": 16, "hidden": 7168, "num_experts": 256, "num_topk": 8,
      "dtype": "fp8", "num_max_dispatch_tokens_per_rank": 128}
# Tutel: 4 experts sharded over 16 GPUs (s = 4), top-2, cf 1.15; r = 4 is what the model recommends.
TUTEL = {"kind": "tutel", "world_size": 16, "num_global_experts": 4, "top_k": 2, "capacity_factor": 1.15,
         "tokens_per_device": 400, "model_dim": 2048, "hidden_size_per_expert": 8192, "adaptive_degree": 4}

def run_lint(base: dict, **overrides) -> Linted:
    """Lint `base` with `overrides` applied (a value of None deletes the key)."""
    doc = dict(base)
    for key, value in overrides.items():
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value
    return Linted(lint_text(yaml.safe_dump(doc, sort_keys=False), "test.yaml"))


BASES = {"normal": NORMAL, "intra": INTRA, "ll": LL, "tutel": TUTEL}


def cases(rows):
    """rows of (base name, overrides, fires) -> pytest params with readable ids."""
    return [pytest.param(base, overrides, fires,
                         id=f"{base}-{','.join(f'{k}={v}' for k, v in overrides.items())}-{'fail' if fires else 'ok'}")
            for base, overrides, fires in rows]


def check_rule(code: str, base: str, overrides: dict, fires: bool, severity: str | None = None):
    out = run_lint(BASES[base], **overrides)
    found = out.of(code)
    if fires:
        assert found, f"{code} should fire for {base} {overrides}; got {out!r}"
        for d in found:
            assert d.line >= 1 and d.column >= 1 and d.message
            if severity:
                assert d.severity == severity, d
    else:
        assert not found, f"{code} should not fire for {base} {overrides}; got {out!r}"
    return out
