"""`op: mega_moe`: CANN MegaMoE.

This folder holds all of the op: analysis.py, catalog.py, fields.py, formulas.py, model.py, rules.py.
"""
