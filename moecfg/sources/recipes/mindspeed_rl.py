"""MindSpeed-RL's training config (`configs/grpo_*.yaml`: megatron_training / actor_config / rl_config /
generate_config) as a launch: the settings `python cli/train_grpo.py --config-name <it>` runs with.

Ascend/MindSpeed-RL@05a90d7: cli/train_grpo.py:251-254 builds the actor's Megatron config from the model file's
section (`defaults: - model: [deepseekv3_671b]` -> configs/model/deepseekv3_671b.yaml, its `deepseekv3_671b:` mapping,
chosen by `model:`), then `megatron_training`, then `actor_config` over it (mindspeed_rl/config_cls/base_config.py:13-33).
Each setting becomes one word `<section>.<key>=<value>` (Hydra's override form) positioned at its value; the model
file's settings are `model.<key>=<value>`, positioned at the `defaults` entry that names it (the file is read only
inside the checked folder). The command starts with the word `mindspeed-rl` (trainers/mindspeed_rl reads it).
"""
from __future__ import annotations

import os

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import Span, YamlDocument
from moecfg.sources.recipes.overrides import scalar as _scalar, span as _span, text as _text, words as _words

COMMAND = "mindspeed-rl"
SECTIONS = ("megatron_training", "actor_config", "rl_config", "generate_config", "ref_config", "reward_config")


def is_mindspeed_rl(data) -> bool:
    return isinstance(data, dict) and isinstance(data.get("actor_config"), dict) and \
        isinstance(data.get("generate_config"), dict) and isinstance(data.get("rl_config"), dict)


def read_mindspeed_rl(doc: YamlDocument, name: str = "", root: str | None = None) -> LaunchFile | None:
    data = doc.data
    if not is_mindspeed_rl(data):
        return None
    at = _span(doc, ("actor_config",), key=True)
    words = [Word(COMMAND, at)]
    model, model_at = _model_name(doc)
    if model:
        settings = _model_file(name, root, model)
        for key, value in (settings or {}).items():
            if isinstance(key, str) and _scalar(value):
                words.append(Word(f"model.{key}={_text(value)}", model_at))
        if settings is None:
            words.append(Word(f"model={model}", model_at))  # named, its file not read: the trainer says so
    words += _words(doc, SECTIONS)
    return LaunchFile(launches=[Launch(tuple(words), {}, "yaml")])


def _model_name(doc: YamlDocument) -> tuple[str | None, Span]:
    """The model section the actor uses: `actor_config.model`, else `megatron_training.model` (base_config.py:17-22)."""
    for section in ("actor_config", "megatron_training"):
        value = doc.data.get(section, {}).get("model") if isinstance(doc.data.get(section), dict) else None
        if isinstance(value, str):
            return value, _span(doc, (section, "model"))
    return None, Span(1, 1, 1, 1)


def _model_file(name: str, root: str | None, model: str) -> dict | None:
    """The `<model>:` mapping of configs/model/<model>.yaml beside the config (Hydra's `model` group), or None."""
    if not name or "/" in model or "\\" in model or model.startswith("."):
        return None
    path = os.path.join(os.path.dirname(name), "model", f"{model}.yaml")
    from moecfg.sources import contained, files
    from moecfg.sources.manifests.yaml_source import YamlProblem, decode, parse_stream

    own = os.path.realpath(os.path.dirname(os.path.abspath(name)))
    roots = (os.path.realpath(root),) if root else (own,) + contained.tree_roots()
    try:
        docs = parse_stream(decode(contained.read_inside(path, os.getcwd(), roots)))
    except (files.Unreadable, YamlProblem):
        return None
    data = docs[0].data if docs else None
    section = data.get(model) if isinstance(data, dict) else None
    return section if isinstance(section, dict) else None
