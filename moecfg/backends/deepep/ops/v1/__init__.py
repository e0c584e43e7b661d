"""`api: v1` (DeepEP Buffer: modes normal, low_latency, auto): everything of this op is in this folder (config_forms.py, formulas.py, model.py)."""
