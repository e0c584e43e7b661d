"""YAML configs holding a launch command: any string that starts a framework (`vllm serve ...`), with the env
map beside it (`envs:`, `env:`, `env_common:` ...), and vllm-ascend's nightly single-node `server_cmd:` flag
lists."""
from __future__ import annotations

import re

import yaml

from moecfg.sources.budget import Budget
from moecfg.sources.manifests import launch as Y
from moecfg.sources import framework_words
from moecfg.sources.launch import EnvEntry, Launch, LaunchFile
from moecfg.sources.shell.words import Built, Var
from moecfg.sources.textmap import Decoded, SourceMap
from moecfg.sources.manifests.yaml_source import YamlDocument

_LAUNCHER = framework_words.YAML_LAUNCH
_ENV_KEYS = ("envs", "env", "environment", "env_vars", "env_common", "envVars")


def read_yaml_commands(doc: YamlDocument, text: str) -> LaunchFile | None:
    """Strings that start a framework (`vllm serve ...`) anywhere in the document, and vllm-ascend nightly
    single-node `server_cmd:` flag lists (run as `vllm serve <model> <flags>`, tests/e2e/conftest.py:305)."""
    found = []
    for path, value in doc.raw_scalars.items():
        if path and isinstance(value, str) and _is_command(path, value) and not _embedded_yaml(value):
            found.append(("string", path))
    for path, node in Y.mappings(doc.data):
        cmd = node.get("server_cmd")
        if isinstance(cmd, list) and isinstance(node.get("model"), str):
            found.append(("flags", path))
        if (isinstance(node.get("server_cmd_template"), list) and isinstance(doc.data, dict)
                and isinstance(doc.data.get("model"), str)):
            found.append(("template", path))  # vllm-ascend's external-DP harness: flags, model at the root
    if not found:
        return None
    r = Y.DocReader(doc, text, "yaml")
    hints = r.hints()
    budget = Budget.current()
    for how, path in found:
        if budget.spent:  # an alias tree of 27,000 command strings: the file's budget stops it (sources/budget.py)
            break
        owner = path[:-1] if how == "string" else path
        variables = _yaml_env(r, owner)
        name = _entry_name(doc.data, owner)
        image = _yaml_image(doc.data, owner)

        def make(argv, env, name=name, image=image):
            return Launch(tuple(argv), env, "yaml", image, name, hints)
        if how == "string":
            dec = r.decoded(path)
            if dec is not None and _split_by_shlex(path):  # `server_cmd`: shlex.split, newlines are spaces
                dec = Decoded(Y.unquoted_newlines_to_spaces(dec.text), dec.map)
            if dec is not None:
                r.script(dec, variables, make)
        elif how == "flags":
            _server_cmd_flags(r, path, variables, make)
        else:
            _server_cmd_template(r, path, variables, make)
    return r.out


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Keys whose string value is a command or a script (compose/CI/k8s/harness spellings); any other key holds a
# command only when its value starts with one: a `guide:` or `description:` that mentions `vllm serve` is prose.
_COMMAND_KEYS = re.compile(r"(?i)(^|_)(command|commands|cmd|script|scripts|run|args|entrypoint|exec|launch|"
                           r"serve|server|start|startup|preamble|setup)$|cmd$|command$|script$")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=(\S*)\s+")
_WRAPPERS = re.compile(r"(?:exec|env|nohup|time|sudo|uv\s+run|numactl\s+\S+)\s+")
_MD_HEADING = re.compile(r"(?m)^#{1,6} \S")
_MD_INLINE = re.compile(r"\*\*\S|\]\(https?:|^[ \t]*[-*] \S.*`", re.M)


def _lines(text: str):
    """The lines of `text`, one at a time (splitlines() made a list of every line of a 40 MB value first)."""
    pos = 0
    while pos <= len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        yield text[pos:end]
        pos = end + 1


def _is_command(path: tuple, value: str) -> bool:
    """A string that is a command: under a command key (`command:`, `server_cmd:`, `run:` ...), or one whose first
    line starts with a launcher (after `A=b` assignments and wrappers). Markdown (headings, fenced code, lists) is
    documentation even under such a key: its code blocks are examples, not what runs."""
    if not _LAUNCHER.search(value) or _markdown(value):
        return False
    key = next((p for p in reversed(path) if isinstance(p, str)), "")
    if _COMMAND_KEYS.search(key):
        return True
    first = next((ln.strip() for ln in _lines(value) if ln.strip() and not ln.lstrip().startswith("#")), "")
    pos = 0  # positions, not slices: `A= ` x 40,000 would copy the line 40,000 times
    while True:
        m = _ASSIGNMENT.match(first, pos) or _WRAPPERS.match(first, pos)
        if not m:
            break
        pos = m.end()
    return bool(_LAUNCHER.match(first, pos))


def _markdown(value: str) -> bool:
    """Fenced code, or headings with Markdown inline syntax (`# start` alone is a shell comment)."""
    from moecfg.sources.documents.fences import has_fence  # markdown-it only for a string with a fence marker

    return bool(has_fence(value) or _MD_HEADING.search(value) and _MD_INLINE.search(value))


def _embedded_yaml(value: str) -> bool:
    """A string that is itself YAML (a kustomize JSON6902 patch, a values snippet), not a command: a list,
    or a mapping of several keys. (A one-line command may parse as a one-key mapping: `vllm serve m --x 'a: b'`.)"""
    if "\n" not in value.strip() or len(value) > 100_000:
        return False
    try:
        data = yaml.load(value, Loader=_LOADER)  # noqa: S506 (a safe loader)
    except yaml.YAMLError:
        return False
    return isinstance(data, list) or isinstance(data, dict) and len(data) > 1


def _split_by_shlex(path: tuple) -> bool:
    """vllm-ascend's nightly harness passes `server_cmd` strings to RemoteOpenAIServer, which splits them with
    shlex.split (tests/e2e/conftest.py:302-303 @182b75e; `$VAR` / `${VAR}` expanded from the envs first,
    tests/e2e/nightly/multi_node/internal_dp/scripts/multi_node_config.py:209-216); other keys
    (`run: |`, a ConfigMap's script) are shell scripts whose newlines end commands."""
    return isinstance(path[-1], str) and path[-1].lower().endswith("cmd")


def _server_cmd_flags(r: Y.DocReader, path: tuple, variables: dict, make) -> None:
    node = Y.get(r.doc.data, path)
    key_span = r.doc.keys.get(path + ("server_cmd",), r.span(path))
    argv = [Built("vllm", SourceMap(), key_span, False), Built("serve", SourceMap(), key_span, False)]
    argv.append(r.word(path + ("model",), r.decoded(path + ("model",))))
    for key in ("server_cmd", "server_cmd_extra"):
        for p, _ in Y.scalar_items(node.get(key), path + (key,)):
            dec = r.decoded(p)
            argv.append(r.word(p, _harness_expand(dec, variables) if dec is not None else None))
    r.run(argv, {}, lambda a, env: make(a, {n: EnvEntry(n, v.value, v.span) for n, v in variables.items()}))


def _server_cmd_template(r: Y.DocReader, path: tuple, variables: dict, make) -> None:
    """vllm-ascend's external-DP harness runs `vllm serve <model> <server_cmd_template...>` per rank, `${X}` from the
    rank's variables (the `config:` entry of the template's node_index) and `$X` from the template's envs
    (vllm-ascend@182b75e tests/e2e/nightly/multi_node/external_dp/scripts/runtime.py:329-342, 357-377, 48-49).
    Rank-specific variables (DP_RANK, PORT, LOCAL_RANK ...) stay as written: unknown."""
    node = Y.get(r.doc.data, path)
    key_span = r.doc.keys.get(path + ("server_cmd_template",), r.span(path))
    argv = [Built("vllm", SourceMap(), key_span, False), Built("serve", SourceMap(), key_span, False)]
    argv.append(r.word(("model",), r.decoded(("model",))))
    braced = _external_dp_variables(r.doc.data, node.get("node_index"))
    for p, _ in Y.scalar_items(node.get("server_cmd_template"), path + ("server_cmd_template",)):
        dec = r.decoded(p)
        if dec is not None:
            dec = Y.substitute(dec, _BRACED, lambda m: braced.get(m.group(1), m.group()))
        if dec is not None:
            dec = Y.substitute(dec, _UNBRACED, lambda m: variables[m.group(1)].value
                               if m.group(1) in variables and variables[m.group(1)].value is not None else m.group())
        argv.append(r.word(p, dec))
    r.run(argv, {}, lambda a, env: make(a, {n: EnvEntry(n, v.value, v.span) for n, v in variables.items()}))


_BRACED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")  # runtime.py:48 TEMPLATE_VAR_RE
_UNBRACED = re.compile(r"(?<!\$)\$([A-Za-z_][A-Za-z0-9_]*)")  # runtime.py:49 ENV_VAR_RE
# `${X}` of a rank that one `config:` entry gives (external_dp_config.py:294-300 defaults; runtime.py:357-377)
_NODE_VARIABLES = (("DP_SIZE", "dp_size", 1), ("DP_SIZE_LOCAL", "dp_size_local", 1),
                   ("DP_RANK_START", "dp_rank_start", 0), ("TP_SIZE", "tp_size", 1), ("CP_SIZE", "cp_size", 1),
                   ("PORT_START", "port_start", None), ("DP_RPC_PORT", "dp_rpc_port", None))


def _external_dp_variables(data: dict, node_index) -> dict:
    out = {"MODEL": data["model"]}
    entry = next((c for c in data.get("config") or () if isinstance(c, dict) and c.get("node_index") == node_index
                  and node_index is not None), None)
    if entry is None:
        return out
    for name, key, default in _NODE_VARIABLES:
        value = entry.get(key, default)
        if isinstance(value, (int, str)) and not isinstance(value, bool) and "$" not in str(value):
            out[name] = str(value)
    return out


def _harness_expand(dec: Decoded, variables: dict) -> Decoded | None:
    """vllm-ascend's `_expand_values`: `$VAR` / `${VAR}` from envs, unknown names left as written."""
    pattern = re.compile(r"\$(\w+)|\$\{(\w+)\}")
    return Y.substitute(dec, pattern, lambda m: variables[m.group(1) or m.group(2)].value
                       if (m.group(1) or m.group(2)) in variables else m.group())


def _yaml_env(r: Y.DocReader, owner: tuple) -> dict:
    """The env map beside the command (`envs:`, `env:`, `env_common:` ...), else the nearest ancestor's."""
    p = owner
    while True:
        node = Y.get(r.doc.data, p)
        if isinstance(node, dict):
            for key in _ENV_KEYS:
                if isinstance(node.get(key), dict):
                    return _env_map(r, p + (key,), node[key])
                if isinstance(node.get(key), list):
                    return _env_list(r, p + (key,), node[key])
        if not p:
            return {}
        p = p[:-1]


def _env_map(r: Y.DocReader, path: tuple, env: dict) -> dict:
    out = {}
    for k, v in env.items():
        vp = path + (k,)
        value = r.doc.raw_scalars.get(vp) if not isinstance(v, (dict, list)) else None
        out[str(k)] = Var(value if v is not None else "", r.span(vp), exported=True)
    return out


def _yaml_image(data, owner: tuple) -> str | None:
    """The container image the command runs in: an `image:` string beside it or on the nearest ancestor (dstack's
    `image:`, a CI job's `image:`), which carries the framework's release in its tag."""
    p = owner
    while True:
        node = Y.get(data, p) if p else data
        if isinstance(node, dict) and isinstance(node.get("image"), str):
            return node["image"][:300]
        if not p:
            return None
        p = p[:-1]


_ENV_ITEM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$", re.S)


def _env_list(r: Y.DocReader, path: tuple, env: list) -> dict:
    """An env list of `NAME=value` strings (dstack's `env:`, the process environment of `commands:`) or of
    `{name, value}` items; a bare `NAME` (or a `valueFrom`) takes its value from outside the file (dstack: the CLI's
    environment or a secret): set, value unknown."""
    out = {}
    for i, item in enumerate(env):
        m = _ENV_ITEM.match(item) if isinstance(item, str) else None
        if m:
            out[m.group(1)] = Var(m.group(2), r.span(path + (i,)), exported=True)
        elif isinstance(item, dict) and isinstance(item.get("name"), str) and _ENV_ITEM.match(item["name"]):
            # `- name: X` / `value: Y` (Kubernetes-style, Argo, KServe): a valueFrom is set, value unknown
            value = r.doc.raw_scalars.get(path + (i, "value")) if "value" in item else None
            out[item["name"]] = Var(value, r.span(path + (i, "value") if "value" in item else path + (i,)),
                                    exported=True)
    return out


def _entry_name(data, path: tuple) -> str | None:
    node = Y.get(data, path) if path else data
    if isinstance(node, dict):
        for key in ("name", "test_name"):
            if isinstance(node.get(key), str):
                return node[key]
    return ".".join(str(p) for p in path) or None
