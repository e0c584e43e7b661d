"""Megatron-Bridge (NVIDIA-NeMo/Megatron-Bridge): `torchrun ... scripts/training/run_recipe.py --recipe <name>
[-tp N -pp N -ep N ...] [model.<field>=<value> ...]` is one launch of a Megatron-LM train: the recipe function sets
the model (its Hugging Face model, parallel sizes, flex dispatcher; recipes.json, tools/gen_bridge_recipes.py), the
launch's options and KEY=VALUE overrides go over it.

Read at NVIDIA-NeMo/Megatron-Bridge@067f987: scripts/training/run_recipe.py:135-153 (COMMON_OVERRIDE_FIELDS),
:160-261 (its parser), :263-272 (trailing overrides), scripts/training/recipe_runner.py:228-258 (load_recipe).
"""
from __future__ import annotations

import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "megatron-bridge"
VERSIONS = ("0.4.2",)
# scripts/training/run_recipe.py (not scripts/performance/run_recipe.py: the benchmark runner has its own arguments)
_ENTRY = re.compile(r"^(?!.*\bperformance/)(?:.*/)?run_recipe\.py$")


def entry(launch: Launch) -> int | None:
    """Index of the run_recipe.py word (after a python / torchrun program), or None."""
    words = launch.words()
    return next((i for i, w in enumerate(words) if i > 0 and w and _ENTRY.search(w)), None)


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return entry(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.megatron_bridge.calls import derive_train

    out = Derivation(NAME, VERSIONS[-1])
    derive_train(launch, ctx, out, entry(launch))
    return out
