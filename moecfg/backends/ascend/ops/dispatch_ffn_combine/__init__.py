"""`op: dispatch_ffn_combine`: vllm-ascend's fused op.

This folder holds all of the op: analysis.py, catalog.py, fields.py, formulas.py, rules.py.
"""
