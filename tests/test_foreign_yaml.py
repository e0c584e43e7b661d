"""Foreign YAML never fails CI (issue 21 items 1 and 7): a document is moecfg's only when its `kind:` names a moecfg
kind or most of its keys are moecfg fields; anything else is skipped with the reason, and a file whose top-level
keys already say it holds no launch (a CRD) is skipped without being parsed."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from moecfg.checking.engine import check_paths, check_text

FIXTURES = Path(__file__).parent / "fixtures_foreign"


@pytest.mark.parametrize("name,why", [
    ("kustomize-json6902-patch.yaml", "a list"),  # was MC010
    ("mkdocs.yaml", "not a moecfg document"),  # was MC001 (!!python/name: tags)
    ("prowlabels.yaml", "not a moecfg document"),  # was MC006 (`kind:` holding a list)
    ("crd-header.yaml", "not a moecfg document"),  # small: parsed (a large one is sniffed, below)
])
def test_foreign_fixture_is_skipped_with_its_reason(name, why):
    report = check_paths([str(FIXTURES / name)])
    assert report.results == []
    assert [s.document for s in report.skipped] == [0] and why in report.skipped[0].reason


def test_custom_tags_are_read_as_text_in_moecfg_documents_too():
    checked = check_text("kind: ascend\nproduct: !!python/name:x.y A3\n", "a.yaml")
    assert "MC001" not in [d.code for r in checked.results for d in r.diagnostics]


def test_large_crd_is_skipped_in_milliseconds():
    header = (FIXTURES / "crd-header.yaml").read_text()
    body = "".join(f"          field{i}:\n            description: |-\n              {'x' * 60}\n"
                   f"            type: string\n" for i in range(14_000))
    text = header + body
    assert len(text) > 1_700_000
    start = time.process_time()
    checked = check_text(text, "crd.yaml")
    elapsed = time.process_time() - start
    assert checked.results == [] and "not parsed" in checked.skipped[0].reason
    assert elapsed < 0.5  # parsing it with positions takes seconds


def test_a_crd_beside_a_workload_is_parsed():
    text = ("apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n"
            "spec:\n  containers:\n  - name: c\n    image: x\n    command: [vllm, serve, m]\n")
    checked = check_text(text, "mixed.yaml")
    assert checked.results or any("document 1" in s.reason for s in checked.skipped)
    assert not any("not parsed" in s.reason for s in checked.skipped)


def test_envsubst_template_without_a_launch_is_skipped():
    text = "apiVersion: v1\nkind: ConfigMap\ndata: {hosts: [${HOSTS}]}\n"  # `{` in a flow sequence: not YAML yet
    checked = check_text(text, "cm.yaml")
    assert checked.results == [] and "template" in checked.skipped[0].reason


def test_envsubst_template_with_a_launch_is_one_info():
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n"
            "    command: [vllm, serve, ${MODEL}]\n    args: [${VLLM_ARGS}]\n")
    [result] = check_text(text, "pod.yaml").results
    [d] = result.diagnostics
    assert (d.code, d.severity, d.line) == ("MC024", "info", 7)


def test_template_without_a_serving_command_is_skipped_not_an_info():
    # issue 32: an info must tell something about a launch; a Pod whose command is all template holds none
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: c\n"
            "    image: vllm/vllm-openai:v0.11.0\n    args: [${VLLM_ARGS}]\n")
    checked = check_text(text, "pod.yaml")
    assert checked.results == [] and "no launch command" in checked.skipped[0].reason


def test_helm_template_without_a_launch_is_skipped():
    text = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: {{ .Release.Name }}\n{{- end }}\n"
    checked = check_text(text, "role.yaml")
    assert checked.results == [] and "template" in checked.skipped[0].reason


def test_unknown_kind_without_moecfg_keys_is_foreign():
    checked = check_text("kind: Cluster\nnodes:\n- role: control-plane\n", "kind-config.yaml")
    assert checked.results == [] and checked.skipped


def test_skips_of_one_run_are_not_seen_by_the_next(tmp_path):
    (tmp_path / "a.yaml").write_text("- a\n- b\n")
    (tmp_path / "b.yaml").write_text("name: ci\non: [push]\n")
    first = check_paths([str(tmp_path / "a.yaml")])
    second = check_paths([str(tmp_path / "b.yaml")])
    assert [s.file for s in first.skipped] == [str(tmp_path / "a.yaml")]
    assert [s.file for s in second.skipped] == [str(tmp_path / "b.yaml")]


def test_skipped_documents_in_json_sarif_and_verbose(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from moecfg.cli import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "patch.yaml").write_text("- op: add\n  path: /x\n")
    runner = CliRunner()
    data = json.loads(runner.invoke(cli, ["check", "--format", "json", "patch.yaml"]).stdout)
    assert data["skipped"] == [{"file": "patch.yaml", "document": 0, "reason": "document 0: a list, not a mapping "
                                "of settings"}]
    sarif = json.loads(runner.invoke(cli, ["check", "--format", "sarif", "patch.yaml"]).stdout)
    [note] = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "patch.yaml"
    verbose = runner.invoke(cli, ["check", "--verbose", "patch.yaml"])
    assert "skipped patch.yaml: document 0: a list" in verbose.stderr and verbose.exit_code == 0


def test_api_reports_carry_their_own_skips():
    import moecfg

    first = moecfg.check("- a\n- b\n", name="a.yaml")
    second = moecfg.check("name: ci\non: [push]\n", name="b.yaml")
    assert [s.file for s in first.skipped] == ["a.yaml"] and [s.file for s in second.skipped] == ["b.yaml"]
    assert first.model_dump()["skipped"][0]["reason"].startswith("document 0: a list")


def test_a_big_tree_checked_on_every_core_gives_the_serial_report(tmp_path, monkeypatch):
    from moecfg.checking import engine
    from moecfg.render.json_report import render

    good = (Path(__file__).parents[1] / "examples" / "deepseek-v3-a3-ep32.yaml").read_text()
    for i in range(engine.PARALLEL_FROM + 20):
        text = good.replace("bs: 96", f"bs: {i % 300}") if i % 3 else "- op: add\n  path: /x\n"
        (tmp_path / f"f{i:03d}.yaml").write_text(text)
    parallel = render(check_paths([str(tmp_path)]))
    monkeypatch.setattr(engine, "PARALLEL_FROM", 10**9)
    assert parallel == render(check_paths([str(tmp_path)]))
