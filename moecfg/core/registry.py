"""The rule registry: every rule's stable code, kebab name, default severity and one-line summary.

Rule families declare their rules with `rule(...)` at import time; `all_rules()` imports every family so
listings (`moecfg rules`, docs) see them all, while `moecfg check` imports only the families it runs.
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass

# Every module that declares rules. Adding a family = adding its module here.
FAMILY_MODULES = (
    "moecfg.core.input_rules",
    "moecfg.core.suppress",
    "moecfg.core.launch_rules",
    "moecfg.backends.ascend.rules.attrs",
    "moecfg.backends.ascend.rules.experts",
    "moecfg.backends.ascend.rules.comm_alg",
    "moecfg.backends.ascend.rules.inputs",
    "moecfg.backends.ascend.rules.buffers",
    "moecfg.backends.ascend.rules.add_rms_norm",
    "moecfg.backends.ascend.rules.v1",
    "moecfg.backends.ascend.rules.ffn",
    "moecfg.backends.ascend.rules.mega_moe",
    "moecfg.backends.ascend.rules.dispatch_ffn_combine",
    "moecfg.backends.ascend.rules.sgl_deepep",
    "moecfg.frameworks.sglang.rules",
    "moecfg.frameworks.sglang.gpu_rules",
    "moecfg.frameworks.vllm.rules",
    "moecfg.frameworks.budget",
    "moecfg.frameworks.ascend_budget",
    "moecfg.frameworks.megatron.rules",
    "moecfg.frameworks.mindie.rules",
    "moecfg.backends.deepep.rules.values",
    "moecfg.backends.deepep.rules.topology",
    "moecfg.backends.deepep.rules.configs",
    "moecfg.backends.deepep.rules.hidden",
    "moecfg.backends.deepep.rules.experts",
    "moecfg.backends.deepep.rules.low_latency",
    "moecfg.backends.deepep.rules.buffers",
    "moecfg.backends.deepep.rules.cross",
    "moecfg.backends.deepep.rules.usage",
    "moecfg.backends.deepep.rules.v2",
    "moecfg.backends.deepep.rules.hybridep",
    "moecfg.backends.tutel.rules",
    "moecfg.backends.device.rules",
    "moecfg.frameworks.vllm_ascend.rules",
)


@dataclass(frozen=True, slots=True)
class Rule:
    """One registered rule: identity, scope, source citation and documentation (a docstring here also spares
    dataclass the inspect.signature() call it makes to write one, at every start-up)."""

    code: str
    name: str
    severity: str
    summary: str
    family: str
    products: tuple = ()
    rulesets: tuple = ()
    source: str = ""
    tags: tuple = ()
    # Documentation (`moecfg explain`, docs/rules.md). Examples are whole YAML documents: a test runs every
    # fail_example through the engine and asserts the code fires, every pass_example and asserts it does not.
    why: str = ""  # the failure the user would meet at launch
    cann_error: str = ""  # the library's own error text (CANN's, DeepEP's or Tutel's), where known
    fail_example: str = ""
    pass_example: str = ""
    fix: str = ""
    fail_text: str = ""  # a failing input described in words, where no YAML document can show it
    module: str = ""  # the declaring module (its docstring documents the family); filled in by rule()


DOC_FIELDS = ("why", "cann_error", "fail_example", "pass_example", "fix", "fail_text")
RULES: dict[str, Rule] = {}
_BY_NAME: dict[str, Rule] = {}
# code -> the rule's `docs` lambda: its doc fields, built only when docs are rendered (see `docs_of`). Kept out
# of `Rule`: a non-compared dataclass field adds ~0.1 ms to the class build every `moecfg check` pays.
_DOCS: dict[str, Callable[[], dict]] = {}


def rule(code: str, name: str, severity: str, summary: str, *, family: str, products=(), rulesets=(),
         source: str = "", tags=(), why: str = "", cann_error: str = "", fail_example: str = "",
         pass_example: str = "", fix: str = "", fail_text: str = "", docs: Callable[[], dict] | None = None) -> Rule:
    """Declare a rule; codes and names must be unique. The doc fields are optional (see `Rule`): give them
    directly, or as `docs=lambda: dict(why=..., fail_example=...)` so that their text is built only when docs
    are rendered (the family modules do; a field given directly wins)."""
    if code in RULES or name in _BY_NAME:
        existing = RULES.get(code) or _BY_NAME[name]
        if existing.code == code and existing.name == name:  # module re-imported
            return existing
        raise ValueError(f"rule {code}/{name} clashes with {existing.code}/{existing.name}")
    module = sys._getframe(1).f_globals.get("__name__", "")
    r = Rule(code, name, severity, summary, family, tuple(products), tuple(rulesets), source, tuple(tags),
             why, cann_error, fail_example, pass_example, fix, fail_text, module)
    RULES[code] = r
    _BY_NAME[name] = r
    if docs is not None:
        _DOCS[code] = docs
    return r


class lazy_module:
    """A module imported on first attribute access. The families' `docs` lambdas reach their example helpers
    through one, so importing a family for `moecfg check` neither imports nor builds any doc text."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(self._name), attr)


def docs_of(r: Rule) -> dict[str, str]:
    """The rule's doc fields (DOC_FIELDS): a field given to rule(...) directly wins over its `docs` lambda."""
    lazy = _DOCS[r.code]() if r.code in _DOCS else {}
    unknown = set(lazy) - set(DOC_FIELDS)
    if unknown:
        raise ValueError(f"{r.code}: unknown doc fields {sorted(unknown)}")
    return {name: getattr(r, name) or lazy.get(name, "") for name in DOC_FIELDS}


def get(code_or_name: str) -> Rule | None:
    return RULES.get(code_or_name.upper()) or _BY_NAME.get(code_or_name.lower())


def all_rules() -> list[Rule]:
    for mod in FAMILY_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:  # a family not present in this build
            if exc.name != mod:
                raise
    return sorted(RULES.values(), key=lambda r: r.code)
