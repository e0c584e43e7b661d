"""A container's `envFrom:` (Kubernetes): every key of a ConfigMap or Secret becomes a variable, with `prefix`
before its name. A ConfigMap in the same file (another document of the stream, `data:` strings) is read, each
value at its own line (a fix edits it there). A Secret, or a ConfigMap not in the file, may set any variable
(with that prefix): those names become unknown (OpenEnv), one MC023 info says which source; never a default.

Precedence (kubernetes.io/docs/tasks/inject-data-application/configure-pod-configmap/ "Configure all key-value
pairs in a ConfigMap as container environment variables"; kubernetes/kubernetes pkg/kubelet/kubelet_pods.go
makeEnvironmentVariables: envFrom first, in order, then `env`): a later source wins over an earlier one, the
container's `env:` wins over all (kubernetes.py merges).
"""
from __future__ import annotations

import re
from functools import lru_cache

from moecfg.core import launch_rules as L
from moecfg.sources.launch import Problem
from moecfg.sources.shell.words import Var

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


def container_env_from(r, path: tuple, env_from) -> tuple[dict, tuple | None]:
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
        span = r.span(path + ("envFrom", i, kind))
        cm = config_maps(r.text).get(name) if kind == "configMapRef" and name else None
        if cm is not None and isinstance(cm.data.get("data", {}), dict):
            for key, value in (cm.data.get("data") or {}).items():
                if isinstance(key, str) and _NAME.fullmatch(key) and not isinstance(value, (dict, list)):
                    text = cm.raw_scalars.get(("data", key), None if value is None else str(value))
                    variables[prefix + key] = Var(text, cm.position(("data", key)), exported=True)
            continue
        why = (f"`envFrom: {kind}` {name or '?'}: " + ("a Secret's values are only known in the cluster"
               if kind == "secretRef" else "the ConfigMap is not in this file"))
        for n in [n for n in variables if n.startswith(prefix)]:  # this later source may override them
            variables[n] = Var(None, span, exported=True)
        unread = (span, why, prefix if unread is None else _common(unread[2], prefix))
        r.out.problems.append(Problem(L.VALUE_UNKNOWN.code, f"{why}; every variable it could set"
                                      f"{f' (prefix {prefix})' if prefix else ''} is unknown unless the "
                                      "container's `env:` sets it", span, about_launch=True))
    return variables, unread


def _common(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]
