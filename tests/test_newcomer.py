"""Issue 14: what a newcomer trips on. One test (or more) per friction item fixed here."""
from __future__ import annotations

import pytest

from moecfg.checking.engine import lint_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy


def codes(text: str) -> list[str]:
    results = lint_bytes(text.encode(), "x.yaml", policy=FilePolicy(Config(), Cli()))
    return [d.code for r in results for d in r.diagnostics]


# ---- item 7: an unknown model is the root cause; the keys its preset would fill are not reported missing ----
@pytest.mark.parametrize("doc", [
    "product: A3\ncann_version: 9.0.1\nmodel: deepseek-v4\nbs: 128\nep_world_size: 32\nenv:\n  HCCL_BUFFSIZE: 1024\n",
    "kind: deepep\nmode: normal\nmodel: deepsek-v3\nnum_ranks: 16\n",
], ids=["ascend", "deepep"])
def test_unknown_model_reports_only_the_root_cause(doc):
    assert codes(doc) == ["MC006"]


def test_unknown_model_still_reports_a_key_no_preset_fills():
    # bs is not a model property: its absence is a mistake of its own
    doc = "product: A3\ncann_version: 9.0.1\nmodel: deepseek-v4\nep_world_size: 32\nenv:\n  HCCL_BUFFSIZE: 1024\n"
    assert sorted(codes(doc)) == ["MC005", "MC006"]


def test_missing_keys_without_model_are_all_reported():
    doc = "product: A3\ncann_version: 9.0.1\nbs: 128\nep_world_size: 32\nenv:\n  HCCL_BUFFSIZE: 1024\n"
    assert codes(doc) == ["MC005", "MC005", "MC005"]


# ---- item 5: `plan --emit yaml` writes files that check clean --------------------------------------------------
PLANS = {
    "ascend-no-cann": ["--product", "A3", "--model", "deepseek-v3", "--ep", "16,32", "--buffer", "768"],
    "ascend-cann": ["--product", "A3", "--model", "deepseek-v3", "--cann", "9.0.1", "--ep", "32", "--bs", "128"],
    "mega-moe": ["--product", "A3", "--set", "op=mega_moe", "--set", "h=7168", "--set", "k=8", "--set",
                 "moe_expert_num=256", "--set", "intermediate_hidden=2048", "--ep", "16", "--bs", "128"],
    "deepep": ["--kind", "deepep", "--mode", "low_latency", "--model", "deepseek-v3", "--num-ranks", "16",
               "--num-rdma-bytes", "2GiB"],
}


@pytest.mark.parametrize("args", PLANS.values(), ids=PLANS.keys())
def test_plan_emit_yaml_checks_clean(args):
    from click.testing import CliRunner

    from moecfg.cli import cli

    emitted = CliRunner().invoke(cli, ["plan", *args, "--emit", "yaml"])
    assert emitted.exit_code == 0, emitted.output
    assert "bs: 1" in emitted.output or "num_max_dispatch_tokens_per_rank:" in emitted.output
    assert codes(emitted.output) == []
    checked = CliRunner().invoke(cli, ["check", "--fail-on", "info", "-"], input=emitted.output)
    assert checked.exit_code == 0, checked.output


# ---- item 3: `buffer --help` grouped per kind, common options first, one spelling of --cann ----------------------
def _buffer_help() -> str:
    from click.testing import CliRunner

    from moecfg.cli import cli

    return CliRunner().invoke(cli, ["buffer", "--help"], terminal_width=120).output


def test_buffer_help_lists_common_options_then_one_section_per_kind():
    text = _buffer_help()
    heads = [line for line in text.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert heads == ["Options:", "Ascend fields (--kind ascend, the default):", "DeepEP fields (--kind deepep):",
                     "Tutel fields (--kind tutel):"]
    common, ascend = text.index("Options:"), text.index("Ascend fields")
    # --product is one of the options check / explain-launch / buffer share (issue 36 item 8): in the common section
    assert common < text.index("--format") < text.index("--cann ") < text.index("  --product ") < ascend \
        < text.index("--bs ") < text.index("--h ") < text.index("DeepEP fields") < text.index("--num-ranks") \
        < text.index("Tutel fields") < text.index("--world-size")


def test_buffer_help_has_one_spelling_of_cann_and_the_alias_still_works():
    assert "--cann-version" not in _buffer_help()
    from click.testing import CliRunner

    from moecfg.cli import cli

    args = ["buffer", "--product", "A3", "--bs", "128", "--h", "7168", "--k", "8", "--ep-world-size", "32",
            "--moe-expert-num", "256", "--format", "json"]
    by_alias = CliRunner().invoke(cli, args + ["--cann-version", "8.5"])
    by_flag = CliRunner().invoke(cli, args + ["--cann", "8.5"])
    assert by_alias.exit_code == by_flag.exit_code == 0
    assert '"8.5"' in by_alias.output and '"8.5"' in by_flag.output


# ---- items 2 and 4: text output grouped by file, one summary; sizes in MiB / GiB with bytes, for every kind -----
@pytest.mark.parametrize("n, shown", [
    (0, "0 B"),
    (1002438656, "956 MiB (1002438656 B)"),          # 956 * 2^20 exactly
    (798818304, "761.8 MiB (798818304 B)"),          # 798818304 / 2^20 = 761.81...
    (110265216, "105.2 MiB (110265216 B)"),          # DeepEP RDMA hint: 105.157... MiB
    (1073741824, "1 GiB (1073741824 B)"),
    (2146961792, "2.00 GiB (2146961792 B)"),         # 1.99951... GiB rounds to 2.00
    (1908410496, "1.78 GiB (1908410496 B)"),         # 1.7773... GiB
    (524288, "0.50 MiB (524288 B)"),
])
def test_size_in_binary_units_with_exact_bytes(n, shown):
    from moecfg.render.text import size

    assert size(n) == shown


EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[1] / "examples"


def _check_text(*names: str) -> str:
    from click.testing import CliRunner

    from moecfg.cli import cli

    return CliRunner().invoke(cli, ["check", "--exit-zero", *[str(EXAMPLES / n) for n in names]]).output


def test_every_kind_shows_sizes_the_same_way():
    out = _check_text("deepseek-v3-a3-ep32.yaml", "deepep-deepseek-v3-ll-decode-128.yaml",
                      "tutel-top2-32gpu-sharded.yaml")
    rows = [line for line in out.splitlines() if line.startswith("  ") and "required" in line]
    assert len(rows) >= 4
    for row in rows:
        sizes = row.split("required ", 1)[1]
        assert " MB" not in sizes and ("iB (" in sizes or "required 0 B" in row), row


def test_json_keeps_exact_bytes():
    import json

    from click.testing import CliRunner

    from moecfg.cli import cli

    out = CliRunner().invoke(cli, ["check", "--format", "json", str(EXAMPLES / "deepseek-v3-a3-ep32.yaml")]).output
    (doc,) = json.loads(out)["results"]
    assert doc["buffers"]["ep"]["required_bytes"] == 751828992


def test_text_output_groups_by_file_with_one_summary(tmp_path):
    bad = tmp_path / "a.yaml"
    # a warning (a misspelt env var) and a buffer table for the same file
    bad.write_text((EXAMPLES / "deepseek-v3-a3-ep32.yaml").read_text() + "  HCCL_INTRA_PCIE_ENABEL: 1\n")
    from click.testing import CliRunner

    from moecfg.cli import cli

    out = CliRunner().invoke(cli, ["check", str(bad), str(EXAMPLES / "deepseek-v3-a3-ep32.yaml")]).output
    lines = out.splitlines()
    first_file = [i for i, line in enumerate(lines) if line.startswith(str(bad))]
    second_file = [i for i, line in enumerate(lines) if line.startswith(str(EXAMPLES))]
    assert "MC013" in lines[first_file[0]] and "(document 0)" in lines[first_file[-1]]  # findings, then its buffers
    assert first_file and second_file and max(first_file) < min(second_file)  # a.yaml's lines, then the next file's
    assert [line for line in lines if line.startswith("Checked ")] == [lines[-1]]  # one closing summary


# ---- item 10: progress on stderr only when it is a terminal (never in pipes, CI or machine formats) ------------
def _folder(tmp_path, n: int):
    text = (EXAMPLES / "deepseek-v3-a3-ep32.yaml").read_text()
    for i in range(n):
        (tmp_path / f"d{i:04d}.yaml").write_text(text)
    return str(tmp_path)


def _run_check(args, monkeypatch, capsys, tty: bool, ci: bool = False):
    import sys

    from moecfg.cli import main

    monkeypatch.setattr(sys.stderr, "isatty", lambda: tty)
    if ci:
        monkeypatch.setenv("CI", "true")
    else:
        monkeypatch.delenv("CI", raising=False)
    with pytest.raises(SystemExit):
        main(args)
    return capsys.readouterr()


def test_progress_bar_on_a_terminal(tmp_path, monkeypatch, capsys):
    out = _run_check(["check", _folder(tmp_path, 200)], monkeypatch, capsys, tty=True)
    assert "checking" in out.err and "200/200" in out.err  # rich's bar with its count, on stderr
    assert "checking" not in out.out and out.out.endswith("0 errors, 0 warnings, 0 infos.\n")


@pytest.mark.parametrize("why", ["pipe", "ci", "json", "few-files"])
def test_no_progress_in_pipes_ci_machine_formats_or_short_runs(tmp_path, monkeypatch, capsys, why):
    n = 20 if why == "few-files" else 200
    args = ["check", _folder(tmp_path, n)] + (["--format", "json"] if why == "json" else [])
    out = _run_check(args, monkeypatch, capsys, tty=why != "pipe", ci=why == "ci")
    assert out.err == ""


def test_plan_progress_only_for_text(monkeypatch, capsys):
    import sys

    from moecfg.cli import main

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.delenv("CI", raising=False)
    plan = ["plan", "--product", "A3", "--model", "deepseek-v3", "--ep", "8:512:8", "--bs", "128"]
    for extra, shown in (([], True), (["--format", "json"], False)):
        with pytest.raises(SystemExit):
            main(plan + extra)
        assert ("planning" in capsys.readouterr().err) is shown


# ---- item 6: sweeps mark the points a rule rejects, say when the table is down-sampled, and the plot fits ----
def _sweep(*extra):
    from click.testing import CliRunner

    from moecfg.cli import cli

    return CliRunner().invoke(cli, ["sweep", "--product", "A3", "--model", "deepseek-v3", "--ep", "32", "--bs",
                                    "1:1024", "--cann", "9.0.1", *extra])


def test_sweep_marks_points_past_a3_bs_limit():
    out = _sweep("--rows", "all").output
    rows = {int(line.split("│")[1]): line for line in out.splitlines() if line.startswith("│")}
    assert len(rows) == 1024 and "rows shown" not in out  # every row, no down-sampling note
    assert "(MC103)" not in rows[512] and "(MC103)" in rows[513]  # A3 bs <= 512 (DV2T L978-987)
    assert "the rules reject that point" in out


def test_sweep_says_when_the_table_is_down_sampled():
    out = _sweep().output
    assert "24 of 1024 rows shown (evenly spaced); --rows all shows every row" in out


def test_sweep_json_lists_the_rejecting_rules_per_point():
    import json

    series = json.loads(_sweep("--format", "json").output)["series"][0]
    assert series["rejected_by"][511] == [] and series["rejected_by"][512] == ["MC103"]  # bs 512, bs 513


def test_sweep_plot_fits_the_data_and_labels_a_limit_far_above():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from moecfg.plan import report, sweep
    from moecfg.plan.problem import build

    sw = sweep.run(build({"product": "A3", "model": "deepseek-v3"}, "9.0.1"), "bs", list(range(1, 1025)), 32, [""],
                   ["9.0"], buffer_mb=4096)
    fig, ax = plt.subplots()
    report._plot_series(ax, sw)
    report._plot_limits(ax, sw)
    top = max(v for v in sw.series[0].required_mb if v)
    assert top < ax.get_ylim()[1] < 1.2 * top  # the device memory line (32768 MB) does not squash the data
    labels = [t.get_text() for t in ax.texts] + [line.get_label() for line in ax.get_lines()]
    assert any("device memory" in t and "above the chart" in t for t in labels)
    assert any("rejected (MC103)" in t for t in labels) and any("configured buffer: 4096 MB" in t for t in labels)
    plt.close(fig)


# ---- item 8: the pre-commit hook's default `files:` takes all of deploy/; a foreign YAML there is never an error --
FOREIGN = {
    "web.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
                "      containers:\n        - name: web\n          image: nginx:1.25\n",
    "compose.yaml": "services:\n  db:\n    image: postgres:16\n",
    "values.yaml": "replicaCount: 3\nimage:\n  repository: myapp\nbs: fast\n",  # a Helm values file with a `bs:`
    "notes.yaml": "owner: infra\nrunbook: https://example.invalid/runbook\n",
}


def test_foreign_yaml_under_deploy_is_skipped_not_an_error(tmp_path):
    import re

    import yaml

    hooks = yaml.safe_load((EXAMPLES.parent / ".pre-commit-hooks.yaml").read_text())
    files = re.compile(next(h for h in hooks if h["id"] == "moecfg")["files"])
    deploy = tmp_path / "deploy"
    deploy.mkdir()
    for name, text in FOREIGN.items():
        (deploy / name).write_text(text)
        assert files.search(f"deploy/{name}")  # the hook hands it to moecfg
    from click.testing import CliRunner

    from moecfg.cli import cli

    res = CliRunner().invoke(cli, ["check", "--fail-on", "info", str(deploy)])
    assert res.exit_code == 0 and res.output.startswith("Checked 4 files (0 documents): 0 errors"), res.output


def test_a_moecfg_document_with_typos_is_still_ours():
    doc = "product: A3\ncann_version: 9.0.1\nbss: 128\nh: 7168\nk: 8\nep_world_sise: 32\nmoe_expert_num: 256\n"
    assert {"MC003", "MC005"} <= set(codes(doc))


def test_deepep_sweep_marks_tokens_past_the_qp_depth():
    import json

    from click.testing import CliRunner

    from moecfg.cli import cli

    args = ["sweep", "--kind", "deepep", "--mode", "low_latency", "--model", "deepseek-v3", "--num-ranks", "16",
            "--tokens", "1:1024"]
    (series,) = json.loads(CliRunner().invoke(cli, args + ["--format", "json"]).output)["series"]
    # NVSHMEM_QP_DEPTH 1024 >= (T + 1) * 2 holds up to T = 511 (deep_ep/buffer.py; MC641)
    assert series["rejected_by"][510] == [] and series["rejected_by"][511] == ["MC641"]  # T = 511, T = 512
    text = CliRunner().invoke(cli, args).output
    assert "rejected (MC641)" in text and "24 of 1024 rows shown" in text
