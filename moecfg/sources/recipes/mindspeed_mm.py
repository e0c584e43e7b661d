"""A MindSpeed-MM FSDP2 training config (Ascend/MindSpeed-MM examples/*/<model>_config.yaml: a `parallel:` section with
`expert_parallel_size` and an `ep_plan`) as the launch `torchrun ... mindspeed_mm/fsdp/train/trainer.py <it>` runs.

Ascend/MindSpeed-MM@57069cd mindspeed_mm/fsdp/params/parallel_args.py:44-150 (the `parallel` arguments the YAML
fills). Each setting becomes one word `parallel.<key>=<value>` at its value (overrides.py); the command starts with the
word `mindspeed-mm` (trainers/mindspeed_mm).
"""
from __future__ import annotations

from moecfg.sources.launch import Launch, LaunchFile, Unread, Word
from moecfg.sources.manifests.yaml_source import YamlDocument
from moecfg.sources.recipes.overrides import span, words

COMMAND = "mindspeed-mm"
LEGACY = "mindspeed-mm-fsdp2-config"
# mindspeed_mm/models/transformers/base_model.py:220-249 Fsdp2Config: the keys only its flat YAML has
_LEGACY_KEYS = ("sharding_size", "moe_modules", "reshard_local_experts", "num_to_forward_prefetch")


def is_mindspeed_mm_config(data) -> bool:
    parallel = data.get("parallel") if isinstance(data, dict) else None
    return isinstance(parallel, dict) and ("ep_plan" in parallel or "fsdp_plan" in parallel) and (
        "model" in data or "data" in data or "training" in data)


def read_mindspeed_mm_config(doc: YamlDocument) -> LaunchFile | None:
    data = doc.data
    if isinstance(data, dict) and isinstance(data.get("gpt_args"), dict) and "MM_TOOL_PATH" in data:
        return _mcore(doc)
    if isinstance(data, dict) and "expert_parallel_size" in data and any(k in data for k in _LEGACY_KEYS):
        return _legacy(doc)
    if not is_mindspeed_mm_config(data):
        return None
    at = span(doc, ("parallel",), key=True)
    return LaunchFile(launches=[Launch(tuple([Word(COMMAND, at)] + words(doc, ("parallel",))), {}, "yaml")])


def _legacy(doc: YamlDocument) -> LaunchFile:
    """The FSDP2 config of MindSpeed-MM's Megatron-based trainer (pretrain_transformers.py: the model config's
    `fsdp2_config_path`, read by Fsdp2Config.load_from_yaml, base_model.py:275-283): its top-level keys as words."""
    at = span(doc, ("expert_parallel_size",), key=True)
    keys = [k for k in ("expert_parallel_size", "moe_modules", "reshard_local_experts") if k in doc.data]
    return LaunchFile(launches=[Launch(tuple([Word(LEGACY, at)] + words(doc, keys)), {}, "yaml")])


def _mcore(doc: YamlDocument) -> LaunchFile:
    """A config of MindSpeed-MM's mcore trainers (mindspeed_mm/mcore/models/<model>/pretrain_<model>.py <config>):
    `gpt_args` become the Megatron arguments of MindSpeed (mindspeed_mm/configs/read_yaml_config.py:9-76) and the MoE
    shapes live in `model.text_decoder`; moecfg does not derive that pair: listed, not guessed."""
    at = span(doc, ("gpt_args",), key=True)
    return LaunchFile(unread=[Unread(at, "MindSpeed-MM mcore", "MindSpeed-MM mcore config not read: gpt_args are "
                                     "the Megatron arguments of mindspeed_mm/mcore/models/*/pretrain_*.py and "
                                     "model.text_decoder its MoE layers (read_yaml_config.py); moecfg does not derive "
                                     "that pair")])
