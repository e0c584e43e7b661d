"""A settings file of the tree that cannot be used (MC016, issue 33) is reported in streamed text output too: it is
found while walking and said once the files are done (checking/stream.py)."""
from __future__ import annotations

from click.testing import CliRunner

from moecfg.cli import cli


def test_mc016_is_streamed_with_the_other_findings(tmp_path, monkeypatch):
    sub = tmp_path / "team"
    sub.mkdir()
    (sub / ".moecfg.yaml").write_text("fail-on: [not, a, severity\n")
    (sub / "a.yaml").write_text((tmp_path / "a.yaml").write_text("kind: ascend\n") and "kind: ascend\n")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["check", "."])
    assert "MC016" in res.stdout and res.exit_code == 1, res.stdout
    as_json = CliRunner().invoke(cli, ["check", ".", "--format", "json"])
    assert "MC016" in as_json.stdout
