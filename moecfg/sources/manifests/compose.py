"""docker-compose files: `services.*.entrypoint` + `command` (string: split like shlex; list: exec form) with
`environment` (list or map). Compose interpolates `${X}` on the host (unknown here) and turns `$$` into `$`."""
from __future__ import annotations

import re

from moecfg.sources.shell import reader as S
from moecfg.sources.manifests import launch as Y
from moecfg.sources.launch import Launch, LaunchFile, OpenEnv
from moecfg.sources.manifests import envfiles
from moecfg.sources.shell.words import Var
from moecfg.sources.textmap import Decoded
from moecfg.sources.manifests.yaml_source import YamlDocument

_COMPOSE_VAR = re.compile(r"\$\$|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")


def is_compose(data) -> bool:
    services = data.get("services") if isinstance(data, dict) else None
    return isinstance(services, dict) and bool(services) and all(
        isinstance(s, dict) for s in services.values()) and any(
        {"image", "build", "command", "entrypoint"} & set(s) for s in services.values())


def read_compose(doc: YamlDocument, text: str, name: str = "") -> LaunchFile:
    """`name`: the compose file (its folder is where `env_file:` paths start; envfiles.py)."""
    r = Y.DocReader(doc, text, "compose")
    hints = r.hints()
    found = False
    for service, svc in doc.data["services"].items():
        path = ("services", service)
        image = svc.get("image") if isinstance(svc.get("image"), str) else None
        from_files, unread = envfiles.service_env_files(r, path, svc.get("env_file"), name)
        variables = {**from_files, **_compose_env(r, path, svc.get("environment"))}  # environment: wins

        def make(argv, env, image=image, service=service, unread=unread):
            env = OpenEnv(env, *unread) if unread else env
            return Launch(tuple(argv), env, "compose", image, str(service), hints)

        for key in ("entrypoint", "command"):
            found |= bool(svc.get(key))
        _compose_command(r, path, svc, variables, make)
    if not found and not r.out.problems:
        r.out.skipped = "docker-compose file without a service command or entrypoint"
    return r.out


def _compose_env(r: Y.DocReader, path: tuple, env) -> dict:
    variables: dict[str, Var] = {}
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
                    variables[value.partition("=")[0]] = Var(None, r.span(vp), exported=True)
                continue
            name, _, rest = dec.text.partition("=")
            dec = Decoded(rest, dec.map.slice(len(name) + 1, len(dec.text)))
        variables[name] = Var(None if dec is None else dec.text, r.span(vp), exported=True)
    return variables


def _compose_expand(dec: Decoded, via_shell: bool = False) -> Decoded | None:
    """Compose interpolation happens on the host (`.env`, shell): `$$` -> `$`, any `${X}` / `$X` unknown
    (for a `sh -c` script: a reference the shell cannot resolve, so only the words using it are unknown)."""
    if "$" not in dec.text:
        return dec
    return Y.substitute(dec, _COMPOSE_VAR, lambda m: "$" if m.group() == "$$" else (
        "${__moecfg_host_env__}" if via_shell else None))


def _compose_command(r: Y.DocReader, path: tuple, svc: dict, variables: dict, make) -> None:
    argv = []
    for key in ("entrypoint", "command"):
        value = svc.get(key)
        if isinstance(value, str):  # split like shlex; an interpolated ${X} is a shell-unknown reference
            argv.extend(_split_words(r, r.decoded(path + (key,)), path + (key,), make))
        else:
            items = Y.scalar_items(value, path + (key,))
            via_shell = bool(argv) or bool(items) and str(items[0][1]).rsplit("/", 1)[-1] in S._SHELLS
            for p, _ in items:
                dec = r.decoded(p)
                argv.append(r.word(p, _compose_expand(dec, via_shell) if dec is not None else None))
    if argv:
        r.run(argv, variables, make)


def _split_words(r: Y.DocReader, dec: Decoded | None, path: tuple, make) -> list:
    """A command string split into words the way shlex would (quotes removed), with maps; no expansion."""
    if dec is None:
        return [r.word(path, None)]
    reader = r.shell(make)
    reader.capture = []
    reader.read(Decoded(Y.unquoted_newlines_to_spaces(dec.text), dec.map), {})
    return reader.capture[0] if reader.capture else []
