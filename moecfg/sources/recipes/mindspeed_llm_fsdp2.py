"""A MindSpeed-LLM FSDP2 config (Ascend/MindSpeed-LLM examples/fsdp2/<model>/*.yaml: `model`, `data`, `parallel`,
`training` sections, the `parallel` section flat: `fsdp_size`, `ep_size`, `ep_dispatcher`, `fsdp_modules`, ...) as the
launch `torchrun ... train_fsdp2.py <it>` runs.

Ascend/MindSpeed-LLM@c77308a mindspeed_llm/fsdp2/utils/arguments.py:371-503 (ParallelArguments, the fields the
`parallel` section fills), :1042-1078 (the YAML becomes `--<section>.<field> <value>` words after the file, below the
command line's). Each setting becomes one word `parallel.<key>=<value>` at its value (overrides.py); the command
starts with the word `mindspeed-llm-fsdp2` (trainers/mindspeed_llm_fsdp2). MindSpeed-MM's configs (`parallel.ep_plan`
/ `fsdp_plan`) are read by mindspeed_mm.py before this reader is asked.
"""
from __future__ import annotations

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import YamlDocument
from moecfg.sources.recipes.overrides import span, words

COMMAND = "mindspeed-llm-fsdp2"
# ParallelArguments fields only MindSpeed-LLM's flat `parallel` section has (MindSpeed-MM nests them in *_plan)
_FLAT = ("fsdp_modules", "ep_modules", "ep_dispatcher", "ep_fsdp_size", "fsdp_size")


def is_config(data) -> bool:
    parallel = data.get("parallel") if isinstance(data, dict) else None
    return isinstance(parallel, dict) and any(k in parallel for k in _FLAT) and \
        isinstance(data.get("training"), dict) and isinstance(data.get("model"), dict)


def read_mindspeed_llm_fsdp2(doc: YamlDocument) -> LaunchFile | None:
    if not is_config(doc.data):
        return None
    at = span(doc, ("parallel",), key=True)
    return LaunchFile(launches=[Launch(tuple([Word(COMMAND, at)] + words(doc, ("parallel",))), {}, "yaml")])
