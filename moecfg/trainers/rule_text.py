"""Text the trainers' rule pages share."""

# A trainer's rule is about the launch or its config, not an op document: its page's passing example is any op
# document that passes (DeepEP, Qwen3-30B-A3B shapes).
PASS_EXAMPLE = ("# the rule is about the launch or its config, not an op: any op document that passes (DeepEP, "
                "Qwen3-30B-A3B shapes)\nkind: deepep\nmode: normal\nnum_ranks: 8\nhidden: 2048\nnum_experts: 128\n"
                "num_topk: 8\n")
