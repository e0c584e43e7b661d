"""`op: combine_add_rms_norm`: dispatch v2 + npu_moe_distribute_combine_add_rms_norm (also runs the v2 families
of ../../shared/rules).

This folder holds all of the op: analysis.py, catalog.py, fields.py, formulas.py, rules.py.
"""
