"""What several Ascend ops share: the dispatch/combine v2 model, formulas and limits (v1, combine_add_rms_norm
and the fused ops build on them), rule-set resolution, and the v2 rule families (shared/rules/)."""
