"""A LLaMA-Factory training config (hiyouga/LLaMA-Factory examples/**/*.yaml: flat HfArgumentParser keys,
`model_name_or_path`, `stage`, `finetuning_type`, ...) as the launch `llamafactory-cli train <it>` runs, when it is
one of the two kinds moecfg reads:
- a Megatron config (a top-level `tensor_model_parallel_size` / `expert_model_parallel_size` / ... key): run with
  USE_MCA=1 (mcore_adapter's TrainingArguments) or USE_MEGATRON_BRIDGE=1 (MegatronBridgeArguments); without either,
  HfArgumentParser refuses those keys (src/llamafactory/hparams/parser.py:397-420);
- a v1 config (`model:` + `dist_config:`, run with USE_V1=1, src/llamafactory/cli.py:19-20).
Each top-level setting becomes one word `<key>=<value>` at its value (overrides.py); the command starts with the word
`llamafactory` (trainers/llamafactory reads it).
"""
from __future__ import annotations

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import YamlDocument
from moecfg.sources.recipes.overrides import span, words

COMMAND = "llamafactory"
_V1_DIST = ("fsdp2", "fsdpturbo", "deepspeed")
MEGATRON_KEYS = ("tensor_model_parallel_size", "pipeline_model_parallel_size", "expert_model_parallel_size",
                 "context_parallel_size", "expert_tensor_parallel_size")


def is_llamafactory_config(data) -> bool:
    if not isinstance(data, dict):
        return False
    megatron = "model_name_or_path" in data and "stage" in data and any(k in data for k in MEGATRON_KEYS)
    dist = data.get("dist_config")  # v1's distributed plugins (v1/plugins/trainer_plugins/distributed/)
    v1 = isinstance(dist, dict) and dist.get("name") in _V1_DIST  # a documentation fragment may hold it alone
    return megatron or v1


def read_llamafactory_config(doc: YamlDocument) -> LaunchFile | None:
    if not is_llamafactory_config(doc.data):
        return None
    first = next(iter(doc.data))
    argv = [Word(COMMAND, span(doc, (first,), key=True))] + words(doc, tuple(k for k in doc.data if isinstance(k, str)))
    return LaunchFile(launches=[Launch(tuple(argv), {}, "yaml")])
