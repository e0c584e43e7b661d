"""Issue 21 item 2: the reader accepts every script bash accepts. Each committed script is read and checked with
`bash -n`; a disagreement fails. Scripts named reject-* hold a launch after the error bash finds, and say on their
second line where moecfg must report it."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from moecfg.sources.shell import repair as shell_repair
from moecfg.sources.readers import read_shell

HERE = Path(__file__).parent
CORPUS = sorted((HERE / "shell_corpus").glob("*.sh")) + sorted((HERE.parent / "sources" / "fixtures").glob("*.sh"))
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is the reference")


def bash_accepts(path: Path) -> bool:
    return subprocess.run(["bash", "-n", str(path)], capture_output=True, check=False).returncode == 0


def syntax_errors(text: str) -> list:
    return [p for p in read_shell(text).problems if p.code == "MC020"]


@needs_bash
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_reader_agrees_with_bash(path):
    text = path.read_text(encoding="utf-8")
    errors = syntax_errors(text)
    assert bool(errors) == (not bash_accepts(path)), [p.message for p in errors]
    if errors:
        (line,) = re.findall(r"^# MC020 at line (\d+)$", text, re.M)
        assert [p.span.line for p in errors] == [int(line)]


@pytest.mark.parametrize("path", [p for p in CORPUS if not p.name.startswith("reject-")], ids=lambda p: p.name)
def test_without_bash_the_reader_still_accepts_them(path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert syntax_errors(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", [p for p in CORPUS if p.parent.name == "shell_corpus" and
                                  not p.name.startswith("reject-")], ids=lambda p: p.name)
def test_the_launch_after_a_construct_tree_sitter_cannot_parse_is_read(path):
    launches = read_shell(path.read_text(encoding="utf-8")).launches
    texts = [" ".join(str(w.value) for w in x.argv) for x in launches]
    assert any(re.search(r"vllm serve|sglang\.launch_server|pretrain_\w+\.py", t) for t in texts), texts


def test_final_continuation_keeps_the_last_flag():
    text = (HERE / "shell_corpus" / "final-continuation.sh").read_text(encoding="utf-8")
    (launch,) = read_shell(text).launches
    assert [w.value for w in launch.argv][-2] == "--load"


def test_a_syntax_error_far_from_any_launch_is_not_reported():
    assert syntax_errors("vllm serve m --tensor-parallel-size 8\nfor x in; do\n") == []


def test_placeholders_are_unknown_values_named_once():
    text = "export HCCL_IF_IP=<node_ip>\nvllm serve <PATH_TO_CKPT> --host <host_ip> --port 8000\n"
    lf = read_shell(text)
    (launch,) = lf.launches
    assert [w.value for w in launch.argv][:3] == ["vllm", "serve", None]
    assert launch.env["HCCL_IF_IP"].value is None
    (note,) = lf.problems
    assert note.code == "MC023" and all(p in note.message for p in ("<node_ip>", "<PATH_TO_CKPT>", "<host_ip>"))
    assert (note.span.line, note.span.column) == (1, 19)


def test_placeholder_like_text_in_single_quotes_stays_literal():
    (launch,) = read_shell("vllm serve m --chat-template '<tpl>'\n").launches
    assert launch.argv[-1].value == "<tpl>"


def test_placeholders_in_a_manifest_bash_c_string_are_named_once():
    from sources_helpers import read_yaml_text

    (lf,) = read_yaml_text("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n    - name: vllm\n"
                           "      command: [bash, -c]\n      args:\n        - |\n"
                           "          vllm serve <PATH_TO_CKPT> --host <host_ip>\n")
    (note,) = [p for p in lf.problems if p.code == "MC023"]
    assert "<PATH_TO_CKPT>" in note.message and "<host_ip>" in note.message and note.span.line == 10
