"""`op: ffn_worker_batching`: FfnWorkerBatching (attention/FFN disaggregation).

This folder holds all of the op: analysis.py, catalog.py, fields.py, formulas.py, rules.py.
"""
