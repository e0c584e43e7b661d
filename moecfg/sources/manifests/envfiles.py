"""A compose service's `env_file:` (a string, a list, or the long form `{path, required, format}`), read the way
docker compose does (compose-spec/compose-spec@master 05-services.md `env_file`): paths start at the compose
file's folder; files are read in order, a later file's value wins; the service's `environment:` wins over all
of them (compose.py merges). Only a file inside the checked tree is read (sources/contained.py). A file that is
not read (outside the tree, missing, a path known only on the host, not parsed) may set any variable: the
service's earlier env-file values and every name it does not set otherwise become unknown (OpenEnv), one MC023
info names the file and why; never the framework's default.
"""
from __future__ import annotations

import os

from moecfg.core import launch_rules as L
from moecfg.sources import contained
from moecfg.sources.files import Unreadable
from moecfg.sources.launch import Problem, Unread
from moecfg.sources.manifests import envfile
from moecfg.sources.shell.words import Var
from moecfg.sources.textmap import Elsewhere, Span

MAX_FILES = 32  # env files read per service (as for sourced shell files, shell/sourced.py)
_MISSING = "missing"
_DOCUMENTATION = (".md", ".mdx", ".rst", ".markdown")


def service_env_files(r, path: tuple, value, compose_name: str) -> tuple[dict, tuple | None]:
    """(name -> Var from the env files, (span, why) of the last file not read or None)."""
    variables: dict[str, Var] = {}
    unread = None
    for n, (item_path, file, required, raw) in enumerate(_entries(value, path + ("env_file",))):
        span = r.span(item_path)
        try:
            if n >= MAX_FILES:
                raise Unreadable(f"more than {MAX_FILES} env files for one service; the rest are not read")
            shown, lines = _read(file, compose_name, raw)
        except Unreadable as exc:
            why = _why(file, str(exc), required)
            variables = {n: Var(None, span, exported=True) for n in variables}  # a later file may override them
            unread = (span, f"env_file {file} not read")
            r.out.problems.append(Problem(L.VALUE_UNKNOWN.code, f"env_file {file}: {why}; every variable it could "
                                          f"set is unknown for service {path[-1]} (set the values in `environment:` "
                                          "or keep the file in the checked folder)", span, about_launch=True))
            if contained.OUTSIDE in why:  # listed in the coverage report (`config outside the tree`)
                r.out.unread.append(Unread(span, "docker compose", f"config outside the tree: env_file {file}"))
            continue
        unknown: dict[str, str] = {}
        for line in lines:
            variables[line.name] = Var(line.value, Elsewhere(*_fields(span), file=shown, at=line.span),
                                       exported=True)
            if line.value is None:
                unknown[line.name] = f"{line.name} (line {line.span.line}: {line.why})"
            else:
                unknown.pop(line.name, None)
        if unknown:
            said = list(unknown.values())
            r.out.problems.append(Problem(L.VALUE_UNKNOWN.code, f"env_file {file}: {', '.join(said[:5])}"
                                          f"{' ...' if len(said) > 5 else ''}: value not known statically",
                                          span, about_launch=True))
    return variables, unread


def _fields(span: Span) -> tuple:
    return span.line, span.column, span.end_line, span.end_column


def _entries(value, path: tuple):
    """(path of the entry, file, required, format raw) of each `env_file:` entry."""
    items = [(path, value)] if isinstance(value, str) else \
        [(path + (i,), v) for i, v in enumerate(value)] if isinstance(value, list) else []
    for p, item in items:
        if isinstance(item, str):
            yield p, item, True, False
        elif isinstance(item, dict) and isinstance(item.get("path"), str):
            required = item.get("required", True) is not False
            yield p + ("path",), item["path"], required, item.get("format") == "raw"


def _read(file: str, compose_name: str, raw: bool) -> tuple[str, list]:
    """(the file named like the compose file, its lines); Unreadable with the reason otherwise."""
    if "$" in file:
        raise Unreadable("its path is interpolated on the host")
    if not compose_name or compose_name == "<stdin>" or compose_name.lower().endswith(_DOCUMENTATION):
        raise Unreadable("the compose file's folder is not known (stdin or documentation)")
    base = os.path.dirname(os.path.abspath(compose_name))
    roots = contained.tree_roots()
    real = contained.resolve(file, base, roots)
    if not os.path.lexists(real):
        raise Unreadable(_MISSING)
    if os.path.isdir(real):
        raise Unreadable("a folder, not a file")
    data = contained.read_inside(file, base, roots, limit=256 << 10)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Unreadable("not UTF-8 text") from None
    try:
        lines = envfile.parse(text, raw)
    except envfile.EnvFileError as exc:
        raise Unreadable(f"not read as an env file ({exc})") from None
    shown = file if os.path.isabs(file) else os.path.normpath(os.path.join(os.path.dirname(compose_name), file))
    return shown, lines


def _why(file: str, reason: str, required: bool) -> str:
    if reason == _MISSING:
        return ("missing (`required: false`: compose skips it, but the file on the host may set values)"
                if not required else "missing in the checked tree (compose refuses to start without it)")
    return reason
