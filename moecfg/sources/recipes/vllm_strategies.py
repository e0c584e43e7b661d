"""The serving strategies of a vllm-project/recipes checkout: `strategies/*.yaml` at the repository's top, each a
mapping with `name`, `deploy_type`, `vllm_args`, `parallel_flag`, `env` (pd_cluster: `prefill:` / `decode:` blocks).

The recipes site loads every `strategies/*.yaml` and keys it by its `name:` field, not its file name
(vllm-project/recipes@8959cf6 src/lib/strategies.js:14-26, scripts/build-recipes-api.mjs:576-583). A model recipe
sits at `models/<org>/<model>.yaml`, so the folder is found by walking up from the recipe's folder (at most
MAX_UP levels) and is read only when it lies inside the folder being checked (`moecfg check DIR`; for a recipe
named alone, the current folder when the recipe is inside it): nothing outside the checked tree is read, as for
`source FILE` (shell/sourced.py). Strategy files are read as sourced files are: regular UTF-8 files of at most
sourced.MAX_BYTES, at most MAX_FILES of them; one that cannot be read or parsed is left out.
"""
from __future__ import annotations

import os

from moecfg.sources.shell import sourced

MAX_UP = 4  # models/<org>/<model>.yaml -> the repository's top is two levels up; a nested layout a little more
MAX_FILES = 64
FOLDER = "strategies"

_cache: dict[tuple, dict] = {}  # (folder, its files' (name, mtime, size)) -> {strategy name: data}


def is_strategy(data) -> bool:
    """A strategy file, by its keys: `name` and `deploy_type` strings and a `vllm_args` list, a `parallel_flag` or
    role blocks holding `vllm_args` (the KV-store deployments under kv_store/ have the same shape)."""
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) \
            or not isinstance(data.get("deploy_type"), str):
        return False
    roles = [data.get(r) for r in ("prefill", "decode", "vllm")]
    return isinstance(data.get("vllm_args"), list) or isinstance(data.get("parallel_flag"), str) \
        or any(isinstance(r, dict) and isinstance(r.get("vllm_args"), list) for r in roles)


def check_root(name: str, root: str | None) -> str | None:
    """The folder strategy files may be read from: the checked folder, or for a recipe named alone the current
    folder when the recipe is inside it; None for text without a file."""
    if not name or name == "<stdin>" or not os.path.isfile(name):
        return None
    if root:
        return os.path.realpath(root)
    here = os.path.realpath(os.getcwd())
    return here if _inside(os.path.realpath(name), here) else None


def strategies_for(name: str, root: str | None) -> tuple[str, dict] | None:
    """(the strategies folder relative to the checked folder, {strategy name: data}) for the recipe file `name`;
    None when no strategies folder lies above it inside the checked folder."""
    top = check_root(name, root)
    if top is None:
        return None
    folder = os.path.dirname(os.path.realpath(name))
    for _ in range(MAX_UP + 1):
        if not _inside(folder, top):
            return None
        candidate = os.path.join(folder, FOLDER)
        if os.path.isdir(candidate) and _inside(os.path.realpath(candidate), top):
            found = _load(os.path.realpath(candidate), top)
            if found:
                return os.path.relpath(candidate, top), found
        if folder == top:
            return None
        folder = os.path.dirname(folder)
    return None


def _load(folder: str, top: str) -> dict:
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith((".yaml", ".yml")))[:MAX_FILES]
    except OSError:
        return {}
    stamp = []
    for n in names:
        try:
            st = os.stat(os.path.join(folder, n))
        except OSError:
            continue
        stamp.append((n, st.st_mtime_ns, st.st_size))
    key = (folder, tuple(stamp))
    if key not in _cache:
        _cache.clear()  # one repository per run: the last folder read is the one asked again
        _cache[key] = _read_all(folder, top, names)
    return _cache[key]


def _read_all(folder: str, top: str, names: list[str]) -> dict:
    from moecfg.sources.manifests.yaml_source import YamlProblem, parse_stream

    out: dict = {}
    for n in names:
        path = os.path.join(folder, n)
        if not _inside(os.path.realpath(path), top):
            continue
        text = sourced._read(os.path.realpath(path))
        try:
            docs = parse_stream(text) if text is not None else []
        except YamlProblem:
            continue
        data = docs[0].data if docs else None
        if is_strategy(data):
            out[data["name"]] = data  # the site keeps the last file of a name (build-recipes-api.mjs:581)
    return out


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)
