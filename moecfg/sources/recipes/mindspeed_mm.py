"""A MindSpeed-MM FSDP2 training config (Ascend/MindSpeed-MM examples/*/<model>_config.yaml: a `parallel:` section with
`expert_parallel_size` and an `ep_plan`) as the launch `torchrun ... mindspeed_mm/fsdp/train/trainer.py <it>` runs.

Ascend/MindSpeed-MM@57069cd mindspeed_mm/fsdp/params/parallel_args.py:44-150 (the `parallel` arguments the YAML
fills). Each setting becomes one word `parallel.<key>=<value>` at its value (overrides.py); the command starts with the
word `mindspeed-mm` (trainers/mindspeed_mm).
"""
from __future__ import annotations

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import YamlDocument
from moecfg.sources.recipes.overrides import span, words

COMMAND = "mindspeed-mm"


def is_mindspeed_mm_config(data) -> bool:
    parallel = data.get("parallel") if isinstance(data, dict) else None
    return isinstance(parallel, dict) and ("ep_plan" in parallel or "fsdp_plan" in parallel) and (
        "model" in data or "data" in data or "training" in data)


def read_mindspeed_mm_config(doc: YamlDocument) -> LaunchFile | None:
    if not is_mindspeed_mm_config(doc.data):
        return None
    at = span(doc, ("parallel",), key=True)
    return LaunchFile(launches=[Launch(tuple([Word(COMMAND, at)] + words(doc, ("parallel",))), {}, "yaml")])
