"""Reading a config file into a table: YAML (`.moecfg.yaml`) or the `[tool.moecfg]` table of a
`pyproject.toml` (tomllib; the tomli package on Python 3.10). Loaded configs are cached per path in the caller's dict (one run)."""
from __future__ import annotations

import os
import re

from moecfg.checking.settings.config import Config, ConfigError, parse

def load(path: str, cache: dict | None = None) -> Config:
    loaded = {} if cache is None else cache
    path = os.path.abspath(path)
    if path not in loaded:
        loaded[path] = parse(_read_table(path), path)
    return loaded[path]


def _read_table(path: str) -> dict:
    from moecfg.sources.files import Entry, Unreadable, read

    try:  # as deployment files: a regular file, size-capped, a link only within its folder or the current one
        raw = read(Entry(path))
    except Unreadable as exc:
        raise ConfigError(f"{path}: the config file is not read: {exc}") from None
    if os.path.basename(path) == "pyproject.toml":
        return _toml_table(raw, path)
    from moecfg.sources.manifests.yaml_source import YamlProblem, parse_stream

    try:  # the deployment files' strict loader: depth and alias budgets, tags that fail are errors, not crashes
        docs = parse_stream(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the config file is not UTF-8 text") from None
    except YamlProblem as exc:
        raise ConfigError(f"{path}:{exc.line}:{exc.column}: the config file is not valid YAML: {exc.message}") from None
    if len(docs) > 1:
        raise ConfigError(f"{path}: the config file holds {len(docs)} YAML documents; write one")
    data = docs[0].data if docs else None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config file must be a mapping of settings, got {type(data).__name__}")
    return data


_WHOLE_TOML = 1 << 20  # a pyproject.toml larger than this: only its [tool.moecfg] tables are parsed
_HEADER = re.compile(r"^\s*\[")


def _moecfg_tables(text: str) -> str:
    """The `[tool.moecfg]` / `[tool.moecfg.*]` tables of a huge pyproject.toml (parsing 30 MB of someone else's
    tables costs seconds; moecfg reads only its own)."""
    out, ours = [], False
    for line in text.splitlines():
        if _HEADER.match(line):
            ours = line.strip().startswith(("[tool.moecfg]", "[tool.moecfg."))
        if ours:
            out.append(line)
    return "\n".join(out)


def _toml_table(raw: bytes, path: str) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise ConfigError(f"{path}: reading [tool.moecfg] needs Python 3.11+ (or the tomli package)") from None
    try:
        text = raw.decode("utf-8")
        doc = tomllib.loads(text if len(text) <= _WHOLE_TOML else _moecfg_tables(text))
    except (UnicodeDecodeError, ValueError) as exc:  # ValueError: TOMLDecodeError, and int() of 5,000 digits
        raise ConfigError(f"{path}: not valid TOML: {str(exc)[:200]}") from None
    except RecursionError:  # tomllib recurses per nesting level
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None
    table = doc.get("tool", {}).get("moecfg", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.moecfg] must be a table")
    return table
