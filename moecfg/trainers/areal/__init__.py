"""AReaL (inclusionAI/AReaL): an experiment config (sources/recipes/areal.py: `areal actor.backend=megatron:(attn:
d4p4t2|ffn:d2p4e4) rollout.backend=sglang:d8t4 ...`) is one launch of a Megatron-LM train phase (the actor's
allocation) and an SGLang or vLLM rollout phase (the rollout's allocation, its server section).

Read at inclusionAI/AReaL@4aef98d: areal/api/alloc_mode.py (the allocation grammar :594-634 and its checks),
areal/api/cli_args.py:835-907 (MegatronEngineConfig), :1625-1809 (vLLMConfig, SGLangConfig and their build_args),
areal/engine/megatron_engine.py:229-241 (the Megatron parallel state).
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch
from moecfg.trainers import config_launch as C

NAME = "areal"
VERSIONS = ("4aef98d",)
COMMAND = "areal"  # sources/recipes/areal.py


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return C.is_config(launch, COMMAND)


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.areal.calls import derive_phases

    out = Derivation(NAME, VERSIONS[-1])
    derive_phases(launch, ctx, out)
    return out
