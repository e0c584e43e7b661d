"""Documentation in walked folders (sources/files.py): read in the folders a user names, not at a repository's top
unless asked (`--markdown`, settings `markdown: true`); a folder with nothing to check is not a usage error."""
from __future__ import annotations

import json

from hostile import cli  # noqa: F401  (fixture)

LAUNCH_DOC = "# Run\n\n```bash\nvllm serve m --tensor-parallel-size 2 --enable-expert-parallel\n```\n"


def _files(out: str) -> set:
    return {r["file"] for r in json.loads(out)["results"]}


def test_docs_folder_is_read_and_not_a_usage_error(tmp_path, cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(LAUNCH_DOC)
    (docs / "notes.md").write_text("# Notes\n\nprose only, `vllm serve` mentioned in passing\n")
    code, out, err = cli("check", "--format", "json", str(docs))
    assert code in (0, 1) and _files(out) == {str(docs / "guide.md")}
    code, out, _ = cli("check", "--format", "json", "--no-markdown", str(docs))
    assert code == 0 and _files(out) == set() and json.loads(out)["summary"]["files"] == 0


def test_repository_top_reads_docs_only_when_asked(tmp_path, cli):
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text(LAUNCH_DOC)
    code, out, _ = cli("check", "--format", "json", str(tmp_path))
    assert code == 0 and _files(out) == set()
    code, out, _ = cli("check", "--format", "json", "--markdown", str(tmp_path))
    assert _files(out) == {str(tmp_path / "README.md")}


def test_settings_turn_docs_on_for_a_repository(tmp_path, cli):
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text(LAUNCH_DOC)
    (tmp_path / ".moecfg.yaml").write_text("markdown: true\n")
    code, out, _ = cli("check", "--format", "json", str(tmp_path))
    assert _files(out) == {str(tmp_path / "README.md")}


def test_named_markdown_file_is_always_read(tmp_path, cli):
    (tmp_path / ".git").mkdir()
    doc = tmp_path / "README.md"
    doc.write_text(LAUNCH_DOC)
    code, out, _ = cli("check", "--format", "json", str(doc))
    assert _files(out) == {str(doc)}


def test_empty_folder_is_not_a_usage_error(tmp_path, cli):
    code, out, err = cli("check", str(tmp_path))
    assert code == 0
