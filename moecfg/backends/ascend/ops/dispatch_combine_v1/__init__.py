"""`op: dispatch_combine_v1`: npu_moe_distribute_dispatch / combine (also runs some v2 families of
../../shared/rules).

This folder holds all of the op: analysis.py, catalog.py, fields.py, formulas.py, rules.py.
"""
