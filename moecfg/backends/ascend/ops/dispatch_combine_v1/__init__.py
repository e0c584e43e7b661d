"""`op: dispatch_combine_v1` (npu_moe_distribute_dispatch / combine): everything of this op is in this folder (analysis.py, rules.py)."""
