"""The rule registry: every rule's stable code, kebab name, default severity and one-line summary.

Rule families declare their rules with `rule(...)` at import time; `all_rules()` imports every family so
listings (`moecfg rules`, docs) see them all, while `moecfg check` imports only the families it runs.
"""
from __future__ import annotations

import importlib
import sys
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
    "moecfg.frameworks.megatron.rules",
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
    cann_error: str = ""  # CANN's own error text, where known
    fail_example: str = ""
    pass_example: str = ""
    fix: str = ""
    fail_text: str = ""  # a failing input described in words, where no YAML document can show it
    module: str = ""  # the declaring module (its docstring documents the family); filled in by rule()


RULES: dict[str, Rule] = {}
_BY_NAME: dict[str, Rule] = {}


def rule(code: str, name: str, severity: str, summary: str, *, family: str, products=(), rulesets=(),
         source: str = "", tags=(), why: str = "", cann_error: str = "", fail_example: str = "",
         pass_example: str = "", fix: str = "", fail_text: str = "") -> Rule:
    """Declare a rule; codes and names must be unique. The doc fields are optional (see `Rule`)."""
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
    return r


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
