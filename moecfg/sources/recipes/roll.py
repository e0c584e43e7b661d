"""A ROLL pipeline config (alibaba/ROLL examples/*/*.yaml: workers `actor_train`, `actor_infer`, `reference`,
`critic`, each with `strategy_args: {strategy_name, strategy_config}` and a `device_mapping`) as the launch
`python examples/start_<pipeline>_pipeline.py --config_path <dir> --config_name <it>` runs.

alibaba/ROLL@8eb27cc examples/start_rlvr_pipeline.py:22-28 composes the config with Hydra and builds the pipeline
config from it (dacite): every setting is the file's own. Each setting becomes one word `<dotted.path>=<value>` at its
value (overrides.py); the command starts with the word `roll` (trainers/roll reads it).
"""
from __future__ import annotations

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import YamlDocument
from moecfg.sources.recipes.overrides import span, words

COMMAND = "roll"
SETTINGS = ("pretrain", "reward_pretrain", "rollout_batch_size", "num_gpus_per_node")


def workers(data) -> list[str]:
    """The top-level sections with a named strategy (`actor_train: {strategy_args: {strategy_name: megatron_train}}`;
    an SFT pipeline's `sft_train`, a distillation's `student_train` / `teacher`)."""
    if not isinstance(data, dict):
        return []
    out = []
    for name, section in data.items():
        strategy = section.get("strategy_args") if isinstance(section, dict) else None
        if isinstance(name, str) and isinstance(strategy, dict) and isinstance(strategy.get("strategy_name"), str):
            out.append(name)
    return out


def is_roll_config(data) -> bool:
    return bool(workers(data))


def read_roll_config(doc: YamlDocument) -> LaunchFile | None:
    names = workers(doc.data)
    if not names:
        return None
    argv = [Word(COMMAND, span(doc, (names[0],), key=True))] + words(doc, SETTINGS + tuple(names))
    return LaunchFile(launches=[Launch(tuple(argv), {}, "yaml")])
