"""Rule documentation from the registry: `moecfg rules`, `moecfg explain`, SARIF help and docs/rules.md.

Each rule's text comes from its `rule(...)` declaration (summary, source, and the doc fields why / cann_error /
fail_example / pass_example / fix / fail_text, given directly or built by its `docs` lambda: registry.docs_of),
plus the docstring of the module that declares it (the family's user documentation).
Works for any registered rule: a rule with only a summary still gets a page.

`python -m moecfg.render.rule_docs [FILE]` writes docs/rules.md (default) from the registry.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass

FAILS_DESCRIBED = "Fails (described in words: a binary file, or a launch as written in a script or manifest):"
RULES_MD = "docs/rules.md"
AUTOFIX = "autofix"  # the tag of the rules whose findings carry a fix (docs/fix.md)
AUTOFIX_TEXT = ("`moecfg check --fix` sets the value where the file writes it (`--diff` shows the change; "
                "docs/fix.md).")

SOURCE_LEGEND = (
    ("[M]", "ops-transformer master of 2026-08-21 (5778144)"),
    ("R85", "ops-transformer tag v8.5.0 (6ead121)"),
    ("[R90]", "ops-transformer tag v9.0.0 (afe7214)"),
    ("[R91]", "ops-transformer tag v9.1.0.pre (121f37d)"),
    ("DV2T", "mc2/moe_distribute_dispatch_v2/op_host/op_tiling/moe_distribute_dispatch_v2_tiling.cpp"),
    ("DV2A22", "mc2/moe_distribute_dispatch_v2/op_host/op_tiling/arch22/moe_distribute_dispatch_v2_tiling_arch22.cpp"),
    ("CWS", "mc2/moe_distribute_dispatch_v2/op_host/op_tiling/moe_distribute_check_win_size.h"),
    ("CV2T", "mc2/moe_distribute_combine_v2/op_host/op_tiling/moe_distribute_combine_v2_tiling.cpp"),
    ("CV2A22", "mc2/moe_distribute_combine_v2/op_host/op_tiling/arch22/moe_distribute_combine_tiling_arch22.cpp"),
    ("MTU", "mc2/common/op_host/op_tiling/mc2_tiling_utils.cpp"),
)


@dataclass(frozen=True)
class RuleDoc:
    code: str
    name: str
    severity: str
    summary: str
    family: str
    products: tuple
    rulesets: tuple
    source: str
    tags: tuple
    family_doc: str
    why: str
    cann_error: str
    fail_example: str
    pass_example: str
    fix: str
    fail_text: str = ""  # a failing input described in words, when no YAML text can show it (MC008)
    error_by: str = ""  # whose error `cann_error` quotes, when the declaring module says (its ERROR_LABELS)

    @property
    def error_label(self) -> str:
        """Whose error text `cann_error` quotes: the module's ERROR_LABELS entry, else the library the family
        checks (a framework's start-up rule quotes the framework's own error, not CANN's)."""
        if self.error_by:
            return self.error_by
        quoted = next((label for text, label in _QUOTED if text in self.cann_error), None)
        if quoted:  # a launch rule quotes whichever library fails: its text says which (MC975: DeepEP's assert)
            return quoted
        if self.family.startswith("deepep"):
            return "DeepEP's error"
        return "Tutel's error" if self.family.startswith("tutel") else "CANN's error"

    @property
    def anchor(self) -> str:
        return f"{self.code.lower()}-{self.name}"

    @property
    def url(self) -> str:
        """Where the rule's page is in a checkout (docs/rules.md, generated); no web address is assumed."""
        return f"{RULES_MD}#{self.anchor}"


# Whose error a quoted text is, from the text itself (checked before the family's default, CANN's).
_QUOTED = (("exceeds SGLANG_", "SGLang's error"), ("deep_ep", "DeepEP's error"), ("vllm: error", "vLLM's error"),
           ("CUDA out of memory", "PyTorch's error"), ("NPU out of memory", "torch_npu's error"))


def _module_doc(module: str) -> str:
    if not module:
        return ""
    mod = sys.modules.get(module) or importlib.import_module(module)
    return (mod.__doc__ or "").strip()


def doc_for(rule) -> RuleDoc:
    from moecfg.core.registry import docs_of

    return RuleDoc(
        code=rule.code, name=rule.name, severity=rule.severity, summary=rule.summary, family=rule.family,
        products=rule.products, rulesets=rule.rulesets, source=rule.source, tags=rule.tags,
        family_doc=_module_doc(rule.module), error_by=_error_by(rule), **docs_of(rule))


def _error_by(rule) -> str:
    module = sys.modules.get(rule.module)
    return getattr(module, "ERROR_LABELS", {}).get(rule.code, "")


def all_docs() -> list[RuleDoc]:
    from moecfg.core.registry import all_rules

    return [doc_for(r) for r in all_rules()]


def lookup(code_or_name: str) -> RuleDoc | None:
    from moecfg.core.registry import all_rules, get

    all_rules()
    r = get(code_or_name.strip())
    return doc_for(r) if r else None


def _scope(values: tuple) -> str:
    """Declared products / rule sets; '-' when the rule does not declare them (its summary says)."""
    return ", ".join(values) if values else "-"


def legend(source: str) -> list[str]:
    return [f"{abbr} = {meaning}" for abbr, meaning in SOURCE_LEGEND if abbr in source]


# ---- text (moecfg explain / rules) ----------------------------------------------------------------

def _indent(text: str, pad: str = "    ") -> str:
    return "".join(pad + line + "\n" for line in text.rstrip("\n").splitlines())


def _para(text: str) -> str:
    import textwrap

    return _indent(textwrap.fill(text, width=100))


def explain_text(d: RuleDoc) -> str:
    out = [f"{d.code} {d.name} ({d.severity}; family {d.family}; products {_scope(d.products)}; "
           f"rule sets {_scope(d.rulesets)})", "", d.summary + ".", ""]
    if d.family_doc:
        out += ["What the family checks:", _indent(d.family_doc).rstrip("\n"), ""]
    if d.why:
        out += ["Why it matters:", _para(d.why).rstrip("\n")]
    if d.cann_error:
        out += [f"    {d.error_label}: \"{d.cann_error}\""]
    if d.why or d.cann_error:
        out.append("")
    if d.fail_example:
        out += ["Fails:", _indent(d.fail_example).rstrip("\n"), ""]
    elif d.fail_text:
        out += [FAILS_DESCRIBED, _para(d.fail_text).rstrip("\n"), ""]
    if d.pass_example:
        out += ["Passes:", _indent(d.pass_example).rstrip("\n"), ""]
    if d.fix:
        out += ["Fix:", _para(d.fix).rstrip("\n"), ""]
    if AUTOFIX in d.tags:
        out += ["Automatic fix:", _para(AUTOFIX_TEXT).rstrip("\n"), ""]
    if d.source:
        out += ["Source:", _indent(d.source).rstrip("\n")]
        out += [_indent(x).rstrip("\n") for x in legend(d.source)]
        out.append("")
    out.append(f"Suppress: `# moecfg: disable={d.code} -- reason` on the line (or the line before), or `ignore: "
               f"[{d.code}]` in .moecfg.yaml.")
    return "\n".join(out) + "\n"


def rules_text(docs) -> str:
    lines = [f"{'code':<6} {'name':<34} {'severity':<8} {'products':<8} {'rule sets':<14} summary"]
    for d in docs:
        scope = f"{_scope(d.products):<8} {_scope(d.rulesets):<14}"
        lines.append(f"{d.code:<6} {d.name:<34} {d.severity:<8} {scope} {d.summary}")
    return "\n".join(lines) + "\n"


def rules_json(docs) -> list[dict]:
    return [{
        "code": d.code, "name": d.name, "severity": d.severity, "family": d.family,
        "products": list(d.products), "rulesets": list(d.rulesets), "summary": d.summary, "source": d.source,
        "tags": list(d.tags), "why": d.why, "cann_error": d.cann_error, "fail_example": d.fail_example,
        "pass_example": d.pass_example, "fail_text": d.fail_text, "fix": d.fix, "url": d.url,
    } for d in docs]


# ---- markdown (docs/rules.md, SARIF help) ---------------------------------------------------------

def help_markdown(d: RuleDoc, heading: str = "") -> str:
    out = [heading] if heading else []
    out += [f"**{d.summary}.** Severity `{d.severity}`; products {_scope(d.products)}; rule sets "
            f"{_scope(d.rulesets)}; family `{d.family}`.", ""]
    if d.why:
        out += [f"*Why:* {d.why}", ""]
    if d.cann_error:
        out += [f"*{d.error_label}:* `{d.cann_error}`", ""]
    if d.fail_example:
        out += ["*Fails:*", "", "```yaml", d.fail_example.rstrip("\n"), "```", ""]
    elif d.fail_text:
        out += [f"*{FAILS_DESCRIBED[:-1]}:* {d.fail_text}", ""]
    if d.pass_example:
        out += ["*Passes:*", "", "```yaml", d.pass_example.rstrip("\n"), "```", ""]
    if d.fix:
        out += [f"*Fix:* {d.fix}", ""]
    if AUTOFIX in d.tags:
        out += [f"*Automatic fix:* {AUTOFIX_TEXT}", ""]
    if d.source:
        out += [f"*Source:* {d.source}" + (f" ({'; '.join(legend(d.source))})" if legend(d.source) else ""), ""]
    return "\n".join(out)


def help_plain(d: RuleDoc) -> str:
    parts = [d.summary + "."]
    if d.why:
        parts.append("Why: " + d.why)
    if d.cann_error:
        parts.append(f"{d.error_label}: \"{d.cann_error}\".")
    if d.fix:
        parts.append("Fix: " + d.fix)
    if AUTOFIX in d.tags:
        parts.append("Automatic fix: " + AUTOFIX_TEXT)
    if d.source:
        parts.append("Source: " + d.source)
    parts.append(f"See `moecfg explain {d.code}`.")
    return " ".join(parts)


def rules_markdown(docs) -> str:
    out = ["# moecfg rules", "",
           "Generated from the rule registry by `python -m moecfg.render.rule_docs`; do not edit by hand "
           "(tests/integration/test_rule_docs.py fails when this page is out of date). "
           "`moecfg explain CODE` prints the same text.", "",
           "| code | name | severity | summary |", "|---|---|---|---|"]
    out += [f"| [{d.code}](#{d.anchor}) | {d.name} | {d.severity} | {d.summary.replace('|', '/')} |" for d in docs]
    out.append("")
    family = None
    for d in docs:
        if d.family != family:
            family = d.family
            out += [f"## Family `{family}`", ""]
            if d.family_doc:
                out += [d.family_doc, ""]
        out.append(help_markdown(d, f"### {d.code} {d.name}\n"))
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else RULES_MD
    import os

    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(rules_markdown(all_docs()))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
