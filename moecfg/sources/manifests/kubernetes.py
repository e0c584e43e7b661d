"""Kubernetes objects with pod templates (any kind: Pod, Deployment, StatefulSet, Job, CronJob jobTemplate,
LeaderWorkerSet leader/worker templates, llm-d / DisaggregatedSet roles, kustomize patches): each container's
`command` + `args` with its `env:` (Kubernetes' own `$(NAME)` expansion first, `valueFrom` unknown)."""
from __future__ import annotations

import re

from moecfg.core import launch_rules as L
from moecfg.sources.shell import reader as S
from moecfg.sources.manifests import launch as Y
from moecfg.sources.launch import Launch, LaunchFile, OpenEnv, Problem
from moecfg.sources.manifests import env_from
from moecfg.sources.shell.words import Var
from moecfg.sources.textmap import Decoded, SourceMap
from moecfg.sources.manifests.yaml_source import YamlDocument

_K8S_VAR = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_NO_LAUNCH = "Kubernetes object with a pod template but no container command or args"


def is_kubernetes(data) -> bool:
    return isinstance(data, dict) and isinstance(data.get("apiVersion"), str) and isinstance(data.get("kind"), str)


def pod_specs(data) -> list[tuple]:
    """Paths of every mapping holding a `containers` list: pod templates of any kind (Deployment, Job,
    CronJob jobTemplate, LeaderWorkerSet leader/worker templates, llm-d roles, List)."""
    return [p for p, node in Y.mappings(data) if isinstance(node.get("containers"), list)]


def read_kubernetes(doc: YamlDocument, text: str, name: str = "") -> LaunchFile | None:
    """`name`: the manifest (a ConfigMap an `envFrom:` names may be in its folder; env_from.py)."""
    from moecfg.sources.manifests import crds  # container specs outside pod templates (Dynamo, OME runtimes)

    specs, loose = pod_specs(doc.data), crds.container_specs(doc.data)
    if not specs and not loose:
        return None
    r = Y.DocReader(doc, text, "k8s")
    hints = r.hints()
    found_command = False
    for spec_path in specs:
        spec = Y.get(doc.data, spec_path)
        for key in ("initContainers", "containers"):
            for i, c in enumerate(spec.get(key) or []):
                if isinstance(c, dict) and (c.get("command") or c.get("args")):
                    found_command = True
                    _container(r, spec_path + (key, i), c, hints, _lws_env(r, spec_path), manifest=name)
    for path in loose:
        found_command = True
        _container(r, path, Y.get(doc.data, path), hints, crds.injected_env(r, path), crds.role_name(path))
    if not found_command and not r.out.problems:
        r.out.skipped = _NO_LAUNCH
    return r.out


def _lws_env(r: Y.DocReader, spec_path: tuple) -> dict:
    """LWS_GROUP_SIZE, which the LeaderWorkerSet controller injects into every container of a group (unless the
    container sets it): spec.leaderWorkerTemplate.size (kubernetes-sigs/lws@060ab4d pkg/utils/pod/pod_utils.go:
    131-178 AddLWSVariables, pkg/controllers/leaderworkerset_controller.go:799 the size annotation). The leader
    address and worker index differ per pod and stay unknown."""
    data = r.doc.data
    if data.get("kind") != "LeaderWorkerSet" or spec_path[:2] != ("spec", "leaderWorkerTemplate"):
        return {}
    template = Y.get(data, ("spec", "leaderWorkerTemplate"))
    size = template.get("size", 1) if isinstance(template, dict) else None  # CRD default 1 (leaderworkerset_types.go:164)
    if not isinstance(size, int) or isinstance(size, bool):
        return {}
    return {"LWS_GROUP_SIZE": Var(str(size), r.span(("spec", "leaderWorkerTemplate", "size")), exported=True)}


def _container(r: Y.DocReader, path: tuple, c: dict, hints, injected: dict | None = None,
               role: str | None = None, manifest: str = "") -> None:
    image = c.get("image") if isinstance(c.get("image"), str) else None
    name = role or (c.get("name") if isinstance(c.get("name"), str) else None)

    from_sources, unread = env_from.container_env_from(r, path, c.get("envFrom"), manifest) if c.get("envFrom") else ({}, None)

    def make(argv, env):
        env = OpenEnv(env, unread[0], unread[1], unread[2]) if unread else env
        return Launch(tuple(argv), env, "k8s", image, name, hints)

    # envFrom, then env (which may refer to envFrom's names with `$(NAME)`); the container's own env wins
    env = c.get("env") if isinstance(c.get("env"), list) else []
    values = [e.get("value") for e in env if isinstance(e, dict)]  # `$(NAME)` of an envFrom name
    from_sources = Y.open_references(values, from_sources, unread)
    variables = {**(injected or {}), **_k8s_env(r, path, c.get("env"), from_sources)}
    variables = Y.open_references([c.get("command"), c.get("args")], variables, unread)
    items = [p for key in ("command", "args") for p, _ in Y.scalar_items(c.get(key), path + (key,))]
    first = r.doc.raw_scalars.get(items[0], "") if items else ""
    via_shell = isinstance(first, str) and first.rsplit("/", 1)[-1] in S._SHELLS
    argv = []
    for p in items:
        dec = r.decoded(p)
        dec = _k8s_expand(dec, variables, via_shell) if dec is not None else None
        argv.append(r.word(p, dec))
    if argv:
        r.run(argv, variables, make)


def _k8s_env(r: Y.DocReader, path: tuple, env, before: dict | None = None) -> dict:
    """Container `env:` in order over `before` (envFrom's); `$(NAME)` refers to earlier entries; `valueFrom` is
    unknown (MC023)."""
    variables: dict[str, Var] = dict(before or {})
    for i, e in enumerate(env if isinstance(env, list) else []):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            continue
        p = path + ("env", i)
        if "valueFrom" in e:
            span = r.doc.keys.get(p + ("valueFrom",), r.span(p))
            what = next(iter(e["valueFrom"]), "valueFrom") if isinstance(e["valueFrom"], dict) else "valueFrom"
            r.out.problems.append(Problem(L.VALUE_UNKNOWN.code, f"env {e['name']} comes from `valueFrom: {what}`: "
                                          "its value is only known in the cluster; settings that depend on it "
                                          "are not checked", span, about_launch=True))
            variables[e["name"]] = Var(None, span, exported=True)
            continue
        vp = p + ("value",)
        dec = r.decoded(vp) if vp in r.doc.raw_scalars else Decoded("", SourceMap())
        dec = _k8s_expand(dec, variables) if dec is not None else None
        value = None if dec is None else dec.text
        variables[e["name"]] = Var(value, r.span(vp), exported=True)
    return variables


def _k8s_expand(dec: Decoded, variables: dict, via_shell: bool = False) -> Decoded | None:
    """Kubernetes' own `$(NAME)` expansion in command/args/env (before any shell): `$$` -> `$`, an undefined
    name stays as written, a name with an unknown value makes the text unknown (for a shell: `${NAME}`, which
    the shell then finds unknown in the container env)."""
    if "$" not in dec.text:
        return dec

    def repl(m):
        if m.group() == "$$":
            return "$"
        var = variables.get(m.group(1))
        if var is None:
            return m.group()
        return var.value if var.value is not None or not via_shell else "${%s}" % m.group(1)
    return Y.substitute(dec, _K8S_VAR, repl)
