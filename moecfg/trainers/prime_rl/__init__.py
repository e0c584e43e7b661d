"""PrimeIntellect prime-rl (PrimeIntellect-ai/prime-rl): a TOML config (sources/recipes/prime_rl.py: `prime-rl <entry>
key=value ...`) is the launch `uv run rl @ <it>` (or `inference @`, `trainer @`, `sft @`) runs: the vLLM rollout /
inference phase is derived with frameworks/vllm, the trainer's own expert parallelism (`[trainer.model] ep`) is listed
as not derived. A shell launch `uv run rl @ x.toml ...` names its config, read as its own file; `uv run inference
--vllm.<arg> ...` without a config is derived from its flags.

Read at PrimeIntellect-ai/prime-rl@559b44772: pyproject.toml [project.scripts] (the entry points),
packages/prime-rl-configs/src/prime_rl/configs/{rl,inference,trainer}.py (the config classes and their validators),
src/prime_rl/entrypoints/inference.py and src/prime_rl/templates/{multi_node_rl,inference}.sbatch.j2, _launch_rank.sh.j2
(the vLLM arguments of each rank).
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "prime-rl"
VERSIONS = ("0.8.0",)
COMMAND = "prime-rl"
CONTEXTS = ("toml", "toml-block")
ENTRIES = ("rl", "inference", "trainer", "sft", "orchestrator")


def is_config(launch: Launch) -> bool:
    return bool(launch.argv) and launch.argv[0].value == COMMAND and launch.context in CONTEXTS


def entry_at(launch: Launch) -> int | None:
    """Index of the entry word of a shell launch: `uv run [options] rl ...`, or `rl @ config.toml` (the console
    script after `pip install`, named by the `@` after it)."""
    words = launch.words()
    for i, w in enumerate(words[:8]):
        if w not in ENTRIES:
            continue
        after = words[i + 1] if i + 1 < len(words) else None
        if i >= 2 and "uv" in words[:i] and "run" in words[:i] and (after is None or after == "@" or (
                after or "").startswith(("--", "@"))):
            return i
        if i == 0 and after == "@":
            return i
    return None


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return is_config(launch) or entry_at(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    from moecfg.trainers.prime_rl.calls import derive_config, derive_shell

    out = Derivation(NAME, VERSIONS[-1])
    if is_config(launch):
        derive_config(launch, ctx, out)
    else:
        derive_shell(launch, ctx, out, entry_at(launch))
    return out
