"""`op: ffn_worker_batching` (FfnWorkerBatching, attention/FFN disaggregation): everything of this op is in this folder (analysis.py, rules.py)."""
