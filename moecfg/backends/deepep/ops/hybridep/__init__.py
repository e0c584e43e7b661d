"""`api: hybridep`: NVIDIA Hybrid-EP HybridEPBuffer.

This folder holds all of the op: analysis.py, fields.py, formulas.py, rules.py.
"""
