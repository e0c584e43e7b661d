"""`op: combine_add_rms_norm` (dispatch v2 + npu_moe_distribute_combine_add_rms_norm): everything of this op is in this folder (analysis.py, rules.py)."""
