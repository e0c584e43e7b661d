"""Rule docs come from the registry: every code has an `explain` page, every documented example really fails
or passes, `moecfg rules` lists every code, and docs/rules.md is up to date."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from moecfg.config import Cli, Config, FilePolicy
from moecfg.docs import all_docs, rules_markdown
from moecfg.engine import lint_bytes
from integration_helpers import run  # noqa: F401  (pytest fixture)

ROOT = Path(__file__).resolve().parents[2]
DOCS = all_docs()
WITH_FAIL = [d for d in DOCS if d.fail_example]
WITH_PASS = [d for d in DOCS if d.pass_example]
# Families whose docs this issue wrote: each of their rules has both examples (MC008, binary input, cannot be
# shown as text). Families added later document their rules in `rule(...)`; the examples they give are tested.
OWN_FAMILIES = ("input", "suppression", "ascend-attrs", "ascend-experts", "ascend-comm-alg", "ascend-inputs",
                "ascend-buffers")


def codes_of(example: str) -> list[str]:
    results = lint_bytes(example.encode("utf-8"), "example.yaml", policy=FilePolicy(Config(), Cli()))
    return [d.code for r in results for d in r.diagnostics]


@pytest.mark.parametrize("doc", WITH_FAIL, ids=lambda d: d.code)
def test_fail_example_fires_the_rule(doc):
    assert doc.code in codes_of(doc.fail_example)


@pytest.mark.parametrize("doc", WITH_PASS, ids=lambda d: d.code)
def test_pass_example_does_not_fire_the_rule(doc):
    assert doc.code not in codes_of(doc.pass_example)


def test_own_families_have_both_examples():
    missing = [d.code for d in DOCS if d.family in OWN_FAMILIES and not (d.fail_example and d.pass_example)]
    assert missing == ["MC008"]


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.code)
def test_explain_every_registered_code(run, doc):
    res = run("explain", doc.code)
    assert res.exit_code == 0
    head = res.stdout.splitlines()[0]
    assert head.startswith(f"{doc.code} {doc.name} ({doc.severity}; family {doc.family}")
    assert doc.summary in res.stdout
    assert doc.family_doc, f"{doc.code}: the module declaring it has no docstring (the family's user doc)"
    for part, label in ((doc.fail_example, "Fails:"), (doc.pass_example, "Passes:"), (doc.fix, "Fix:"),
                        (doc.source, "Source:"), (doc.why, "Why it matters:")):
        assert (label in res.stdout) is bool(part)


def test_explain_by_name_and_case_insensitive_code(run):
    by_name = run("explain", "moe-expert-divisibility").stdout
    assert by_name == run("explain", "mc201").stdout
    assert 'CANN\'s error: "moeExpertNum should be divisible by (epWorldSize - sharedExpertRankNum)"' in by_name
    assert "moe_expert_num: 250" in by_name and "DV2T = mc2/moe_distribute_dispatch_v2" in by_name


def test_explain_unknown_rule_is_a_usage_error(run):
    res = run("explain", "moe-expert-divisibilty")
    assert res.exit_code == 2 and "did you mean `moe-expert-divisibility`?" in res.stderr


def test_rules_json_lists_every_code(run):
    listed = json.loads(run("rules", "--format", "json").stdout)
    assert [r["code"] for r in listed] == [d.code for d in DOCS]
    mc201 = next(r for r in listed if r["code"] == "MC201")
    assert mc201["name"] == "moe-expert-divisibility" and mc201["severity"] == "error"
    assert set(mc201) >= {"products", "rulesets", "summary", "source", "url"}


def test_rules_text_has_one_line_per_code(run):
    lines = run("rules").stdout.splitlines()
    assert len(lines) == len(DOCS) + 1 and lines[0].split()[:3] == ["code", "name", "severity"]
    assert any(line.startswith("MC014  unused-suppression") for line in lines)


def test_docs_rules_md_is_up_to_date():
    path = ROOT / "docs" / "rules.md"
    text = rules_markdown(DOCS)
    if os.environ.get("MOECFG_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists() and path.read_text(encoding="utf-8") == text, (
        "docs/rules.md is out of date: run `python -m moecfg.docs` (or MOECFG_UPDATE_GOLDEN=1 pytest)")

