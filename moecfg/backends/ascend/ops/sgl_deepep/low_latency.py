"""`op: sgl_deepep_low_latency`: sgl-kernel-npu's deep_ep.Buffer low-latency dispatch (decode batches) on Ascend.

Shared model: analysis.py; rules: rules.py (MC890-MC899).
"""
from __future__ import annotations

from moecfg.backends import Analysis, Options
from moecfg.backends.ascend.ops.sgl_deepep import analysis as sgl_deepep
from moecfg.backends.ascend.ops.sgl_deepep.rules import CHECKS

OP = "sgl_deepep_low_latency"


def analyze(doc, options: Options) -> Analysis:
    return sgl_deepep.analyze(doc, OP, CHECKS)
