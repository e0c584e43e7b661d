"""The two torchtitan launch forms moecfg reads, each at the code it was read from.

- "0.2" (the releases 0.2.1 and 0.2.2, pytorch/torchtitan@73a0e69 = v0.2.2): TOML job configs, `--job.config_file
  X.toml` (`CONFIG_FILE=` for ./run_train.sh), every field also a `--section.field` flag; the expert-parallel backend is
  `--parallelism.expert_parallel_comm_backend standard|deepep` (torchtitan/config/job_config.py:474), DeepEP v1
  `Buffer` sized by torchtitan/distributed/deepep/deepep.py:288-317.
- "main" (pytorch/torchtitan@b5bcd76, after the config refactor #2386): `--module M --config F` (`MODULE=` / `CONFIG=`
  for ./run_train.sh), F a Python function of M's config_registry.py that sets the model, the parallel degrees and the
  token dispatcher (standard, DeepEP v2 ElasticBuffer, HybridEP, minimal_async_ep) in code.

Both set assets/version.txt to 0.2.2 (main has not bumped it), so the launch's own words tell the form apart.
"""
from __future__ import annotations

V022 = "pytorch/torchtitan@73a0e69"  # tag v0.2.2
MAIN = "pytorch/torchtitan@b5bcd76"
# 0.2 words: any of these on the command line (or CONFIG_FILE in run_train.sh's environment) is the TOML form
V022_FLAGS = ("--job.config_file", "--model.name", "--model.flavor", "--parallelism.expert_parallel_comm_backend")
MAIN_FLAGS = ("--module", "--config")


def form(words: list[str | None], env: dict) -> str | None:
    """"0.2", "main", or None (neither form's words: the config and every default are not known)."""
    names = {(w or "").split("=", 1)[0] for w in words}
    if names & set(MAIN_FLAGS) or "MODULE" in env or "CONFIG" in env:
        return "main"
    if names & set(V022_FLAGS) or "CONFIG_FILE" in env:
        return "0.2"
    return None
