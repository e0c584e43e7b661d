"""Recipe YAML that spells the framework's flags as keys: NVIDIA srt-slurm job files.

    model: {path: dsr1-fp4, ...}
    resources: {gpu_type: gb200, ...}
    backend:
      decode_environment: {SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK: "1024"}
      sglang_config:
        decode: {tp-size: 48, moe-a2a-backend: deepep, cuda-graph-bs: [1, 2, 4], enable-dp-attention: true}

srt-slurm turns each phase's mapping into `python3 -m sglang.launch_server --model-path <model.path> --key value ...`
(srtctl: `--{key}` then `str(value)`; `true` -> the bare flag; a list -> its items; see NVIDIA/srt-slurm
src/srtctl backend configs). One Launch per phase (prefill, decode, aggregated) with that phase's
`<phase>_environment`; every synthesised word carries the span of the key or value it comes from, so a finding on
`--max-running-requests` points at `max-running-requests:` in the recipe. `resources.gpu_type` becomes a GPU hint.
"""
from __future__ import annotations

from moecfg.sources.launch import EnvEntry, Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import Span, YamlDocument

PHASES = ("prefill", "decode", "aggregated", "agg")


def is_recipe(data) -> bool:
    return _root(data) is not None


def _root(data) -> tuple | None:
    """Where the recipe sits: the document, or `base:` in srtctl's override format (NVIDIA/srt-slurm@c88ef73
    src/srtctl/cli/submit.py:1189-1199; the override_* / zip_override_* variants are merged onto it, not read here)."""
    for root in ((), ("base",)):
        node = data
        for key in root:
            node = node.get(key) if isinstance(node, dict) else None
        backend = node.get("backend") if isinstance(node, dict) else None
        if isinstance(backend, dict) and isinstance(backend.get("sglang_config"), dict):
            return root
    return None


def _at(data, root: tuple) -> dict:
    for key in root:
        data = data[key]
    return data


def read_recipe(doc: YamlDocument) -> LaunchFile | None:
    root = _root(doc.data)
    if root is None:
        return None
    out = LaunchFile()
    data = _at(doc.data, root)
    backend = data["backend"]
    hints = _hints(doc, data, root)
    for phase, cfg in backend["sglang_config"].items():
        if phase not in PHASES or not isinstance(cfg, dict):
            continue
        path = root + ("backend", "sglang_config", phase)
        argv = _head(doc, data, root, path) + _flags(doc, path, cfg)
        env = _env(doc, root + ("backend", f"{phase}_environment"), backend.get(f"{phase}_environment"))
        out.launches.append(Launch(tuple(argv), env, "recipe", _image(data), phase, hints))
    if not out.launches:
        out.skipped = "srt-slurm recipe without prefill/decode/aggregated sglang_config"
    return out


def read_megatron_test(doc: YamlDocument) -> LaunchFile | None:
    """A Megatron-LM functional-test model_config.yaml: `MODEL_ARGS: {--flag: value}` is the pretrain_gpt.py
    command line and `ENV_VARS` its environment (NVIDIA/Megatron-LM@d98e8a6 tests/functional_tests/test_cases/
    */model_config.yaml, run by tests/functional_tests/shell_test_utils/run_ci_test.sh)."""
    args = doc.data.get("MODEL_ARGS") if isinstance(doc.data, dict) else None
    if not isinstance(args, dict) or not any(isinstance(k, str) and k.startswith("--") for k in args):
        return None
    at = _span(doc, ("MODEL_ARGS",), key=True)
    argv = [Word("python", at), Word("pretrain_gpt.py", at)] + _flags(doc, ("MODEL_ARGS",), args, prefix="")
    env = _env(doc, ("ENV_VARS",), doc.data.get("ENV_VARS"))
    return LaunchFile(launches=[Launch(tuple(argv), env, "yaml")])


def _image(data) -> str | None:
    """The SGLang image: `model.container` (an image, an enroot `lmsysorg+sglang+v0.5.5.sqsh` file or an alias of
    srtslurm.yaml, which stays unknown), else the recipe's `sglang_version`."""
    model = data.get("model")
    container = model.get("container") if isinstance(model, dict) else None
    if isinstance(container, str) and container:
        base = container.rsplit("/", 1)[-1]
        return base.removesuffix(".sqsh").replace("+", "/").rsplit("/", 1)[0] + ":" + \
            base.removesuffix(".sqsh").rsplit("+", 1)[-1] if base.endswith(".sqsh") and "+" in base else container
    version = data.get("sglang_version")
    return f"sglang:{version}" if isinstance(version, str) else None


def _span(doc, path, key=False) -> Span:
    table = doc.keys if key else doc.values
    return table.get(path) or doc.keys.get(path) or doc.values.get(path[:-1]) or Span(1, 1, 1, 1)


def _head(doc, data, root, path) -> list[Word]:
    at = _span(doc, path, key=True)
    words = [Word("python3", at), Word("-m", at), Word("sglang.launch_server", at)]
    model = data.get("model")
    if isinstance(model, dict) and isinstance(model.get("path"), str):
        words += [Word("--model-path", _span(doc, root + ("model", "path"), key=True)),
                  Word(model["path"], _span(doc, root + ("model", "path")))]
    return words


def _text(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _flags(doc, path, cfg: dict, prefix: str = "--") -> list[Word]:
    words = []
    for key, value in cfg.items():
        if not isinstance(key, str) or value is None or value is False or isinstance(value, dict):
            continue
        kpath = path + (key,)
        words.append(Word(prefix + key, _span(doc, kpath, key=True)))
        if value is True:
            continue
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            at = _span(doc, kpath + (i,)) if isinstance(value, list) else _span(doc, kpath)
            words.append(Word(_text(item), at))
    return words


def _env(doc, path, table) -> dict:
    if not isinstance(table, dict):
        return {}
    return {str(k): EnvEntry(str(k), None if v is None else _text(v), _span(doc, path + (k,), key=True))
            for k, v in table.items()}


def _hints(doc, data, root) -> tuple:
    res = data.get("resources")
    gpu = res.get("gpu_type") if isinstance(res, dict) else None
    if not isinstance(gpu, str):
        return ()
    return ((f"nvidia {gpu}", _span(doc, root + ("resources", "gpu_type"))),)
