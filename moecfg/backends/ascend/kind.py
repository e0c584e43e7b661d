"""`kind: ascend`: pick the op's field table, validate the document, pick the rule set, hand it to the op.

Every op has a folder in `ops/` (the list: ops/__init__.py) whose analysis module has
`analyze(doc, options)`; it is imported only when a document uses the op. The ops call `validate` / `start`.
"""
from __future__ import annotations

import importlib

from moecfg.core.diagnostics import Finding, shown
from moecfg.backends import Analysis, Options, expand_model, root_cause
from moecfg.core.input_rules import ENV_UNKNOWN, INVALID_VALUE, VALIDATOR_CODES, VERSION_UNKNOWN, VERSION_UNPINNED
from moecfg.core.fields import Validator
from moecfg.backends.ascend import ops
from moecfg.backends.ascend import fields as field_tables
from moecfg.backends.ascend.fields import DEFAULT_OP, ENV_FIELDS, OP_FIELDS
from moecfg.backends.ascend.shared.rulesets import RULESETS, resolve

OP_MODULES = {op: ops.analysis_module(op) for op in ops.OPS}
_VALIDATOR = Validator(**VALIDATOR_CODES)


def _env(values: dict, raw: dict, findings: list, fields=ENV_FIELDS) -> bool:
    env = values.get("env") or {}
    checked, env_findings, broken = _VALIDATOR.validate(env, fields, ("env",), raw)
    for fd in env_findings:
        if fd.code == VALIDATOR_CODES["unknown"]:
            fd = Finding(ENV_UNKNOWN.code, fd.path, fd.message.replace("unknown key", "environment variable")
                         + " is not used by moecfg", at_key=True)
        findings.append(fd)
    values["env"] = {k: v for k, v in checked.items() if v is not None}
    return broken


def _ruleset(values: dict, options: Options, present, findings: list):
    version = options.cann or values.get("cann_version")
    name, warning = resolve(version)
    path = ("cann_version",)
    if name is None:
        findings.append(Finding(INVALID_VALUE.code, path, f"`cann_version` = {shown(version)} is not a CANN version "
                                "(write e.g. 8.5.0, 9.0.1, 9.1 or latest)"))
        return None
    if warning:
        findings.append(Finding(VERSION_UNKNOWN.code, path, warning))
    if version is None and "cann_version" not in present:  # present but unreadable: MC004 already says so
        findings.append(Finding(VERSION_UNPINNED.code, (), "no cann_version: checking with the `latest` rule set "
                                "(upstream head); pin the release you deploy, e.g. cann_version: 9.0.1"))
    return RULESETS[name]


def __getattr__(name: str):
    if name == "FIELDS":  # the kind contract (backends/__init__.py); every op's fields, loaded on first use
        return field_tables.FIELDS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def op_of(data: dict) -> str:
    """The document's op, canonical; an unreadable or unknown op gets the default table (which reports it)."""
    op = data.get("op", DEFAULT_OP)
    if isinstance(op, str) and op.strip().lower() in OP_FIELDS:
        return op.strip().lower()
    return DEFAULT_OP


def _other_op_hints(findings: list, op: str) -> list:
    """'unknown key `hidden`' gains '; `hidden` is a field of op ffn_worker_batching'."""
    out = []
    for fd in findings:
        if fd.code == VALIDATOR_CODES["unknown"] and len(fd.path) == 1:
            owners = [o for o, table in OP_FIELDS.items() if o != op and any(f.name == fd.path[0] for f in table)]
            if owners:
                fd = Finding(fd.code, fd.path, f"{fd.message}; `{fd.path[0]}` is a field of op {' / '.join(owners)}, "
                             f"not of op {op}", fd.severity, fd.at_key)
        out.append(fd)
    return out


def validate(doc, options: Options, op: str, normalize=None):
    """(values, findings, broken, ruleset) of a document against the op's table; ruleset None if unreadable.

    Ops whose table has `model` expand the model preset first (moecfg.presets.expand); `normalize(data)`
    returns the mapping to validate (op-specific spellings, e.g. token_dtype: 1)."""
    table = OP_FIELDS[op]
    preset_findings = expand_model(doc, "ascend") if any(f.name == "model" for f in table) else []
    data = normalize(doc.data) if normalize else doc.data  # e.g. YAML 1.1 reads 1e-6 as a string
    values, findings, broken = _VALIDATOR.validate(data, table, (), doc.raw_scalars)
    findings = root_cause(preset_findings + _other_op_hints(findings, op), "ascend")
    if any(f.name == "env" for f in table):
        broken |= _env(values, doc.raw_scalars, findings)
    ruleset = _ruleset(values, options, data.keys(), findings)
    broken |= any(fd.code == VALIDATOR_CODES["too_large"] for fd in findings)
    return values, findings, broken, ruleset


def start(doc, options: Options, op: str):
    """(values, Analysis, rule set) for an op module; the rule set is None when the document cannot be analysed."""
    values, findings, broken, ruleset = validate(doc, options, op)
    out = Analysis(findings=findings, kind="ascend", op=op, product=values.get("product"),
                   ruleset=ruleset.name if ruleset else None)
    return values, out, None if broken else ruleset


def analyze(doc, options: Options) -> Analysis:
    op = op_of(doc.data)
    return importlib.import_module(OP_MODULES[op]).analyze(doc, options)
