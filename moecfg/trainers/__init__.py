"""Trainers: RL and post-training launchers that run a training engine and a rollout engine in one launch.

A trainer is a package of the same shape as a framework (frameworks/__init__.py: NAME, VERSIONS, recognise, derive),
registered in frameworks.FRAMEWORK_MODULES ahead of the engines (the one table of launch packages); its folder holds
recognise (__init__.py), calls (its keys -> the argv each engine would receive), rules (what the trainer's own schema
refuses) and releases (the trainer release read, and the engine releases it pins).

A trainer derives nothing of its own: it writes the command line the engine would get (`pretrain_gpt.py
--expert-model-parallel-size 8 ...` for the Megatron-LM train, `python -m sglang.launch_server --tp-size 8 ...` for
the SGLang rollout) with every word positioned at the trainer's key that set it, and hands it to the engine's own
derivation (phases.py). A key whose value is not known stays an unknown word; no key is given a default the trainer's
code does not give it.
"""
from __future__ import annotations
