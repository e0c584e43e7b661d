"""MindIE-LLM's service configuration (`conf/config.json`) as a launch: what `mindie_llm_server` starts.

Recognised by its keys, not its name: `BackendConfig.ModelDeployConfig.ModelConfig` is a list of model
entries and `BackendConfig.ScheduleConfig` a mapping (Ascend/MindIE-LLM@8b4871a src/server/conf/config.json:56-118).
JSON is YAML, so the YAML reader gives every key its line:column. Each ModelConfig entry becomes one Launch
`mindie_llm_server --worldSize 16 --backendType torch --moe_ep 32 ...`: a synthesised command whose every word
carries the span of the JSON key or value it comes from (as recipes/srt_slurm.py does for srt-slurm), so a finding points
at the key that causes it. The environment comes from MindIE-Motor's env file `conf/mindie_env.json` beside the
config (`mindie_common_env`; a variable set there only for a server role, e.g. `mindie_server_decode_env`, is
taken from that role), read only inside the checked folder.
"""
from __future__ import annotations

import os

from moecfg.sources.launch import EnvEntry, Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import Span, YamlDocument

COMMAND = "mindie_llm_server"  # the service's entry point (docs/zh/user_guide/models/deepseek/deepseek_v3.2.md:209)
MODEL_KEYS = ("worldSize", "backendType", "dp", "tp", "sp", "cp", "pp", "moe_ep", "moe_tp", "modelName",
              "modelWeightPath", "plugin_params")
NESTED_KEY = "models"  # per-model options (atb: models.deepseekv2.parallel_options...): flattened to dotted flags
SCHEDULE_KEYS = ("maxBatchSize", "maxPrefillBatchSize", "maxPrefillTokens", "distributedEnable")
ROLES = ("prefill", "decode")  # MindIE-Motor user_config.json: mindie_server_{role}_config / mindie_server_{role}_env
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
    """A service config.json, or MindIE-Motor's `user_config*.json` (one BackendConfig per PD role)."""
    if model_entries(doc.data) is not None:
        roles = [((), None)]
    elif isinstance(doc.data, dict):
        roles = [((f"mindie_server_{r}_config",), r) for r in ROLES
                 if model_entries(doc.data.get(f"mindie_server_{r}_config")) is not None]
    else:
        roles = []
    if not roles:
        return None
    deploy = doc.data.get("deploy_config") if roles[0][1] else None
    deploy = deploy if isinstance(deploy, dict) else {}
    env_path, env_file = read_env_file(name, root, deploy.get("mindie_env_path"))
    out = LaunchFile()
    for base, role in roles:
        launches = _role_launches(doc, base, role, env_path, _role_env(env_file, role))
        hardware = deploy.get("hardware_type")  # Motor: "800I_A2" | "800I_A3"
        if isinstance(hardware, str):
            at = _span(doc, ("deploy_config", "hardware_type"))
            launches = [Launch(x.argv + (Word("--hardware_type", at), Word(hardware, at)), x.env, x.context,
                               x.image, x.container) for x in launches]
        out.launches += launches
    if not out.launches:
        out.skipped = "MindIE config.json without a ModelConfig entry"
    return out


def _role_launches(doc, base: tuple, role: str | None, env_path: str | None, env: dict) -> list[Launch]:
    data = doc.data
    for key in base:
        data = data[key]
    backend = data["BackendConfig"]
    head = _head(doc, backend, base)
    if env_path:
        head += [Word("--env-file", _NOWHERE), Word(env_path, _NOWHERE)]
    if role:  # MindIE-Motor's PD role (the section's key), as the server's model_role
        head += [Word("--role", _span(doc, base, True)), Word(role, _span(doc, base, True))]
    out = []
    for i, entry in enumerate(backend["ModelDeployConfig"]["ModelConfig"]):
        if not isinstance(entry, dict):
            continue
        path = base + ("BackendConfig", "ModelDeployConfig", "ModelConfig", i)
        argv = [Word(COMMAND, _span(doc, path, True))] + head + _flags(doc, path, entry, MODEL_KEYS)
        argv += _nested(doc, path + (NESTED_KEY,), entry.get(NESTED_KEY), NESTED_KEY)
        argv += _flags(doc, base + ("BackendConfig", "ScheduleConfig"), backend["ScheduleConfig"], SCHEDULE_KEYS)
        name_ = entry.get("modelName") if isinstance(entry.get("modelName"), str) else None
        label = f"{role}: {name_ or 'model'}" if role else name_  # the role names a call-less result's phase
        out.append(Launch(tuple(argv), dict(env), "mindie", None, label))
    return out


def _head(doc, backend: dict, base: tuple = ()) -> list[Word]:
    out = []
    value = backend.get("multiNodesInferEnabled")
    if isinstance(value, bool):
        path = base + ("BackendConfig", "multiNodesInferEnabled")
        out += [Word("--multiNodesInferEnabled", _span(doc, path, True)), Word(str(value).lower(), _span(doc, path))]
    ids = backend.get("npuDeviceIds")  # [[0, 1, ...]]: the devices of this node (one list per model instance)
    if isinstance(ids, list) and ids and isinstance(ids[0], list):
        path = base + ("BackendConfig", "npuDeviceIds")
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


def env_file_path(name: str, named=None) -> str | None:
    """`conf/mindie_env.json` beside the config, or the config's own folder when it sits in `conf/`; a Motor
    user_config's `deploy_config.mindie_env_path` (`./conf/mindie_env_a3.json`) when it names a relative path."""
    if not name or name == "-":
        return None
    folder = os.path.dirname(name)
    own = [os.path.join(folder, named)] if isinstance(named, str) and named and not os.path.isabs(named) and \
        ".." not in named.replace("\\", "/").split("/") else []
    for candidate in own + [os.path.join(folder, "conf", ENV_FILE), os.path.join(folder, ENV_FILE)]:
        candidate = os.path.normpath(candidate) if folder else candidate
        if os.path.isfile(candidate):
            return candidate
    return None


def read_env_file(name: str, root: str | None, named=None) -> tuple[str | None, dict]:
    """(the env file's path, its parsed sections); (None, {}) when there is none or it cannot be read as the env
    file (never a finding: the env file is evidence, not the checked file)."""
    path = env_file_path(name, named)
    if path is None:
        return None, {}
    from moecfg.sources import contained, files
    from moecfg.sources.manifests.yaml_source import YamlProblem, decode, parse_stream
    # links resolved, the real path inside the checked tree (a `conf` folder linked out of it is not read:
    # files.read checks only the file's own link)
    own = os.path.realpath(os.path.dirname(os.path.abspath(name)))  # a config named alone: its own folder
    roots = (os.path.realpath(root),) if root else (own,) + contained.tree_roots()
    try:
        docs = parse_stream(decode(contained.read_inside(path, os.getcwd(), roots)))
    except (files.Unreadable, YamlProblem):
        return None, {}
    data = docs[0].data if docs else None
    if not isinstance(data, dict) or not isinstance(data.get(ENV_COMMON), dict):
        return None, {}
    return path, data


def _role_env(data: dict | None, role: str | None) -> dict:
    """The variables a server sees: mindie_common_env with its role's section over it (Motor's PD deployments);
    without a role, the common section then any mindie_server_*_env for a variable the common one does not set."""
    if not data:
        return {}
    if role:
        sections = [f"mindie_server_{role}_env", ENV_COMMON]
    else:
        sections = [ENV_COMMON] + sorted(k for k in data if isinstance(k, str) and k.startswith("mindie_server_"))
    out: dict[str, EnvEntry] = {}
    for section in sections:
        table = data.get(section)
        if not isinstance(table, dict):
            continue
        for key, value in table.items():
            if isinstance(key, str) and key not in out and not isinstance(value, (dict, list)):
                text = None if value is None else str(value)
                out[key] = EnvEntry(key, text, _NOWHERE)  # a position in another file: not one in config.json
    return out
