"""Walking folders leaves out what nobody deploys (issue 21 item 4): vendored and third-party code, dependencies,
build outputs, and what `.gitignore` files ignore (as ruff does); `--no-respect-gitignore` / `respect-gitignore:
false` turn the last off; a folder named on the command line is always checked."""
from __future__ import annotations

from click.testing import CliRunner

from moecfg.cli import cli
from moecfg.checking.engine import check_paths
from moecfg.sources.files import Walk, discover

BAD = "kind: ascend\nproduct: A9\n"


def _tree(root):
    for folder in ("deploy", "vendor/x", "node_modules/y", "third_party/z", "build", "dist", "generated", "deploy/tmp"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "a.yaml").write_text(BAD)
    (root / ".gitignore").write_text("# built by make\ngenerated/\n*.tmp.yaml\n")
    (root / "deploy" / ".gitignore").write_text("tmp/\n!keep.tmp.yaml\n")
    (root / "deploy" / "keep.tmp.yaml").write_text(BAD)
    (root / "deploy" / "drop.tmp.yaml").write_text(BAD)


def _found(root, **kw):
    return sorted(str(e.path)[len(str(root)) + 1:] for e in discover([str(root)], Walk(**kw)))


def test_vendor_build_and_gitignored_paths_are_not_walked(tmp_path):
    _tree(tmp_path)
    assert _found(tmp_path) == ["deploy/a.yaml", "deploy/keep.tmp.yaml"]


def test_without_gitignore_only_the_default_folders_are_left_out(tmp_path):
    _tree(tmp_path)
    assert _found(tmp_path, respect_gitignore=False) == [
        "deploy/a.yaml", "deploy/drop.tmp.yaml", "deploy/keep.tmp.yaml", "deploy/tmp/a.yaml", "generated/a.yaml"]


def test_a_folder_named_on_the_command_line_is_checked(tmp_path):
    _tree(tmp_path)
    assert len(check_paths([str(tmp_path / "vendor")]).results) == 1


def test_cli_flag_and_setting(tmp_path, monkeypatch):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    files = lambda *a: runner.invoke(cli, ["check", "--format", "json", *a, "."]).stdout  # noqa: E731
    assert '"files": 2' in files()
    assert '"files": 5' in files("--no-respect-gitignore")
    (tmp_path / ".moecfg.yaml").write_text("respect-gitignore: false\n")
    assert '"files": 5' in files()


def test_a_gitignore_pathspec_cannot_read_ignores_nothing_and_warns_nothing(tmp_path):
    (tmp_path / ".gitignore").write_text("[[x]\n[\n")
    (tmp_path / "a.yaml").write_text(BAD)
    assert _found(tmp_path) == ["a.yaml"]
