"""`op: dispatch_combine_v2` (the default): npu_moe_distribute_dispatch_v2 / combine_v2. Its model, formulas,
limits and rule families are shared with the ops built on it (../../shared/).

This folder holds all of the op: analysis.py, fields.py.
"""
