"""Tutel's MoE layer (`kind: tutel`).

This folder holds all of the op: analysis.py, examples_base.py, fields.py, formulas.py, model.py, rules.py.
"""
