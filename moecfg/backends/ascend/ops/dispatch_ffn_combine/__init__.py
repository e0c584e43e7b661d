"""`op: dispatch_ffn_combine` (vllm-ascend's fused op): everything of this op is in this folder (analysis.py, rules.py)."""
