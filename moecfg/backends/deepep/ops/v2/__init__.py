"""`api: v2`: DeepEP V2 ElasticBuffer.

This folder holds all of the op: analysis.py, fields.py, formulas.py, rules.py.
"""
