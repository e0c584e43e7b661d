"""NVIDIA NeMo-RL: `uv run python examples/run_grpo.py --config <config>.yaml [key.path=value ...]` (run_sft, run_dpo,
run_distillation, run_eval, run_vlm_grpo, examples/nemo_gym/run_grpo_nemo_gym.py, ...), or a NeMo-RL config file
itself (read by sources/recipes/nemo_rl.py as `nemo-rl --config <file> key=value ...`): one launch of a Megatron-LM
train phase (policy.megatron_cfg.*, through Megatron-Bridge) and a vLLM or SGLang rollout phase (policy.generation.*).

Read at NVIDIA-NeMo/RL@7ea279abf: examples/run_grpo.py:58-95 (`--config`, then Hydra overrides over it),
nemo_rl/utils/config.py (inheritance, overrides, resolvers), nemo_rl/models/megatron/setup.py:858-1019 (what the
Megatron provider gets), nemo_rl/models/generation/vllm/vllm_worker.py:319-322, :570-597 (the vLLM engine's
arguments), nemo_rl/models/generation/sglang/sglang_worker.py:376-438 (SGLang's ServerArgs), nemo_rl/algorithms/grpo.py:
759-1052 (the clusters).
"""
from __future__ import annotations

import os
import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "nemo-rl"
VERSIONS = ("0.6.0",)
COMMAND = "nemo-rl"  # sources/recipes/nemo_rl.py
# NeMo-RL's entry scripts (NVIDIA-NeMo/RL@7ea279abf examples/run_*.py, examples/nemo_gym/run_*.py); another
# repository's `examples/run_<x>.py` (Megatron-LM's run_simple_mcore_train_loop.py) is not one
SCRIPT = re.compile(r"(?:^|/)examples/(?:run_(?:grpo|grpo_single_controller|grpo_sliding_puzzle|sft|dpo|distillation|"
                    r"eval|ppo|rm|vlm_grpo|vlm_sft|xtoken_off_policy_distillation)|"
                    r"nemo_gym/run_(?:grpo|distillation)_nemo_gym)\.py$")
_RUNNERS = re.compile(r"^(?:python(\d+(\.\d+)?)?|uv|run|coverage)$")


def script_index(launch: Launch) -> int | None:
    """Index of the word running NeMo-RL's entry script, after `python`, `uv run` or `coverage run`."""
    if launch.context == "yaml" and launch.argv and launch.argv[0].value == COMMAND:
        return None
    for i, w in enumerate(launch.argv[:24]):
        text = w.value if w.value is not None else w.pattern
        if i > 0 and text and SCRIPT.search(text) and any(
                _RUNNERS.match(os.path.basename(p.value or "")) for p in launch.argv[:i]):
            return i
        if i == 1 and text and SCRIPT.search(text) and launch.argv[0].value is None:
            return i  # `${NRL_PYTHON:-python} examples/run_grpo.py` (tests/test_suites/llm/grpo-qwen3-30ba3b-2n8g-
            # megatron_fused_linear_logprobs.sh:20): the interpreter held in a variable
    return None


def is_config(launch: Launch) -> bool:
    return bool(launch.argv) and launch.argv[0].value == COMMAND and launch.context == "yaml"


def ray_sub_command(launch: Launch) -> Launch | None:
    """`COMMAND="uv run ./examples/run_grpo.py ..." sbatch ... ray.sub`: ray.sub writes COMMAND to a file and runs
    it with bash on the Ray head node (NVIDIA-NeMo/RL@7ea279abf ray.sub:101, :221-227, :824). The NeMo-RL launch
    in it, every word positioned at the COMMAND assignment (the string's own positions are not kept)."""
    if not any(os.path.basename(w or "") == "ray.sub" for w in launch.words()):
        return None
    entry = launch.env.get("COMMAND") if hasattr(launch.env, "get") else None
    if entry is None or not entry.value or "run_" not in entry.value:
        return None
    from moecfg.sources.launch import Word
    from moecfg.sources.readers import read_shell

    for inner in read_shell(entry.value[:20000]).launches:
        if script_index(inner) is not None:
            words = tuple(Word(w.value, entry.span, exact=False, pattern=w.pattern) for w in inner.argv)
            return Launch(words, inner.env, launch.context, launch.image, launch.container, launch.hints,
                          launch.sourced)
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return is_config(launch) or script_index(launch) is not None or ray_sub_command(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.nemo_rl import calls, launch_keys

    out = Derivation(NAME, VERSIONS[-1])
    if not is_config(launch) and script_index(launch) is None:
        launch = ray_sub_command(launch)
    keys = launch_keys.from_config(launch) if is_config(launch) else launch_keys.from_shell(
        launch, script_index(launch), out, ctx.file)
    if keys is not None:
        calls.derive_phases(keys, ctx, out)
    return out
