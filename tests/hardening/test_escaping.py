"""Security 4: text from files is escaped at one place per output format: no GitHub workflow command, no
terminal escape sequence, well-formed XML, and JSON/SARIF keep escaping control characters."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from hostile import GOOD, cli  # noqa: F401  (fixture)
from moecfg.checking.engine import check_paths
from moecfg.render import escape, load

# a key that injects a workflow command, an OSC title sequence, BEL, SOH and a bidi override
KEY = r'"x\n::error file=a.yaml,line=1::pwned\e]0;title\a\x01\u202e"'
HOSTILE = GOOD.replace("env:", f"{KEY}: 1\nenv:")
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]")


def _file(tmp_path, name="a.yaml"):
    p = tmp_path / name
    p.write_text(HOSTILE)
    return str(p)


def _no_injected_command(out: str) -> None:
    for line in out.splitlines():
        assert not line.lstrip().startswith("::") or line.startswith(("::error file=", "::warning file=")), line
    assert not CONTROL.search(out)


def test_text_output_shows_control_characters_escaped(tmp_path, cli):
    code, out, _ = cli("check", _file(tmp_path))
    assert code == 1
    _no_injected_command(out)
    assert r"unknown key `x\n::error file=a.yaml,line=1::pwned\x1b]0;title\x07\x01\u202e`" in out


def test_github_format_escapes_its_own_and_control_characters(tmp_path, cli, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, _ = cli("check", _file(tmp_path))
    assert code == 1
    assert out.count("\n::") == 0 and out.startswith("::error file=")
    assert r"x%0A::error file=a.yaml,line=1::pwned\x1b]0;title\x07\x01\u202e" in out
    assert not CONTROL.search(out)


@pytest.mark.parametrize("argv", [("buffer", "{f}", "--set", "bs=64"), ("buffer", "{f}")])
def test_buffer_output_under_github_actions(tmp_path, cli, monkeypatch, argv):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _, out, _ = cli(*(a.format(f=_file(tmp_path)) for a in argv))
    _no_injected_command(out)


def test_plan_output_under_github_actions(cli, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _, out, _ = cli("plan", "--product", "A3", "--model", "deepseek-v3", "--ep", "32", "--bs", "128",
                    "--set", 'comm_alg="x\\n::error::pwned\\e[2J[bold]"')
    _no_injected_command(out)
    assert "\\x1b[2J[bold]" in out  # shown, not executed, not rich markup


def test_file_name_starting_with_a_workflow_command(tmp_path, cli, monkeypatch):
    name = _file(tmp_path, "::error::pwned.yaml")
    monkeypatch.chdir(tmp_path)
    _, out, _ = cli("check", "::error::pwned.yaml")
    assert out.startswith("\\x3a:error::pwned.yaml:") and name
    _no_injected_command(out)


def test_rich_output_passes_no_escape_sequence_of_the_file(tmp_path):
    report = check_paths([_file(tmp_path)])
    out = load("text").render(report, color=True)
    assert "\x1b]0;" not in out and "\x07" not in out and r"\x1b]0;title\x07" in out
    assert re.sub(r"\x1b\[[0-9;]*m", "", out).count("\x1b") == 0  # only rich's own colour codes


def test_junit_is_well_formed_with_control_characters(tmp_path):
    out = load("junit").render(check_paths([_file(tmp_path)]))
    root = ET.fromstring(out)
    assert "\\x01" in ET.tostring(root, encoding="unicode")


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_and_sarif_escape_control_characters(tmp_path, fmt):
    out = load(fmt).render(check_paths([_file(tmp_path)]))
    assert not CONTROL.search(out.replace("\n", ""))
    assert "\\u001b]0;title\\u0007" in out
    json.loads(out)


def test_non_utf8_file_name_is_shown_as_its_bytes(tmp_path, cli):
    d = tmp_path / "d"
    d.mkdir()
    (d / "caf\udce9.yaml").write_text(GOOD)  # the byte 0xe9 on disk (os.fsencode)
    code, out, _ = cli("check", str(d), "--output", str(tmp_path / "r.txt"))
    assert code == 0 and "caf\\xe9.yaml (document 0)" in (tmp_path / "r.txt").read_text()
    code, out, _ = cli("check", str(d))
    assert code == 0 and "caf\\xe9.yaml (document 0)" in out


def test_escape_helpers():
    assert escape.text("a\nb\tc\x1b\x9b\udcff") == r"a\nb\tc\x1b\x9b\xff"
    assert escape.no_workflow_commands("ok\n  ::warning::x\n::") == "ok\n  \\x3a:warning::x\n\\x3a:"
    assert escape.github_property("a:b,c%\r\n\x1b") == r"a%3Ab%2Cc%25%0D%0A\x1b"
    assert escape.xml("<a>\x00\x1b\t</a>") == "<a>\\x00\\x1b\t</a>"
    assert escape.terminal("a\x1b[1mb\n::c") == "a\\x1b[1mb\n\\x3a:c"  # no colour: every escape shown
    assert escape.terminal("a\x1b[1mb\x1b[2J", colour=True) == "a\x1b[1mb\\x1b[2J"  # colour codes only
