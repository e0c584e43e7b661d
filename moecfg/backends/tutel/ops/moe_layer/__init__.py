"""Tutel's MoE layer (`kind: tutel`): everything of this op is in this folder (examples_base.py, fields.py, formulas.py, model.py, rules.py)."""
