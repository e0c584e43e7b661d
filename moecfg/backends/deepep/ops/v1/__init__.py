"""`api: v1`: DeepEP's legacy Buffer, modes normal, low_latency and auto.

This folder holds all of the op: analysis.py, config_forms.py, fields.py, formulas.py, model.py, rules/.
"""
