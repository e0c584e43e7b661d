"""An RLinf config (RLinf/RLinf examples/*/config/**/*.yaml, tests/e2e_tests/*/*.yaml: top-level `cluster`
(num_nodes, component_placement), `runner` (task_type), `actor` (training_backend, model, megatron) and `rollout`)
as the launch `python examples/reasoning/main_grpo.py --config-path <dir> --config-name <it>` runs.

RLinf/RLinf@a3816b596 examples/reasoning/main_grpo.py:40 (`@hydra.main(version_base="1.1")`) composes the file
with Hydra; its `defaults` list names only Hydra's own groups (`override hydra/job_logging: stdout`): every setting
is the file's own, then rlinf/config.py validate_cfg fills what it does not write. Each setting becomes one word
`<dotted.path>=<value>` at its value (overrides.py); the command starts with the word `rlinf` (trainers/rlinf reads
it).
"""
from __future__ import annotations

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import YamlDocument
from moecfg.sources.recipes.overrides import span, words

COMMAND = "rlinf"
SECTIONS = ("cluster", "runner", "actor", "rollout", "critic")


def is_rlinf_config(data) -> bool:
    """An RLinf config: `actor.training_backend` beside a `cluster` section and a `runner` section."""
    if not isinstance(data, dict):
        return False
    actor, cluster, runner = data.get("actor"), data.get("cluster"), data.get("runner")
    return isinstance(actor, dict) and isinstance(actor.get("training_backend"), str) and \
        isinstance(cluster, dict) and isinstance(runner, dict)


def read_rlinf_config(doc: YamlDocument) -> LaunchFile | None:
    if not is_rlinf_config(doc.data):
        return None
    argv = [Word(COMMAND, span(doc, ("actor", "training_backend"), key=True))] + words(doc, SECTIONS)
    return LaunchFile(launches=[Launch(tuple(argv), {}, "yaml")])
