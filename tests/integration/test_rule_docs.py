"""Rule docs come from the registry: every code has an `explain` page, every documented example really fails
or passes, `moecfg rules` lists every code, and docs/rules.md is up to date."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from moecfg.checking.settings import Cli, Config, FilePolicy
from moecfg.render.rule_docs import FAILS_DESCRIBED, all_docs, rules_markdown
from moecfg.checking.engine import lint_bytes
from integration_helpers import run  # noqa: F401  (pytest fixture)

ROOT = Path(__file__).resolve().parents[2]
DOCS = all_docs()
BY_CODE = {d.code: d for d in DOCS}
# Every registered code has why, fix, a failing and a passing example. The one exception: MC008 (a binary
# file) cannot be shown as YAML text; its failing input is described in words (`fail_text`, tested below).
NO_YAML_FAIL = {"MC008": "binary or non-UTF-8 input: described in fail_text",
                "MC019": "a bug in moecfg: no known input fails it",
                "MC016": "a settings file, not a checked document: described in fail_text"}
# Launch rules whose failing input is a shell script or a non-YAML launch: described in words too (the new
# frameworks' words are checked to really fail, and their fixes to pass, in test_launch_rule_examples.py).
NO_YAML_FAIL.update({d.code: "launch input: described in fail_text" for d in DOCS
                     if d.family == "launch" and not d.fail_example})
# Infos some valid documents always get; the example checks ignore them. MC807 reports the op page's buffer
# formula next to the code's for every flat combine_add_rms_norm document.
ALWAYS_ON = {"MC807"}
# Codes that must fire together with a rule's failing example: MC805 (info) explains the MC202 error.
FIRES_WITH = {"MC805": {"MC202"}}
WITH_FAIL = [d for d in DOCS if d.fail_example]
WITH_PASS = [d for d in DOCS if d.pass_example]


def codes_of(example: str) -> list[str]:
    results = lint_bytes(example.encode("utf-8"), "example.yaml", policy=FilePolicy(Config(), Cli()))
    return [d.code for r in results for d in r.diagnostics]


def test_every_registered_code_is_documented():
    fields = ("why", "fix", "fail_example", "pass_example")
    missing = {d.code: [f for f in fields if not getattr(d, f)] for d in DOCS}
    missing = {code: gaps for code, gaps in missing.items() if gaps}
    assert missing == {code: ["fail_example"] for code in NO_YAML_FAIL}
    assert all(BY_CODE[code].fail_text for code in NO_YAML_FAIL)


@pytest.mark.parametrize("raw", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"bs: 128\nh: \xff\xfe7168\n"],
                         ids=["nul-byte", "not-utf8"])
def test_described_failure_of_mc008_fires(raw):
    results = lint_bytes(raw, "weights.bin", policy=FilePolicy(Config(), Cli()))
    assert [d.code for r in results for d in r.diagnostics] == ["MC008"]


@pytest.mark.parametrize("doc", WITH_FAIL, ids=lambda d: d.code)
def test_fail_example_fires_the_rule_and_nothing_else(doc):
    codes = codes_of(doc.fail_example)
    assert doc.code in codes
    assert set(codes) - {doc.code} - ALWAYS_ON == FIRES_WITH.get(doc.code, set()), codes


@pytest.mark.parametrize("doc", WITH_PASS, ids=lambda d: d.code)
def test_pass_example_reports_nothing(doc):
    assert set(codes_of(doc.pass_example)) - ALWAYS_ON == set()


def test_always_on_infos_are_infos():
    assert all(BY_CODE[code].severity == "info" for code in ALWAYS_ON)


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.code)
def test_explain_every_registered_code(run, doc):
    res = run("explain", doc.code)
    assert res.exit_code == 0
    head = res.stdout.splitlines()[0]
    assert head.startswith(f"{doc.code} {doc.name} ({doc.severity}; family {doc.family}")
    assert doc.summary in res.stdout
    assert doc.family_doc, f"{doc.code}: the module declaring it has no docstring (the family's user doc)"
    for label in ("Why it matters:", "Fix:", "Passes:", "Fails:" if doc.fail_example else FAILS_DESCRIBED):
        assert label in res.stdout, f"{doc.code}: explain shows no {label!r}"
    assert ("Source:" in res.stdout) is bool(doc.source)
    if doc.cann_error:
        assert f'{doc.error_label}: "{doc.cann_error}"' in res.stdout


def test_error_label_names_the_library():
    assert BY_CODE["MC604"].error_label == "DeepEP's error" and BY_CODE["MC705"].error_label == "Tutel's error"
    assert BY_CODE["MC820"].error_label == "CANN's error"


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
        "docs/rules.md is out of date: run `python -m moecfg.render.rule_docs` (or MOECFG_UPDATE_GOLDEN=1 pytest)")

