"""`op: sgl_deepep_normal` and `op: sgl_deepep_low_latency`: sgl-kernel-npu's deep_ep.Buffer, one model for
its two modes (analysis.py; normal.py and low_latency.py are the two entries).

This folder holds all of the op: analysis.py, fields.py, formulas.py, low_latency.py, normal.py, rules.py.
"""
