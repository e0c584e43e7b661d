"""`api: v2` (DeepEP ElasticBuffer): everything of this op is in this folder (analysis.py, formulas.py, rules.py)."""
