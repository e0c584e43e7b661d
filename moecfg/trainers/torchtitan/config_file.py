"""The TOML job config a torchtitan 0.2 launch names (`--job.config_file X.toml`, or `CONFIG_FILE=X.toml` for
./run_train.sh, pytorch/torchtitan@73a0e69 run_train.sh:30-46), read inside the checked tree only
(sources/contained.py), flattened to `section.field` keys as torchtitan's ConfigManager merges them: the TOML over the
dataclass defaults, each `--section.field` flag over the TOML (torchtitan/config/manager.py at the same commit).

The file is read, never executed; a path outside the checked tree, a missing file or a TOML error leaves every setting
the file could hold not known (the caller says so).
"""
from __future__ import annotations

import os

from moecfg.sources.launch import Launch

MAX_BYTES = 256 << 10  # torchtitan's TOML job configs are a few KiB


# run_train.sh's CONFIG_FILE when the environment does not set it (pytorch/torchtitan@73a0e69 run_train.sh:30)
RUN_TRAIN_DEFAULT = "./torchtitan/models/llama3/train_configs/debug_model.toml"


class Default:
    """run_train.sh's own CONFIG_FILE default, as the thing that names the config."""

    def __init__(self, span):
        self.span, self.value = span, RUN_TRAIN_DEFAULT


def named(launch: Launch, options: dict) -> tuple[str | None, object | None]:
    """(the config file as written, the Key / EnvEntry / Default that names it), or (None, None)."""
    key = options.get("job.config_file")
    if key is not None:
        return key.value, key
    entry = launch.env.get("CONFIG_FILE")
    if entry is not None:
        return entry.value, entry
    words = launch.words()
    if words and os.path.basename(words[0] or "") == "run_train.sh":
        return RUN_TRAIN_DEFAULT, Default(launch.span)
    return None, None


def read(path: str | None) -> tuple[dict[str, str] | None, str]:
    """(`section.field` -> value as text, "") or (None, why the file is not read)."""
    if path is None:
        return None, "its path is not known statically"
    from moecfg.sources.contained import read_inside, tree_roots
    from moecfg.sources.files import Unreadable

    roots = tree_roots()
    try:
        raw = read_inside(path, roots[0], roots, MAX_BYTES)
    except Unreadable as exc:
        return None, f"{os.path.basename(path)} is not read ({exc})"
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        doc = tomllib.loads(raw.decode("utf-8", "replace"))
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        return None, f"{os.path.basename(path)} is not valid TOML ({str(exc)[:80]})"
    return dict(_flat(doc, "")), ""


def _flat(table: dict, prefix: str):
    for name, value in table.items():
        if isinstance(value, dict):
            yield from _flat(value, f"{prefix}{name}.")
        elif isinstance(value, bool):
            yield prefix + name, "true" if value else "false"
        elif isinstance(value, (int, float, str)):
            yield prefix + name, str(value)
