"""YAML documents that hold launches: Kubernetes objects with pod templates, docker-compose files, and YAML
configs holding a launch command as a string (vllm-ascend nightly `server_cmd:` with an `envs:` map).

Every command word is a YAML scalar decoded with its source map (textmap.py); `bash -c` strings are read by
the shell reader through the composed map, so positions stay exact inside block scalars.
"""
from __future__ import annotations

import re
from functools import lru_cache

from moecfg.core import launch_rules as L
from moecfg.sources import shell as S
from moecfg.sources.launch import EnvEntry, Launch, LaunchFile, Problem
from moecfg.sources.textmap import Decoded, LineIndex, SourceMap, yaml_scalar_map
from moecfg.sources.yaml_source import Span, YamlDocument

_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_K8S_VAR = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
_COMPOSE_VAR = re.compile(r"\$\$|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")
_LAUNCHER = re.compile(r"\bvllm\s+serve\b|\bsglang\.launch_server\b|\bvllm\.entrypoints\b|\bsglang\s+serve\b|"
                       r"\bpython[0-9.]*\s+-m\s+(?:vllm|sglang)\b")
_HINT = re.compile(r"huawei\.com/ascend[-\w]*|nvidia\.com/gpu[\w.-]*|ascend[-_ ]?(?:910|310|950)\w*|"
                   r"\b910[BC]\d?\b|atlas[- ]?(?:800|900|300)[\w-]*|\bnvidia-(?:h|a|b|gb)\d+[\w-]*", re.I)
_ENV_KEYS = ("envs", "env", "environment", "env_vars", "env_common", "envVars")
_NO_LAUNCH = "Kubernetes object with a pod template but no container command or args"


@lru_cache(maxsize=4)
def line_index(text: str) -> LineIndex:
    """One index per file text (cached: a multi-document file is indexed once)."""
    return LineIndex(text)


class DocReader:
    """Shared state for one YAML document: its text, positions, problems and launches."""

    def __init__(self, doc: YamlDocument, text: str, context: str):
        self.doc, self.text, self.lines, self.context = doc, text, line_index(text), context
        self.out = LaunchFile()
        self.templated = False

    def span(self, path: tuple) -> Span:
        return self.doc.position(path)

    def decoded(self, path: tuple) -> Decoded | None:
        """The scalar at `path` with its source map (None for a template, which is reported once)."""
        value = self.doc.raw_scalars.get(path)
        if value is None:
            return None
        if _TEMPLATE.search(value):
            self.template(path)
            return None
        return Decoded(value, yaml_scalar_map(self.text, self.lines, self.doc.values[path], value))

    def template(self, path: tuple) -> None:
        if not self.templated:
            self.templated = True
            self.out.problems.append(Problem(L.TEMPLATE.code, "template expression (Helm/Jinja `{{ ... }}`): the "
                                             "text is not what runs; values from it are unknown", self.span(path)))

    def word(self, path: tuple, dec: Decoded | None) -> S._Built:
        span = self.span(path)
        if dec is None:
            return S._Built(None, SourceMap(), span, False)
        exact = all(s[4] for s in dec.map.segs)
        return S._Built(dec.text, dec.map, span, exact)

    def shell(self, make_launch) -> S.ShellReader:
        return S.ShellReader(self.lines, self.out.problems, self.context, make_launch)

    def run(self, argv: list, variables: dict, make_launch, flatten_newlines: bool = False) -> None:
        """A list-form command (exec, no shell): strip wrappers, read `sh -c` strings, emit the Launch."""
        reader = self.shell(make_launch)
        reader.depth = 0
        walk = S._Walk(reader, None, S.Variables(variables), set())
        S._Command(walk, argv, {}).run()
        self.out.launches.extend(reader.launches)

    def script(self, dec: Decoded, variables: dict, make_launch) -> None:
        """A command string read by a shell (or shlex: newlines as spaces, same length, same map)."""
        reader = self.shell(make_launch)
        reader.read(dec, variables)
        self.out.launches.extend(reader.launches)

    def hints(self) -> tuple[tuple[str, Span], ...]:
        """Product hints anywhere in the document: resource names, node selectors, labels."""
        found: dict[str, Span] = {}
        for path, span in self.doc.keys.items():
            key = path[-1]
            if isinstance(key, str) and len(key) < 200:
                for m in _HINT.finditer(key):
                    found.setdefault(m.group(), span)
        for path, value in self.doc.raw_scalars.items():
            if isinstance(value, str) and len(value) < 200:
                for m in _HINT.finditer(value):
                    if m.group() not in found:
                        smap = yaml_scalar_map(self.text, self.lines, self.doc.values[path], value)
                        found[m.group()] = self.lines.span(*smap.locate(m.start(), m.end())[:2])
        return tuple(found.items())


def _scalar_items(data, path: tuple):
    """(path, value) of each item of a YAML list (or the single scalar) at `path`."""
    if isinstance(data, list):
        return [(path + (i,), v) for i, v in enumerate(data) if not isinstance(v, (dict, list))]
    if data is None or isinstance(data, (dict,)):
        return []
    return [(path, data)]


# --- Kubernetes -------------------------------------------------------------------------------------------

def is_kubernetes(data) -> bool:
    return isinstance(data, dict) and isinstance(data.get("apiVersion"), str) and isinstance(data.get("kind"), str)


def pod_specs(data, path: tuple = ()):
    """Paths of every mapping holding a `containers` list: pod templates of any kind (Deployment, Job,
    CronJob jobTemplate, LeaderWorkerSet leader/worker templates, llm-d ModelService prefill/decode, List)."""
    stack = [(data, path)]
    while stack:
        node, p = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("containers"), list):
                yield p
            stack.extend((v, p + (k,)) for k, v in reversed(list(node.items())) if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, p + (i,)) for i, v in reversed(list(enumerate(node))) if isinstance(v, (dict, list)))


def read_kubernetes(doc: YamlDocument, text: str) -> LaunchFile | None:
    specs = list(pod_specs(doc.data))
    if not specs:
        return None
    r = DocReader(doc, text, "k8s")
    hints = r.hints()
    found_command = False
    for spec_path in specs:
        spec = _get(doc.data, spec_path)
        for key in ("initContainers", "containers"):
            for i, c in enumerate(spec.get(key) or []):
                if isinstance(c, dict) and (c.get("command") or c.get("args")):
                    found_command = True
                    _container(r, spec_path + (key, i), c, hints)
    if not found_command and not r.out.problems:
        r.out.skipped = _NO_LAUNCH
    return r.out


def _get(data, path: tuple):
    for p in path:
        data = data[p]
    return data


def _container(r: DocReader, path: tuple, c: dict, hints) -> None:
    image = c.get("image") if isinstance(c.get("image"), str) else None
    name = c.get("name") if isinstance(c.get("name"), str) else None

    def make(argv, env):
        return Launch(tuple(argv), env, "k8s", image, name, hints)

    variables = _k8s_env(r, path, c.get("env"))
    items = [p for key in ("command", "args") for p, _ in _scalar_items(c.get(key), path + (key,))]
    first = r.doc.raw_scalars.get(items[0], "") if items else ""
    via_shell = isinstance(first, str) and first.rsplit("/", 1)[-1] in S._SHELLS
    argv = []
    for p in items:
        dec = r.decoded(p)
        dec = _k8s_expand(dec, variables, via_shell) if dec is not None else None
        argv.append(r.word(p, dec))
    if argv:
        r.run(argv, variables, make)


def _k8s_env(r: DocReader, path: tuple, env) -> dict:
    """Container `env:` in order; `$(NAME)` refers to earlier entries; `valueFrom` is unknown (MC023)."""
    variables: dict[str, S.Var] = {}
    for i, e in enumerate(env if isinstance(env, list) else []):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            continue
        p = path + ("env", i)
        if "valueFrom" in e:
            span = r.doc.keys.get(p + ("valueFrom",), r.span(p))
            what = next(iter(e["valueFrom"]), "valueFrom") if isinstance(e["valueFrom"], dict) else "valueFrom"
            r.out.problems.append(Problem(L.VALUE_UNKNOWN.code, f"env {e['name']} comes from `valueFrom: {what}`: "
                                          "its value is only known in the cluster; settings that depend on it "
                                          "are not checked", span))
            variables[e["name"]] = S.Var(None, span, exported=True)
            continue
        vp = p + ("value",)
        dec = r.decoded(vp) if vp in r.doc.raw_scalars else Decoded("", SourceMap())
        dec = _k8s_expand(dec, variables) if dec is not None else None
        value = None if dec is None else dec.text
        variables[e["name"]] = S.Var(value, r.span(vp), exported=True)
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
    return _substitute(dec, _K8S_VAR, repl)


def _substitute(dec: Decoded, pattern, repl) -> Decoded | None:
    parts, smap, pos = [], SourceMap(), 0
    for m in pattern.finditer(dec.text):
        value = repl(m)
        if value is None:
            return None
        parts.append(dec.text[pos:m.start()])
        smap.extend(dec.map.slice(pos, m.start()))
        parts.append(value)
        piece = dec.map.slice(m.start(), m.end())
        smap.extend(piece if value == m.group() else piece.whole(len(value)))
        pos = m.end()
    parts.append(dec.text[pos:])
    smap.extend(dec.map.slice(pos, len(dec.text)))
    return Decoded("".join(parts), smap)


# --- docker-compose ---------------------------------------------------------------------------------------

def is_compose(data) -> bool:
    services = data.get("services") if isinstance(data, dict) else None
    return isinstance(services, dict) and bool(services) and all(
        isinstance(s, dict) for s in services.values()) and any(
        {"image", "build", "command", "entrypoint"} & set(s) for s in services.values())


def read_compose(doc: YamlDocument, text: str) -> LaunchFile:
    r = DocReader(doc, text, "compose")
    hints = r.hints()
    found = False
    for name, svc in doc.data["services"].items():
        path = ("services", name)
        image = svc.get("image") if isinstance(svc.get("image"), str) else None
        variables = _compose_env(r, path, svc.get("environment"))

        def make(argv, env, image=image, name=name):
            return Launch(tuple(argv), env, "compose", image, str(name), hints)

        for key in ("entrypoint", "command"):
            found |= bool(svc.get(key))
        _compose_command(r, path, svc, variables, make)
    if not found and not r.out.problems:
        r.out.skipped = "docker-compose file without a service command or entrypoint"
    return r.out


def _compose_env(r: DocReader, path: tuple, env) -> dict:
    variables: dict[str, S.Var] = {}
    p = path + ("environment",)
    items = env.items() if isinstance(env, dict) else enumerate(env if isinstance(env, list) else [])
    for key, value in items:
        vp = p + (key,)
        if isinstance(env, dict):
            name = str(key)
            dec = r.decoded(vp) if value is not None else None
            dec = _compose_expand(dec) if dec is not None else None
        else:
            dec = r.decoded(vp)
            dec = _compose_expand(dec) if dec is not None else None
            if dec is None or "=" not in dec.text:  # `- NAME`: passed through from the host: unknown
                if isinstance(value, str):
                    variables[value.partition("=")[0]] = S.Var(None, r.span(vp), exported=True)
                continue
            name, _, rest = dec.text.partition("=")
            dec = Decoded(rest, dec.map.slice(len(name) + 1, len(dec.text)))
        variables[name] = S.Var(None if dec is None else dec.text, r.span(vp), exported=True)
    return variables


def _compose_expand(dec: Decoded, via_shell: bool = False) -> Decoded | None:
    """Compose interpolation happens on the host (`.env`, shell): `$$` -> `$`, any `${X}` / `$X` unknown
    (for a `sh -c` script: a reference the shell cannot resolve, so only the words using it are unknown)."""
    if "$" not in dec.text:
        return dec
    return _substitute(dec, _COMPOSE_VAR, lambda m: "$" if m.group() == "$$" else (
        "${__moecfg_host_env__}" if via_shell else None))


def _compose_command(r: DocReader, path: tuple, svc: dict, variables: dict, make) -> None:
    argv = []
    for key in ("entrypoint", "command"):
        value = svc.get(key)
        if isinstance(value, str):  # split like shlex; an interpolated ${X} is a shell-unknown reference
            argv.extend(_split_words(r, r.decoded(path + (key,)), path + (key,), make))
        else:
            items = _scalar_items(value, path + (key,))
            via_shell = bool(argv) or bool(items) and str(items[0][1]).rsplit("/", 1)[-1] in S._SHELLS
            for p, _ in items:
                dec = r.decoded(p)
                argv.append(r.word(p, _compose_expand(dec, via_shell) if dec is not None else None))
    if argv:
        r.run(argv, variables, make)


def _split_words(r: DocReader, dec: Decoded | None, path: tuple, make) -> list:
    """A command string split into words the way shlex would (quotes removed), with maps; no expansion."""
    if dec is None:
        return [r.word(path, None)]
    reader = r.shell(make)
    reader.capture = []
    reader.read(Decoded(_unquoted_newlines_to_spaces(dec.text), dec.map), {})
    return reader.capture[0] if reader.capture else []


# --- YAML configs holding a command string ------------------------------------------------------------------

def read_yaml_commands(doc: YamlDocument, text: str) -> LaunchFile | None:
    """Strings that start a framework (`vllm serve ...`) anywhere in the document, and vllm-ascend nightly
    single-node `server_cmd:` flag lists (run as `vllm serve <model> <flags>`, tests/e2e/conftest.py:305)."""
    found = []
    for path, value in doc.raw_scalars.items():
        if path and isinstance(value, str) and _LAUNCHER.search(value):
            found.append(("string", path))
    for path, node in _mappings(doc.data):
        cmd = node.get("server_cmd")
        if isinstance(cmd, list) and isinstance(node.get("model"), str):
            found.append(("flags", path))
    if not found:
        return None
    r = DocReader(doc, text, "yaml")
    hints = r.hints()
    for how, path in found:
        owner = path[:-1] if how == "string" else path
        variables = _yaml_env(r, owner)
        name = _entry_name(doc.data, owner)

        def make(argv, env, name=name):
            return Launch(tuple(argv), env, "yaml", None, name, hints)
        if how == "string":
            dec = r.decoded(path)
            if dec is not None and _split_by_shlex(path):  # `server_cmd`: shlex.split, newlines are spaces
                dec = Decoded(_unquoted_newlines_to_spaces(dec.text), dec.map)
            if dec is not None:
                r.script(dec, variables, make)
        else:
            _server_cmd_flags(r, path, variables, make)
    return r.out


def _unquoted_newlines_to_spaces(text: str) -> str:
    """shlex.split treats a newline outside quotes as a blank, a shell ends the command there: same length,
    so the map still fits."""
    if "\n" not in text:
        return text
    out, quote, i = list(text), None, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if quote is None and c in "'\"":
            quote = c
        elif c == quote:
            quote = None
        elif quote is None and c == "\n":
            out[i] = " "
        i += 1
    return "".join(out)


def _split_by_shlex(path: tuple) -> bool:
    """vllm-ascend's nightly harness passes `server_cmd` strings to RemoteOpenAIServer, which splits them with
    shlex.split (tests/e2e/conftest.py:302-303 @182b75e; `$VAR` / `${VAR}` expanded from the envs first,
    tests/e2e/nightly/multi_node/internal_dp/scripts/multi_node_config.py:209-216); other keys
    (`run: |`, a ConfigMap's script) are shell scripts whose newlines end commands."""
    return isinstance(path[-1], str) and path[-1].lower().endswith("cmd")


def _server_cmd_flags(r: DocReader, path: tuple, variables: dict, make) -> None:
    node = _get(r.doc.data, path)
    key_span = r.doc.keys.get(path + ("server_cmd",), r.span(path))
    argv = [S._Built("vllm", SourceMap(), key_span, False), S._Built("serve", SourceMap(), key_span, False)]
    argv.append(r.word(path + ("model",), r.decoded(path + ("model",))))
    for key in ("server_cmd", "server_cmd_extra"):
        for p, _ in _scalar_items(node.get(key), path + (key,)):
            dec = r.decoded(p)
            argv.append(r.word(p, _harness_expand(dec, variables) if dec is not None else None))
    r.run(argv, {}, lambda a, env: make(a, {n: EnvEntry(n, v.value, v.span) for n, v in variables.items()}))


def _harness_expand(dec: Decoded, variables: dict) -> Decoded | None:
    """vllm-ascend's `_expand_values`: `$VAR` / `${VAR}` from envs, unknown names left as written."""
    pattern = re.compile(r"\$(\w+)|\$\{(\w+)\}")
    return _substitute(dec, pattern, lambda m: variables[m.group(1) or m.group(2)].value
                       if (m.group(1) or m.group(2)) in variables else m.group())


def _mappings(data, path: tuple = ()):
    stack = [(data, path)]
    while stack:
        node, p = stack.pop()
        if isinstance(node, dict):
            yield p, node
            stack.extend((v, p + (k,)) for k, v in reversed(list(node.items())) if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, p + (i,)) for i, v in reversed(list(enumerate(node))) if isinstance(v, (dict, list)))


def _yaml_env(r: DocReader, owner: tuple) -> dict:
    """The env map beside the command (`envs:`, `env:`, `env_common:` ...), else the nearest ancestor's."""
    p = owner
    while True:
        node = _get(r.doc.data, p)
        if isinstance(node, dict):
            for key in _ENV_KEYS:
                if isinstance(node.get(key), dict):
                    return _env_map(r, p + (key,), node[key])
        if not p:
            return {}
        p = p[:-1]


def _env_map(r: DocReader, path: tuple, env: dict) -> dict:
    out = {}
    for k, v in env.items():
        vp = path + (k,)
        value = r.doc.raw_scalars.get(vp) if not isinstance(v, (dict, list)) else None
        out[str(k)] = S.Var(value if v is not None else "", r.span(vp), exported=True)
    return out


def _entry_name(data, path: tuple) -> str | None:
    node = _get(data, path) if path else data
    if isinstance(node, dict):
        for key in ("name", "test_name"):
            if isinstance(node.get(key), str):
                return node[key]
    return ".".join(str(p) for p in path) or None
