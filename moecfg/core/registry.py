"""The rule registry: every rule's stable code, kebab name, default severity and one-line summary.

Rule families declare their rules with `rule(...)` at import time; `all_rules()` imports every family so
listings (`moecfg rules`, docs) see them all, while `moecfg check` imports only the families it runs.
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from moecfg.core.record import record

# Every module outside backends/ that declares rules. Adding a family = adding its module here; the backends'
# rule modules are found by place (backend_rule_modules: an op folder's rules, a shared/rules package).
FAMILY_MODULES = (
    "moecfg.core.input_rules",
    "moecfg.core.suppress",
    "moecfg.core.launch_rules",
    "moecfg.frameworks.sglang.rules",
    "moecfg.frameworks.sglang.gpu_rules",
    "moecfg.frameworks.vllm.rules",
    "moecfg.frameworks.budget",
    "moecfg.frameworks.ascend_budget",
    "moecfg.frameworks.megatron.rules",
    "moecfg.frameworks.mindspeed.rules",
    "moecfg.frameworks.mindie.rules",
    "moecfg.frameworks.vllm_mindspore.rules",
    "moecfg.frameworks.xllm.rules",
    "moecfg.frameworks.vllm_ascend.rules",
    "moecfg.frameworks.lmdeploy.rules",
    "moecfg.frameworks.lightllm.rules",
    "moecfg.frameworks.rtp_llm.rules",
    "moecfg.trainers.verl.rules",
    "moecfg.trainers.slime.rules",
    "moecfg.trainers.ms_swift.rules",
    "moecfg.trainers.mindspeed_rl.rules",
    "moecfg.trainers.roll.rules",
    "moecfg.trainers.megatron_bridge.rules",
    "moecfg.trainers.skyrl.rules",
    "moecfg.trainers.nemo_rl.rules",
    "moecfg.trainers.torchtitan.rules",
    "moecfg.trainers.areal.rules",
    "moecfg.trainers.mindspeed_mm.rules",
    "moecfg.trainers.rlinf.rules",
    "moecfg.trainers.rllm.rules",
    "moecfg.trainers.llamafactory.rules",
    "moecfg.trainers.prime_rl.rules",
    "moecfg.trainers.chatlearn.rules",
)


@record(frozen=True, slots=True)
class Rule:
    """One registered rule: identity, scope, source citation and documentation."""

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
# code -> the rule's `docs` lambda: its doc fields, built only when docs are rendered (see `docs_of`).
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
    for mod in FAMILY_MODULES + backend_rule_modules():
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:  # a family not present in this build
            if exc.name != mod:
                raise
    return sorted(RULES.values(), key=lambda r: r.code)


def backend_rule_modules() -> tuple[str, ...]:
    """Every backend module that declares rules, found by place: an op folder's `rules.py` or `rules/` package
    (backends/<backend>/ops/<op>/), a backend's `shared/rules/`, and `device/rules.py`. Listings (`moecfg rules`,
    the docs) import them all; a new op folder's rules are listed without a registry line."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "backends"  # by path: core does not import backends
    found = [*root.glob("*/ops/*/rules.py"), *root.glob("*/ops/*/rules/*.py"), *root.glob("*/shared/rules/*.py"),
             *root.glob("*/rules.py")]
    names = {".".join(p.relative_to(root.parent.parent).with_suffix("").parts) for p in found
             if p.stem not in ("__init__", "examples_base")}
    return tuple(sorted(names))
