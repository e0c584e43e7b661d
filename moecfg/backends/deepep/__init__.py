"""DeepEP (V1 / legacy API) buffer-size formulas, default configs and numeric limits."""
