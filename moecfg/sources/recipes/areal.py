"""An AReaL experiment config (inclusionAI/AReaL examples/*/*.yaml: `actor.backend: "megatron:(attn:d4p4t2|ffn:
d2p4e4)"`, `rollout.backend: "sglang:d8t4"`, or the older `allocation_mode: sglang:d4t2+megatron:d4e2`, with the
`sglang:` / `vllm:` server sections) as the launch AReaL's trainer runs with it.

inclusionAI/AReaL@4aef98d areal/api/cli_args.py (the config dataclasses the YAML fills). Each setting becomes one word
`<dotted.path>=<value>` at its value (overrides.py); the command starts with the word `areal` (trainers/areal).
"""
from __future__ import annotations

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import YamlDocument
from moecfg.sources.recipes.overrides import span, words

COMMAND = "areal"
SECTIONS = ("allocation_mode", "actor", "rollout", "sglang", "vllm", "cluster")


def is_areal_config(data) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("actor"), dict):
        return False
    backend = data["actor"].get("backend")
    return (isinstance(backend, str) and ":" in backend) or isinstance(data.get("allocation_mode"), str)


def read_areal_config(doc: YamlDocument) -> LaunchFile | None:
    if not is_areal_config(doc.data):
        return None
    at = span(doc, ("actor",), key=True)
    return LaunchFile(launches=[Launch(tuple([Word(COMMAND, at)] + words(doc, SECTIONS)), {}, "yaml")])
