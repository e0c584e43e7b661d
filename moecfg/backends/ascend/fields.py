"""Field tables of `kind: ascend` documents, one per `op:` (contract §1.1): names and defaults are torch_npu's.

Each op's table is in its folder (ops/<op>/fields.py), the pieces they share in shared/fields.py, the list of
ops in ops/__init__.py. `OP_FIELDS[op]` is the table a document of that op is validated against; `FIELDS` is
every field of every op except shape lists (the CLI builds the `moecfg buffer` flags from it, and config
defaults are matched against it).
"""
from __future__ import annotations

import importlib

from moecfg.backends.ascend import ops
from moecfg.backends.ascend.shared.fields import (COMMON, DEFAULT_OP, ENV_FIELDS, HCCL_BUFFER_FIELDS,  # noqa: F401
                                                  OPS, PRODUCT_ALIASES, V2_FIELDS)


def _table(op: str) -> tuple:
    module = importlib.import_module(ops.folder_package(op) + ".fields")
    return module.OP_FIELDS[op] if hasattr(module, "OP_FIELDS") else module.FIELDS


OP_FIELDS = {op: _table(op) for op in ops.OPS}


def _union(tables) -> tuple:
    seen, out = set(), []
    for table in tables:
        for f in table:
            if f.name not in seen and f.type != "int_list":
                seen.add(f.name)
                out.append(f)
    return tuple(out)


FIELDS = _union(OP_FIELDS.values())
