"""The backends a document can describe (`kind:`), each a module imported only when a document needs it.

A kind module defines `analyze(doc: YamlDocument, options: Options) -> Analysis` and `FIELDS` (its
field table, see schema.py).
"""
from __future__ import annotations

import importlib.util

from moecfg.core.record import field, record
from moecfg.optional import optional_module

KIND_MODULES = {
    "ascend": "moecfg.backends.ascend.kind",
    "deepep": "moecfg.backends.deepep.kind",
    "tutel": "moecfg.backends.tutel.kind",
}
# Field tables by kind. Module names come from these tables only, never from a document's text.
FIELD_MODULES = {
    "ascend": "moecfg.backends.ascend.fields",
    "deepep": "moecfg.backends.deepep.fields",
    "tutel": "moecfg.backends.tutel.ops.moe_layer.fields",
}
DEFAULT_KIND = "ascend"


@record(frozen=True, slots=True)
class Options:
    """Run-wide settings that change how documents are judged."""

    cann: str | None = None  # --cann: overrides every document's cann_version
    product: str | None = None  # --product A2 | A3: the hardware of launch files (a launch does not name it)
    device: str | None = None  # --product H100, ...: the GPU model of GPU launches (settings `device`)
    framework_versions: tuple = ()  # --framework-version NAME=VERSION pairs: win over the settings file's


@record(slots=True)
class Analysis:
    """What a kind found in one document: findings, the op and product it resolved, and the buffers."""

    findings: list = field(default_factory=list)
    kind: str | None = None
    op: str | None = None
    product: str | None = None
    ruleset: str | None = None
    buffers: dict = field(default_factory=dict)
    derived: dict = field(default_factory=dict)
    explanations: dict = field(default_factory=dict)


def available() -> list[str]:
    return [k for k, mod in KIND_MODULES.items() if importlib.util.find_spec(mod) is not None]


def fields_module(kind):
    """The field-table module of a registered kind, or None (unknown kind, or not in this build)."""
    return optional_module(FIELD_MODULES.get(kind) if isinstance(kind, str) else None)


def load(kind: str):
    """The module of `kind`, or None if this build has no such backend."""
    return optional_module(KIND_MODULES.get(kind) if isinstance(kind, str) else None)


def expand_model(doc, kind: str) -> list:
    """`model:` / `redundant_experts:` of a document (moecfg.presets.expand): findings, and the document filled
    in place. The preset catalog is imported only for documents that use one of the two keys."""
    data = doc.data
    if not isinstance(data, dict) or ("model" not in data and "redundant_experts" not in data):
        return []
    from moecfg.presets.expand import expand

    return expand(doc, kind)


def root_cause(findings: list, kind: str) -> list:
    """`findings` without the missing-key errors an unknown `model:` causes (moecfg.presets.expand)."""
    if not any(tuple(f.path) == ("model",) for f in findings):
        return findings
    from moecfg.presets.expand import without_follow_ons

    return without_follow_ons(findings, kind)

