"""`api: hybridep` (HybridEPBuffer): everything of this op is in this folder (analysis.py, formulas.py, rules.py)."""
