"""`kind: deepep`: pick the API's field table and hand the document to the API's folder (ops/<api>/).

`api: v1` (default) is DeepEP's legacy `Buffer`, `api: v2` `ElasticBuffer`, `api: hybridep` `HybridEPBuffer`;
the list is ops/__init__.py. Each analysis module validates through `validate` here.
"""
from __future__ import annotations

import importlib

from moecfg.backends import Analysis, Options, expand_model, root_cause
from moecfg.core.input_rules import VALIDATOR_CODES
from moecfg.core.fields import Validator
from moecfg.backends.deepep import ops
from moecfg.backends.deepep.fields import API_ALIASES, DEFAULT_OP, FIELDS, OP_FIELDS  # noqa: F401

API_MODULES = {api: ops.analysis_module(api) for api in ops.APIS}
_VALIDATOR = Validator(**VALIDATOR_CODES)


def api_of(data: dict) -> str:
    """The document's api, canonical; an unreadable one gets v1's table (whose validator reports it)."""
    api = data.get("api", DEFAULT_OP)
    if not isinstance(api, str):
        return DEFAULT_OP
    low = api.strip().lower()
    return low if low in OP_FIELDS else dict(API_ALIASES).get(low, DEFAULT_OP)


def validate(doc, table, normalize=None):
    """(values, findings, broken) of `doc` against `table`; `model:` is expanded where the table has it."""
    findings = expand_model(doc, "deepep") if any(f.name == "model" for f in table) else []
    data, more, broken = normalize(doc.data) if normalize else (doc.data, [], False)
    vals, found, bad = _VALIDATOR.validate(data, table, (), doc.raw_scalars)
    return vals, root_cause(findings + more + found, "deepep"), broken or bad


def analyze(doc, options: Options) -> Analysis:
    return importlib.import_module(API_MODULES[api_of(doc.data)]).analyze(doc, options)
