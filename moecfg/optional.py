"""Import a module of this package that a build may leave out (a backend, a framework, the launch readers)."""
from __future__ import annotations

import importlib


def optional_module(name: str | None):
    """The module `name`, or None when it (or a package above it) is not installed; other import errors raise."""
    if name is None:
        return None
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            return None
        raise
