"""Megatron-Bridge launch rules (MC735-MC739): what run_recipe.py's own parser refuses.

NVIDIA-NeMo/Megatron-Bridge@067f987 scripts/training/run_recipe.py:168-171, :263-272.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule

_F = "launch"
_S = "NVIDIA-NeMo/Megatron-Bridge@067f987 scripts/training/run_recipe.py"
ERROR_LABELS = {c: "Megatron-Bridge's error" for c in ("MC735", "MC736")}
_OK = ("# the rule is about the launch, not an op: any op document that passes (DeepEP, DeepSeek-V3 shapes)\n"
       "kind: deepep\nmode: normal\nnum_ranks: 8\nhidden: 7168\nnum_experts: 256\nnum_topk: 8\n")
RECIPE_AND_MODEL = rule(
    "MC735", "megatron-bridge-recipe-and-model", ERROR, "run_recipe.py takes --recipe or --model, not both",
    family=_F, source=f"{_S}:169-171 (add_mutually_exclusive_group(required=True): --model, --recipe)",
    why="--model names a recipe stem and --recipe a complete recipe function: argparse refuses both in one launch "
    "and exits with status 2 before anything starts.",
    cann_error="run_recipe.py: error: argument --recipe: not allowed with argument --model",
    fail_text="`torchrun ... run_recipe.py --model gpt_oss_20b --recipe gpt_oss_20b_pretrain_config`.",
    pass_example=_OK, fix="Keep one of --recipe and --model.")
NOT_AN_OVERRIDE = rule(
    "MC736", "megatron-bridge-override-form", ERROR, "a trailing run_recipe.py word must be KEY=VALUE",
    family=_F, source=f"{_S}:263-272 (_collect_overrides: parser.error('Expected override in KEY=VALUE form, got ..'))",
    why="run_recipe.py hands every word its parser does not know to the ConfigContainer as an override; a word "
    "without `=` is refused and the launch exits with status 2.",
    cann_error="run_recipe.py: error: Expected override in KEY=VALUE form, got 'model.expert_model_parallel_size'",
    fail_text="`run_recipe.py --recipe X model.expert_model_parallel_size 8` (a space, not `=`).", pass_example=_OK,
    fix="Write the override as model.expert_model_parallel_size=8.")
