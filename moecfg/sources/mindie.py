"""MindIE-LLM's service configuration (`conf/config.json`) as a launch: what `mindie_llm_server` starts.

Recognised by its keys, not its name: `BackendConfig.ModelDeployConfig.ModelConfig` is a list of model
entries and `BackendConfig.ScheduleConfig` a mapping (Ascend/MindIE-LLM@8b4871a src/server/conf/config.json:56-118).
JSON is YAML, so the YAML reader gives every key its line:column. Each ModelConfig entry becomes one Launch
`mindie_llm_server --worldSize 16 --backendType torch --moe_ep 32 ...`: a synthesised command whose every word
carries the span of the JSON key or value it comes from (as recipes.py does for srt-slurm), so a finding points
at the key that causes it. The environment comes from MindIE-Motor's env file `conf/mindie_env.json` beside the
config (`mindie_common_env`; a variable set there only for a server role, e.g. `mindie_server_decode_env`, is
taken from that role), read only inside the checked folder.
"""
from __future__ import annotations

import os

from moecfg.sources.launch import EnvEntry, Launch, LaunchFile, Word
from moecfg.sources.yaml_source import Span, YamlDocument

COMMAND = "mindie_llm_server"  # the service's entry point (docs/zh/user_guide/models/deepseek/deepseek_v3.2.md:209)
MODEL_KEYS = ("worldSize", "backendType", "dp", "tp", "sp", "cp", "pp", "moe_ep", "moe_tp", "modelName",
              "modelWeightPath", "plugin_params")
NESTED_KEY = "models"  # per-model options (atb: models.deepseekv2.parallel_options...): flattened to dotted flags
SCHEDULE_KEYS = ("maxBatchSize", "maxPrefillBatchSize", "maxPrefillTokens")
ENV_FILE = "mindie_env.json"
ENV_COMMON = "mindie_common_env"
_MARKERS = ('"BackendConfig"', '"ModelDeployConfig"')  # cheap test before parsing any JSON


def may_be_mindie(text: str) -> bool:
    return all(m in text for m in _MARKERS)


def model_entries(data) -> list | None:
    """The ModelConfig list of a MindIE config, or None when `data` is not one."""
    backend = data.get("BackendConfig") if isinstance(data, dict) else None
    deploy = backend.get("ModelDeployConfig") if isinstance(backend, dict) else None
    models = deploy.get("ModelConfig") if isinstance(deploy, dict) else None
    if not isinstance(models, list) or not isinstance(backend, dict) or \
            not isinstance(backend.get("ScheduleConfig"), dict):
        return None
    return models


def read_mindie(doc: YamlDocument, name: str, root: str | None) -> LaunchFile | None:
    models = model_entries(doc.data)
    if models is None:
        return None
    backend = doc.data["BackendConfig"]  # type: ignore[index]  # model_entries checked the shape
    head = _head(doc, backend)
    env_path, env = read_env_file(name, root)
    if env_path:
        head += [Word("--env-file", _NOWHERE), Word(env_path, _NOWHERE)]
    out = LaunchFile()
    for i, entry in enumerate(models):
        if not isinstance(entry, dict):
            continue
        path = ("BackendConfig", "ModelDeployConfig", "ModelConfig", i)
        argv = [Word(COMMAND, _span(doc, path, True))] + head + _flags(doc, path, entry, MODEL_KEYS)
        argv += _nested(doc, path + (NESTED_KEY,), entry.get(NESTED_KEY), NESTED_KEY)
        argv += _flags(doc, ("BackendConfig", "ScheduleConfig"), backend["ScheduleConfig"], SCHEDULE_KEYS)
        name_ = entry.get("modelName")
        out.launches.append(Launch(tuple(argv), dict(env), "mindie", None, name_ if isinstance(name_, str) else None))
    if not out.launches:
        out.skipped = "MindIE config.json without a ModelConfig entry"
    return out


def _head(doc, backend: dict) -> list[Word]:
    out = []
    value = backend.get("multiNodesInferEnabled")
    if isinstance(value, bool):
        path = ("BackendConfig", "multiNodesInferEnabled")
        out += [Word("--multiNodesInferEnabled", _span(doc, path, True)), Word(str(value).lower(), _span(doc, path))]
    ids = backend.get("npuDeviceIds")  # [[0, 1, ...]]: the devices of this node (one list per model instance)
    if isinstance(ids, list) and ids and isinstance(ids[0], list):
        path = ("BackendConfig", "npuDeviceIds")
        out += [Word("--npuDeviceIds", _span(doc, path, True)), Word(str(len(ids[0])), _span(doc, path))]
    return out


def _nested(doc, path: tuple, table, prefix: str, depth: int = 0) -> list[Word]:
    """`"models": {"deepseekv2": {"ep_level": 2}}` -> `--models.deepseekv2.ep_level 2` (scalars only)."""
    if not isinstance(table, dict) or depth > 4:
        return []
    words = []
    for key, value in table.items():
        if not isinstance(key, str):
            continue
        if isinstance(value, dict):
            words += _nested(doc, path + (key,), value, f"{prefix}.{key}", depth + 1)
        elif value is not None and not isinstance(value, list):
            text = str(value).lower() if isinstance(value, bool) else str(value)
            words += [Word(f"--{prefix}.{key}", _span(doc, path + (key,), True)), Word(text, _span(doc, path + (key,)))]
    return words


def _span(doc: YamlDocument, path: tuple, key: bool = False) -> Span:
    return doc.position(path, at_key=key)


def _flags(doc, path: tuple, table: dict, keys: tuple) -> list[Word]:
    words = []
    for key in keys:
        value = table.get(key)
        if value is None or isinstance(value, (dict, list)):
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        words += [Word("--" + key, _span(doc, path + (key,), True)), Word(text, _span(doc, path + (key,)))]
    return words


_NOWHERE = Span(1, 1, 1, 1)


def env_file_path(name: str) -> str | None:
    """`conf/mindie_env.json` beside the config, or the config's own folder when it sits in `conf/`."""
    if not name or name == "-":
        return None
    folder = os.path.dirname(name)
    for candidate in (os.path.join(folder, "conf", ENV_FILE), os.path.join(folder, ENV_FILE)):
        if os.path.isfile(candidate):
            return candidate
    return None


def read_env_file(name: str, root: str | None) -> tuple[str | None, dict]:
    """(the env file's path, its variables as EnvEntry by name); (None, {}) when there is none or it cannot be
    read as the env file (never a finding: the env file is evidence, not the checked file)."""
    path = env_file_path(name)
    if path is None:
        return None, {}
    from moecfg.sources import files
    from moecfg.sources.yaml_source import YamlProblem, decode, parse_stream
    try:
        docs = parse_stream(decode(files.read(files.Entry(path, root))))
    except (files.Unreadable, YamlProblem):
        return None, {}
    data = docs[0].data if docs else None
    if not isinstance(data, dict) or not isinstance(data.get(ENV_COMMON), dict):
        return None, {}
    return path, _env_entries(data)


def _env_entries(data: dict) -> dict:
    out: dict[str, EnvEntry] = {}
    sections = [ENV_COMMON] + sorted(k for k in data if isinstance(k, str) and k.startswith("mindie_server_"))
    for section in sections:
        table = data.get(section)
        if not isinstance(table, dict):
            continue
        for key, value in table.items():
            if isinstance(key, str) and key not in out and not isinstance(value, (dict, list)):
                text = None if value is None else str(value)
                out[key] = EnvEntry(key, text, _NOWHERE)  # a position in another file: not one in config.json
    return out
