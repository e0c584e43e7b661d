"""Field tables of `kind: ascend` documents, one per `op:` (contract §1.1): names and defaults are torch_npu's.

Each op's table is in its folder (ops/<op>/fields.py), the pieces they share in shared/fields.py, the list of
ops in ops/__init__.py. `OP_FIELDS[op]` is the table a document of that op is validated against; `FIELDS` is
every field of every op except shape lists (the CLI builds the `moecfg buffer` flags from it, and config
defaults are matched against it).
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping

from moecfg.backends.ascend import ops
from moecfg.backends.ascend.shared.fields import (COMMON, DEFAULT_OP, ENV_FIELDS, HCCL_BUFFER_FIELDS,  # noqa: F401
                                                  OPS, PRODUCT_ALIASES, V2_FIELDS)


def _table(op: str) -> tuple:
    module = importlib.import_module(ops.folder_package(op) + ".fields")
    return module.OP_FIELDS[op] if hasattr(module, "OP_FIELDS") else module.FIELDS


class _Tables(Mapping):
    """op -> its field table, in ops.OPS order; an op's fields module is imported when its table is first read
    (checking a document reads one op's: importing the other seven costs ~3 ms of start-up)."""

    def __init__(self, names):
        self._names, self._loaded = tuple(names), {}

    def __getitem__(self, op: str) -> tuple:
        if op not in self._loaded:
            if op not in self._names:
                raise KeyError(op)
            self._loaded[op] = _table(op)
        return self._loaded[op]

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


OP_FIELDS = _Tables(ops.OPS)


def _union(tables) -> tuple:
    seen, out = set(), []
    for table in tables:
        for f in table:
            if f.name not in seen and f.type != "int_list":
                seen.add(f.name)
                out.append(f)
    return tuple(out)


def __getattr__(name: str):
    if name == "FIELDS":  # every op's table: built on first use, like OP_FIELDS's
        globals()["FIELDS"] = fields = _union(OP_FIELDS.values())
        return fields
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
