"""False positives met running `moecfg check .` on the repositories of the new launch surfaces (MindSpeed,
MindIE, LMDeploy, xLLM, vllm-mindspore, vLLM recipes; docs/wild.md); each fixture cites its source."""
from __future__ import annotations

from wildkit import FIXTURES, findings

from moecfg.backends import Options
from moecfg.checking.engine import check_paths


def test_a_test_matrix_with_a_products_section_is_not_a_moecfg_document():
    # `products:` is a near miss of the field `product`, but it holds a list of mappings: a section, not a typo
    assert findings("mindspeed-usecase-matrix.yaml") == []
    report = check_paths([str(FIXTURES / "mindspeed-usecase-matrix.yaml")], Options())
    assert [s.reason for s in report.skipped]


def test_a_typo_of_a_field_holding_a_value_is_still_reported(tmp_path):
    (tmp_path / "ep.yaml").write_text("kind: ascend\nproduct: A3\nbss: 128\n")
    assert ("MC003", "error") in {(f[0], f[1]) for f in findings(str(tmp_path / "ep.yaml"))}
    (tmp_path / "typo.yaml").write_text("productt: A3\nbss: 128\n")  # only near misses, values: still ours
    assert "MC003" in {f[0] for f in findings(str(tmp_path / "typo.yaml"))}


def test_an_empty_yaml_file_met_walking_a_folder_is_skipped():
    folder = FIXTURES / "ome-empty-values"
    report = check_paths([str(folder)], Options())
    assert report.results == [] and [s.reason for s in report.skipped] == ["empty: no YAML document"]
    named = check_paths([str(folder / "values.yaml")], Options())  # named on the command line: still MC007
    assert [(d.code, d.severity) for r in named.results for d in r.diagnostics] == [("MC007", "warning")]


def test_placeholders_of_a_script_without_a_recognised_launch_say_nothing():
    # a verl trainer started by torchrun (no framework moecfg reads), its usage line naming `<nproc_per_node>`
    assert findings("verl-usage-placeholders.sh") == []


def test_placeholders_beside_a_recognised_launch_are_still_named():
    from moecfg.checking.engine import lint_text

    results = lint_text("vllm serve /models/dsr1 --host <host_ip> --enable-expert-parallel\n", "run.sh", Options())
    assert any(d.code == "MC023" and "<host_ip>" in d.message for r in results for d in r.diagnostics)


def test_a_directory_tree_or_a_file_command_naming_an_entry_script_is_no_launch():
    # `├── pretrain_gpt.py  # 预训练流程` in a shell block (MindSpeed-LLM README) and `cp pretrain_gpt.py` name the
    # script without running it; the torchrun line below them is the one launch
    import json

    from click.testing import CliRunner

    from moecfg.cli import cli

    out = CliRunner().invoke(cli, ["check", "--format", "json", str(FIXTURES / "mindspeed-llm-readme-tree.md")]).output
    launches = {(r["file"], r["launch"]["index"]) for r in json.loads(out)["results"] if r.get("launch")}
    assert len(launches) == 1
    [result] = [r for r in json.loads(out)["results"] if r.get("launch")]
    assert result["launch"]["framework"] in ("megatron", "mindspeed") and result["launch"]["line"] == 14
