"""A container's `envFrom:` (Kubernetes): every key of a ConfigMap or Secret becomes a variable, with `prefix`
before its name. A ConfigMap in the same file (another document of the stream, `data:` strings), or in a YAML
file beside it inside the checked tree, is read, each value at its own line (a fix edits it there). A Secret, or a ConfigMap not in the file, may set any variable
(with that prefix): those names become unknown (OpenEnv), one MC023 info says which source; never a default.

Precedence (kubernetes.io/docs/tasks/inject-data-application/configure-pod-configmap/ "Configure all key-value
pairs in a ConfigMap as container environment variables"; kubernetes/kubernetes pkg/kubelet/kubelet_pods.go
makeEnvironmentVariables: envFrom first, in order, then `env`): a later source wins over an earlier one, the
container's `env:` wins over all (kubernetes.py merges).
"""
from __future__ import annotations

import os
import re
from functools import lru_cache

from moecfg.core import launch_rules as L
from moecfg.sources.launch import Problem
from moecfg.sources.shell.words import Var
from moecfg.sources.textmap import Elsewhere

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


@lru_cache(maxsize=2)
def config_maps(text: str) -> dict:
    """name -> the ConfigMap documents of a file's text (parsed again only for a container with envFrom)."""
    from moecfg.sources.manifests.yaml_source import YamlProblem, parse_stream

    try:
        docs = parse_stream(text)
    except YamlProblem:
        return {}
    out = {}
    for doc in docs:
        data = doc.data
        meta = data.get("metadata") if isinstance(data, dict) else None
        if data.get("kind") == "ConfigMap" if isinstance(data, dict) else False:
            if isinstance(meta, dict) and isinstance(meta.get("name"), str):
                out[meta["name"]] = doc
    return out


def container_env_from(r, path: tuple, env_from, manifest: str = "") -> tuple[dict, tuple | None]:
    """(name -> Var from the sources, (span, why, prefix) of the sources not read or None)."""
    variables: dict[str, Var] = {}
    unread = None
    for i, item in enumerate(env_from if isinstance(env_from, list) else []):
        if not isinstance(item, dict):
            continue
        prefix = item.get("prefix") if isinstance(item.get("prefix"), str) else ""
        kind = next((k for k in ("configMapRef", "secretRef") if isinstance(item.get(k), dict)), None)
        if kind is None:
            continue
        ref = item[kind]
        name = ref.get("name") if isinstance(ref.get("name"), str) else None
        where = path + ("envFrom", i, kind)
        span = r.doc.keys.get(where) or r.span(where)  # the `configMapRef:` key's line
        cm = config_maps(r.text).get(name) if kind == "configMapRef" and name else None
        other = None if cm is not None or kind != "configMapRef" or not name else _in_folder(name, manifest)
        if other is not None:
            other, cm = other
        if cm is not None and isinstance(cm.data.get("data", {}), dict):
            for key, value in (cm.data.get("data") or {}).items():
                if isinstance(key, str) and _NAME.fullmatch(key) and not isinstance(value, (dict, list)):
                    text = cm.raw_scalars.get(("data", key), None if value is None else str(value))
                    at = cm.position(("data", key))  # in another file: the finding at envFrom, the fix there
                    at = Elsewhere(*_fields(span), file=other, at=at) if other else at
                    variables[prefix + key] = Var(text, at, exported=True)
            continue
        why = (f"`envFrom: {kind}` {name or '?'}: " + ("a Secret's values are only known in the cluster"
               if kind == "secretRef" else "the ConfigMap is not in this file nor in a YAML file beside it"))
        for n in [n for n in variables if n.startswith(prefix)]:  # this later source may override them
            variables[n] = Var(None, span, exported=True)
        unread = (span, why, prefix if unread is None else _common(unread[2], prefix))
        r.out.problems.append(Problem(L.VALUE_UNKNOWN.code, f"{why}; every variable it could set"
                                      f"{f' (prefix {prefix})' if prefix else ''} is unknown unless the "
                                      "container's `env:` sets it", span, about_launch=True))
    return variables, unread


MAX_FILES = 64  # YAML files beside the manifest looked at for a ConfigMap
MAX_BYTES = 256 << 10


def _in_folder(name: str, manifest: str):
    """(the file named like the manifest, the ConfigMap document) of ConfigMap `name` in a YAML file beside the
    manifest (inside the checked tree, at most MAX_FILES files of MAX_BYTES looked at), or None."""
    if not manifest or manifest == "<stdin>" or not manifest.lower().endswith((".yaml", ".yml")):
        return None
    from moecfg.sources import contained
    from moecfg.sources.files import Unreadable
    from moecfg.sources.manifests.yaml_source import YamlProblem, decode

    folder = os.path.dirname(os.path.abspath(manifest))
    try:
        entries = sorted(e for e in os.listdir(folder) if e.lower().endswith((".yaml", ".yml")))[:MAX_FILES]
    except OSError:
        return None
    own, roots = os.path.basename(manifest), contained.tree_roots()
    for entry in entries:
        if entry == own:
            continue
        try:
            raw = contained.read_inside(entry, folder, roots, limit=MAX_BYTES)
        except Unreadable:
            continue
        if b"ConfigMap" not in raw or name.encode() not in raw:  # cheap sniffing before parsing
            continue
        try:
            doc = config_maps(decode(raw)).get(name)
        except YamlProblem:
            continue
        if doc is not None:
            return os.path.join(os.path.dirname(manifest), entry), doc
    return None


def _fields(span) -> tuple:
    return span.line, span.column, span.end_line, span.end_column


def _common(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]
