"""A verl Hydra config written as a file (`actor_rollout_ref:` at the top, `defaults: [ppo_megatron_trainer, _self_]`)
as the launch `python3 -m verl.trainer.main_ppo --config-name <it>` runs: the base config its `defaults` list names,
then every setting of the file as an override word `<key.path>=<value>` at its value (overrides.py).

volcengine/verl@b178a3c examples/sglang_multiturn/config/*.yaml, examples/split_placement/config/ppo_trainer_split.yaml:
`defaults: [ppo_trainer, _self_]` (or ppo_megatron_trainer) then the file's own keys over them (Hydra's `_self_`).
The program words are written as main_ppo's (the file holds no command; trainers/verl reads the words).
"""
from __future__ import annotations

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import YamlDocument
from moecfg.sources.recipes.overrides import span, words

SECTIONS = ("actor_rollout_ref", "trainer")


def is_verl_config(data) -> bool:
    section = data.get("actor_rollout_ref") if isinstance(data, dict) else None
    return isinstance(section, dict) and any(isinstance(section.get(k), dict) for k in ("rollout", "actor", "model"))


def read_verl_config(doc: YamlDocument) -> LaunchFile | None:
    if not is_verl_config(doc.data):
        return None
    at = span(doc, ("actor_rollout_ref",), key=True)
    argv = [Word("python3", at), Word("-m", at), Word("verl.trainer.main_ppo", at)]
    base = _base(doc.data.get("defaults"))
    if base is not None:
        argv += [Word("--config-name", span(doc, ("defaults",), key=True)), Word(base, span(doc, ("defaults",), key=True))]
    else:  # no base config named: the keys the file does not set are not known
        argv += [Word("--config-name", at), Word("?", at)]
    return LaunchFile(launches=[Launch(tuple(argv + words(doc, SECTIONS)), {}, "yaml")])


def _base(defaults) -> str | None:
    """The first config the `defaults` list names (`- ppo_megatron_trainer`), not `_self_` nor a group entry."""
    if not isinstance(defaults, list):
        return None
    return next((d for d in defaults if isinstance(d, str) and d != "_self_"), None)
