"""Megatron-Bridge launch rules (MC714, MC735, MC736, MC747): what run_recipe.py's, setup_experiment.py's and the
conversion / inference launchers' own checks refuse.

NVIDIA-NeMo/Megatron-Bridge@067f987 scripts/training/run_recipe.py:168-171, :263-272;
scripts/performance/argument_parser.py:178-190, :222-227, :686-692.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR
from moecfg.core.registry import rule

_F = "launch"
_S = "NVIDIA-NeMo/Megatron-Bridge@067f987 scripts/training/run_recipe.py"
ERROR_LABELS = {c: "Megatron-Bridge's error" for c in ("MC714", "MC735", "MC736", "MC747")}
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
SETUP_REFUSED = rule(
    "MC747", "megatron-bridge-setup-arguments", ERROR,
    "setup_experiment.py needs -m, -mr, -ng and -g, with -g one of its GPUs",
    family=_F, source="NVIDIA-NeMo/Megatron-Bridge@067f987 scripts/performance/argument_parser.py:178-190 (-m, -mr "
    "required), :222-227 (-ng required), :686-692 (-g required, choices NUM_GPUS_PER_NODE_MAP :30-38)",
    why="The performance launcher picks its recipe from the model recipe name, the GPU count and the GPU type; "
    "argparse refuses a launch without them (or with a GPU it does not list, compared as written: `H100` is not "
    "`h100`) and exits with status 2 before a job is submitted.",
    cann_error="setup_experiment.py: error: the following arguments are required: -mr/--model_recipe_name",
    fail_text="`python scripts/performance/setup_experiment.py --gpu h100 -m llama3 -s 70b -ng 64` (no -mr: the "
    "README's older --model_size form).", pass_example=_OK,
    fix="Give -m <family> -mr <recipe> -ng <gpus> -g <gpu> (h100, b200, b300, gb200, gb300, vr200, r100).")
CONVERSION_REFUSED = rule(
    "MC714", "megatron-bridge-conversion-arguments", ERROR,
    "convert.sh, train.sh and the inference scripts refuse sizes and resources their own checks reject",
    family=_F, source="NVIDIA-NeMo/Megatron-Bridge@067f987 scripts/conversion/setup_conversion.py:66-131 "
    "(_validate_args), scripts/inference/text_generation.py:97-98, scripts/training/setup_experiment.py:189-194",
    why="convert.sh runs setup_conversion.py, which checks the parallel sizes against the job before it submits "
    "anything: TP/PP/EP/ETP at least 1, one node with the local executor, the CPU backend (the default of import and "
    "export) only with TP=PP=EP=ETP=1, --gpus-per-node on the GPU backend, and nodes x gpus-per-node a multiple of "
    "TP x PP and of ETP x EP x PP; text_generation.py needs --use-coordinator for EP above 1; train.sh needs "
    "--gpus-per-node. Each raises ValueError.",
    cann_error="ValueError: CPU conversion requires TP=PP=EP=ETP=1.",
    fail_text="`./scripts/conversion/convert.sh import --hf-model Qwen/Qwen3-30B-A3B --megatron-path /ckpt --ep 8` "
    "(no --device gpu: the CPU backend).", pass_example=_OK,
    fix="Add --device gpu --gpus-per-node 8 (a multiple of TP x PP and ETP x EP x PP), or drop the sizes.")
