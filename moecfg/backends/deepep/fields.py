"""Field tables of `kind: deepep` documents (contract §1.2), one per `api:`.

`api: v1` (default): the arguments a job passes to DeepEP's legacy `Buffer(...)`, its `Config(...)` objects
and the model shapes the kernels are called with. `api: v2`: DeepEP V2 `ElasticBuffer(...)`, fields named
as its keyword arguments. `api: hybridep`: NVIDIA Hybrid-EP `HybridEPBuffer(...)` (DeepEP branch hybrid-ep).
Each table is in its API's folder (ops/<api>/fields.py), the list of APIs in ops/__init__.py.
`OP_FIELDS[api]` is the table a document is validated against; `FIELDS` is the union (the `buffer` flags).
"""
from __future__ import annotations

import importlib

from moecfg.backends.deepep import ops
from moecfg.backends.deepep.ops.v1.fields import ENV_FIELDS, MODE_ALIASES, MODES, V1_FIELDS  # noqa: F401
from moecfg.backends.deepep.ops.v2.fields import V2_FIELDS  # noqa: F401
from moecfg.backends.deepep.ops.hybridep.fields import HYBRIDEP_FIELDS  # noqa: F401
from moecfg.backends.deepep.shared.fields import API_ALIASES, APIS, DEFAULT_OP, DTYPE_ALIASES  # noqa: F401
from moecfg.core.record import replace

OP_KEY = "api"  # the key that selects the table (models/export.py)
OP_FIELDS = {api: importlib.import_module(ops.folder_package(api) + ".fields").FIELDS for api in ops.APIS}


def _union(tables) -> tuple:
    """The first table as is, then the other tables' fields it lacks, optional (the v1 planner reads FIELDS)."""
    seen, out = set(), []
    for i, table in enumerate(tables):
        for f in table:
            if f.name not in seen:
                seen.add(f.name)
                out.append(f if i == 0 else replace(f, required=False))
    return tuple(out)


FIELDS = _union(OP_FIELDS.values())
