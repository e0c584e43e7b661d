"""A ChatLearn config (alibaba/ChatLearn template/*.yaml, Pai-Megatron-Patch examples/qwen3/chatlearn_configs/
grpo_megatron.yaml: top-level `runtime_args` and `models` with `policy_trainer` / `policy`) as the launch
`python chatlearn/entrypoint.py grpo --config-file <it>` runs with no override: every setting one word
`<dotted.path>=<value>` at its value (overrides.py), after the words `chatlearn grpo` (trainers/chatlearn reads them).

alibaba/ChatLearn@248875a chatlearn/entrypoint.py:94-99 loads the file with OmegaConf, applies the command's
`key=value` words to it and merges it over the algorithm's dataclass (GrpoConfig). `config_settings` reads the file a
shell launch names (`--config-file`), inside the checked folder only, for trainers/chatlearn.
"""
from __future__ import annotations

import os

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import YamlDocument
from moecfg.sources.recipes.overrides import flat, span, text, words

COMMAND = "chatlearn"
SECTIONS = ("runtime_args", "models")


def is_chatlearn_config(data) -> bool:
    models = data.get("models") if isinstance(data, dict) else None
    return isinstance(data.get("runtime_args") if isinstance(data, dict) else None, dict) and \
        isinstance(models, dict) and any(isinstance(models.get(k), dict) for k in ("policy_trainer", "policy"))


def read_chatlearn_config(doc: YamlDocument) -> LaunchFile | None:
    if not is_chatlearn_config(doc.data):
        return None
    at = span(doc, ("models",), key=True)
    argv = [Word(COMMAND, at), Word("grpo", at)] + words(doc, SECTIONS)
    return LaunchFile(launches=[Launch(tuple(argv), {}, "yaml")])


def config_settings(path: str, folder: str) -> dict[str, str] | str:
    """`{dotted.key: value}` of the ChatLearn config at `path` (relative to `folder`, the launch's working folder), or
    why it is not read (outside the checked folder, missing, not a ChatLearn config)."""
    from moecfg.sources import contained, files
    from moecfg.sources.manifests.yaml_source import YamlProblem, decode, parse_stream

    try:
        docs = parse_stream(decode(contained.read_inside(path, folder, contained.tree_roots())))
    except files.Unreadable as exc:
        return str(exc)
    except YamlProblem:
        return "not valid YAML"
    data = docs[0].data if docs else None
    if not is_chatlearn_config(data):
        return "not a ChatLearn config (no runtime_args and models.policy_trainer / models.policy)"
    return {".".join(keys): text(value) for section in SECTIONS
            for keys, value in flat(data.get(section), (section,))}


def working_folder(file: str | None, entry: str | None = None) -> str:
    """The folder a shell launch runs in: its script's (Pai's `python chatlearn_entrypoint.py` sits beside it), or,
    when the relative entry script is not there, the nearest folder above it inside the checked tree that holds it:
    ChatLearn's own scripts run `python chatlearn/entrypoint.py grpo --config-file template/grpo_megatron.yaml` from the
    repository root (alibaba/ChatLearn@b7af31a scripts/mcore_vllm/train_mcore_vllm_qwen3_30b_grpo.sh:11,26)."""
    from moecfg.sources import contained

    own = os.path.dirname(os.path.abspath(file)) if file else os.getcwd()
    if not entry or os.path.isabs(entry) or os.path.isfile(os.path.join(own, entry)):
        return own
    root = contained.tree_roots()[0]
    folder = own
    while os.path.realpath(folder).startswith(root.rstrip(os.sep) + os.sep):  # strictly inside: the root is last
        folder = os.path.dirname(folder)
        if os.path.isfile(os.path.join(folder, entry)):
            return folder
    return own
