"""miles' `--sglang-config` YAML (radixark/miles, a slime fork): the SGLang servers of the rollout, one per engine.

    sglang:
      - name: default
        server_groups:
          - worker_type: prefill          # regular | prefill | decode | placeholder (no engine)
            num_gpus: 4
            num_gpus_per_engine: 4
            overrides: {ep_size: 4, dp_size: 4, deepep_mode: normal}

Read at radixark/miles@31f1ca9: miles/backends/sglang_utils/sglang_config.py:12-37 (ServerGroupConfig), :63-90
(ModelConfig.resolve: a group's num_gpus_per_engine, else the model's, else --rollout-num-gpus-per-engine; model_path
the model's, else --hf-checkpoint), :146-167 (from_yaml: `sglang:` list, `engine_groups` alias);
miles/backends/sglang_utils/sglang_engine.py:696-813 (_compute_server_args: tp_size = GPUs per engine, nnodes =
max(1, GPUs per engine // --num-gpus-per-node), prefill / decode set disaggregation_mode, then the group's overrides
win, then every `--sglang-<field>` of the launch fills a field the overrides leave unset).

Each engine-running group becomes one `python3 -m sglang.launch_server` launch: --tp-size from the group or the model
(else unknown: the launch's --rollout-num-gpus-per-engine), --disaggregation-mode for prefill / decode, the overrides
as flags (ServerArgs field `ep_size` -> `--ep-size`). What the launch gives is not in the file and stays unknown:
the model (--hf-checkpoint) unless the YAML names it, --nnodes (the launch's --num-gpus-per-node), and the MoE
all-to-all backend (the launch's --sglang-moe-a2a-backend) unless an override sets it.
"""
from __future__ import annotations

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import Span, YamlDocument

_ENGINES = ("regular", "prefill", "decode")
_FROM_LAUNCH = ("moe_a2a_backend",)  # MoE settings the launch's --sglang-* flags give when no override does


def _groups(model: dict):
    groups = model.get("server_groups") or model.get("engine_groups")
    return groups if isinstance(groups, list) else None


def is_miles_config(data) -> bool:
    models = data.get("sglang") if isinstance(data, dict) else None
    return isinstance(models, list) and bool(models) and all(
        isinstance(m, dict) and _groups(m) is not None and all(
            isinstance(g, dict) and isinstance(g.get("worker_type"), str) for g in _groups(m)) for m in models)


def read_miles_config(doc: YamlDocument) -> LaunchFile | None:
    if not is_miles_config(doc.data):
        return None
    out = LaunchFile()
    for i, model in enumerate(doc.data["sglang"]):
        key = "server_groups" if model.get("server_groups") else "engine_groups"
        for j, group in enumerate(_groups(model)):
            if group["worker_type"] in _ENGINES:
                out.launches.append(_launch(doc, model, group, ("sglang", i, key, j), i))
    if not out.launches:
        out.skipped = "miles sglang config without an engine group (placeholder groups only)"
    return out


def _launch(doc: YamlDocument, model: dict, group: dict, path: tuple, i: int) -> Launch:
    at = _span(doc, path + ("worker_type",))
    words = [Word("python3", at), Word("-m", at), Word("sglang.launch_server", at)]
    overrides = group.get("overrides") if isinstance(group.get("overrides"), dict) else {}
    if "model_path" not in overrides:
        where = ("sglang", i, "model_path")
        words += [Word("--model-path", _span(doc, where) if model.get("model_path") else at),
                  Word(str(model["model_path"]), _span(doc, where)) if isinstance(model.get("model_path"), str)
                  else Word(None, at, False, "${--hf-checkpoint}")]
    gpus, gpath = (group.get("num_gpus_per_engine"), path + ("num_gpus_per_engine",))
    if gpus is None:
        gpus, gpath = model.get("num_gpus_per_engine"), ("sglang", i, "num_gpus_per_engine")
    words += [Word("--tp-size", _span(doc, gpath) if gpus is not None else at),
              Word(str(gpus), _span(doc, gpath)) if gpus is not None
              else Word(None, at, False, "${--rollout-num-gpus-per-engine}")]
    if "nnodes" not in overrides:
        words += [Word("--nnodes", at), Word(None, at, False, "${GPUs per engine / --num-gpus-per-node}")]
    if group["worker_type"] != "regular":
        words += [Word("--disaggregation-mode", at), Word(group["worker_type"], at)]
    for name in _FROM_LAUNCH:
        if name not in overrides:
            words += [Word("--" + name.replace("_", "-"), at), Word(None, at, False, f"${{--sglang-{name.replace('_', '-')}}}")]
    for name, value in overrides.items():
        if not isinstance(name, str) or value is None or value is False:
            continue
        vpath = path + ("overrides", name)
        words.append(Word("--" + name.replace("_", "-"), _span(doc, vpath, key=True)))
        if isinstance(value, (dict, list)):  # a ServerArgs field set to an object: not a command-line value here
            words.append(Word(None, _span(doc, vpath, key=True), False, "${...}"))
        elif value is not True:
            words.append(Word(str(value), _span(doc, vpath)))
    return Launch(tuple(words), {}, "yaml")


def _span(doc: YamlDocument, path: tuple, key: bool = False) -> Span:
    table = doc.keys if key else doc.values
    return table.get(path) or doc.keys.get(path) or Span(1, 1, 1, 1)
