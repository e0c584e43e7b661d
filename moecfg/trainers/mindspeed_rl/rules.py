"""MindSpeed-RL launch rules (MC725-MC729): what MindSpeed-RL's own config checks refuse.

Ascend/MindSpeed-RL@05a90d7 cli/train_grpo.py:257-266.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule

_F = "launch"
ERROR_LABELS = {"MC725": "MindSpeed-RL's error"}
_OK = ("# the rule is about the config, not an op: any op document that passes (DeepEP, DeepSeek-V3 shapes)\nkind: deepep\n"
       "mode: normal\nnum_ranks: 8\nhidden: 7168\nnum_experts: 256\nnum_topk: 8\n")
INTEGRATED_WORKER_REF = rule(
    "MC725", "mindspeed-rl-integrated-worker-own-config", ERROR, "rl_config.use_integrated_worker with a ref_config "
    "or reward_config section", family=_F,
    source="Ascend/MindSpeed-RL@05a90d7 cli/train_grpo.py:257-266 (raise ValueError 'ref_config should not be set "
    "when use_integrated_worker mode is on.')",
    why="The integrated worker runs the reference and reward models inside the actor with the actor's config; "
    "MindSpeed-RL refuses a separate ref_config / reward_config before it starts.",
    cann_error="ValueError: ref_config should not be set when use_integrated_worker mode is on.",
    fail_text="A config with `rl_config: {use_integrated_worker: true}` and a `ref_config:` section.",
    pass_example=_OK, fix="Drop the ref_config / reward_config section, or set rl_config.use_integrated_worker: false.")
