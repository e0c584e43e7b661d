"""Issue 36 items 1-2: the examples and the documentation pages ship inside the package (moecfg/examples and
moecfg/docs link to the repository's folders; package-data names them), `moecfg examples` lists and copies them,
`moecfg docs PAGE` prints a page, and every page a message names is one `moecfg docs` prints. (.ci/run builds the
wheel and checks a bundled example from a fresh venv.)"""
from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from moecfg.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def _package_data() -> list:
    section = (ROOT / "pyproject.toml").read_text().split("[tool.setuptools.package-data]", 1)[1]
    return ast.literal_eval(re.search(r"(?m)^moecfg\s*=\s*(\[.*?\])", section, re.S).group(1))


@pytest.mark.parametrize("folder", ["examples", "docs"])
def test_the_package_links_to_the_repository_folder(folder):
    link = ROOT / "moecfg" / folder
    assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve()


@pytest.mark.parametrize("folder, suffixes", [("examples", (".yaml", ".yml", ".sh")), ("docs", (".md",))])
def test_package_data_names_every_file_of_the_folder(folder, suffixes):
    patterns = _package_data()
    files = [p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob("*") if p.is_file()]
    assert any(f.endswith("/.moecfg.yaml") for f in files) or folder == "docs"
    shipped = [f for f in files if f.endswith(suffixes)]
    assert shipped and [f for f in shipped if not any(fnmatch.fnmatch(f, pat) for pat in patterns)] == []


def _run(*args):
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout


def test_examples_lists_every_example_with_what_it_deploys():
    code, out = _run("examples")
    names = {line.split()[0] for line in out.splitlines()}
    expected = {p.relative_to(ROOT / "examples").as_posix() for p in (ROOT / "examples").rglob("*")
                if p.suffix in (".yaml", ".sh")}
    assert code == 0 and names == expected
    assert "DeepSeek-V3 decode with DeepEP low-latency kernels" in out


def test_examples_copy_gives_the_checkout_findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out = _run("examples", "--copy", "try")
    assert code == 0 and "next: moecfg check try" in out
    assert (tmp_path / "try" / "launch" / ".moecfg.yaml").is_file()
    copied = CliRunner().invoke(cli, ["check", "try"]).stdout.splitlines()[-1]
    monkeypatch.chdir(ROOT)
    original = CliRunner().invoke(cli, ["check", "examples"]).stdout.splitlines()[-1]
    assert copied == original and "0 errors" in copied


def test_examples_copy_never_overwrites(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "try").mkdir()
    (tmp_path / "try" / "deepseek-v3-a3-ep16.yaml").write_text("mine\n")
    res = CliRunner().invoke(cli, ["examples", "--copy", "try"])
    assert res.exit_code == 2 and "exists already (nothing copied)" in res.stderr
    assert (tmp_path / "try" / "deepseek-v3-a3-ep16.yaml").read_text() == "mine\n"
    assert sorted(p.name for p in (tmp_path / "try").iterdir()) == ["deepseek-v3-a3-ep16.yaml"]


def test_docs_lists_and_prints_pages():
    code, out = _run("docs")
    assert code == 0 and re.search(r"(?m)^mindie\s+MindIE-LLM", out) and re.search(r"(?m)^preflight\s", out)
    code, page = _run("docs", "frameworks/mindie")
    assert code == 0 and page == (ROOT / "docs" / "frameworks" / "mindie.md").read_text()
    assert _run("docs", "mindie")[1] == page


def test_an_unknown_page_is_a_usage_error():
    res = CliRunner().invoke(cli, ["docs", "mindei"])
    assert res.exit_code == 2 and "did you mean" in res.stderr and "`moecfg docs` lists them" in res.stderr


def test_every_page_a_message_names_is_printed():
    cited = set()
    for path in (ROOT / "moecfg").rglob("*.py"):
        cited |= set(re.findall(r"`moecfg docs ([\w/-]+)`", path.read_text(encoding="utf-8")))
    assert "mindie" in cited
    for page in cited:
        assert _run("docs", page)[0] == 0, page
