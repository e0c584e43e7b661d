"""`op: mega_moe` (CANN MegaMoE): everything of this op is in this folder (analysis.py, catalog.py, model.py, rules.py)."""
