"""Issue 20 item 3: reading budgets per file (sources/budget.py), shared by sourced files, heredocs, `bash -c`
strings and YAML aliases: a crafted file of a few hundred bytes stops at a budget with one MC023 info, fast,
and what was read before it is still checked."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from launches import SETTINGS

from moecfg.backends import Options
from moecfg.checking.engine import check_paths, lint_text
from moecfg.sources import budget
from moecfg.sources.readers import read_shell

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = "vllm serve /models/DeepSeek-R1-W8A8 --quantization ascend -dp 4 -tp 4 --enable-expert-parallel\n"


def checked(text: str, name: str = "a.sh"):
    from moecfg.checking.guard import checked as guard

    start = time.process_time()
    results = guard(name, lint_text, text, name, Options(product="A3"), SETTINGS)
    spent = time.process_time() - start
    found = [d for r in results for d in r.diagnostics]
    assert "MC019" not in [d.code for d in found]
    return found, spent


def budget_infos(found) -> list:
    return [d for d in found if d.code == "MC023" and "budget" in d.message]


def test_a_doubled_variable_stops_growing():
    found, spent = checked("A=x\n" + 'A="$A$A"\n' * 40 + "export HCCL_BUFFSIZE=$A\n" + LAUNCH)
    (info,) = budget_infos(found)
    assert "64 KiB" in info.message and spent < 5


def test_a_doubled_script_run_with_bash_c():
    found, spent = checked('A="vllm serve m -tp 2"\n' + 'A="$A; $A"\n' * 20 + 'bash -c "$A"\n')
    assert budget_infos(found) and spent < 5


def test_env_repeated_before_the_command_is_linear():
    found, spent = checked("env " * 30_000 + LAUNCH)
    assert spent < 5


def test_commands_past_the_budget_are_not_read(monkeypatch):
    monkeypatch.setattr(budget, "COMMANDS", 50)
    found, _ = checked(LAUNCH + "x\n" * 100 + LAUNCH)
    (info,) = budget_infos(found)
    assert "50 commands" in info.message and info.line == 51  # the 51st command, the first not read
    assert "MC041" in [d.code for d in found]  # the launch before it is checked


def test_launches_past_the_budget_are_not_derived(monkeypatch):
    monkeypatch.setattr(budget, "LAUNCHES", 3)
    found, _ = checked(LAUNCH * 10)
    (info,) = budget_infos(found)
    assert "3 launch commands" in info.message and info.line == 4


def test_words_past_the_budget_are_unknown(monkeypatch):
    monkeypatch.setattr(budget, "WORDS", 100)
    found, _ = checked('A="' + "w " * 200 + '"\necho $A\n' + LAUNCH)
    assert budget_infos(found)


def test_sourced_files_share_the_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(budget, "PARSED_CHARS", 20_000)
    (tmp_path / "env.sh").write_text("export A=1\n" + "# filler\n" * 1000)  # 10 KB
    (tmp_path / "a.sh").write_text("source ./env.sh\n" * 5 + LAUNCH)
    report = check_paths([str(tmp_path)], Options(product="A3"))
    found = [d for r in report.results for d in r.diagnostics]
    assert "MC019" not in [d.code for d in found] and budget_infos(found)


def test_quadratic_parser_recovery_is_bounded(monkeypatch):
    monkeypatch.setattr(budget, "PARSE_SECONDS", 0.3)
    found, spent = checked("echo $((" + ")" * 30_000 + "\n" + LAUNCH)
    (info,) = budget_infos(found)
    assert "parsing" in info.message and spent < 3


def test_a_yaml_alias_tree_of_launch_strings(monkeypatch):
    monkeypatch.setattr(budget, "COMMANDS", 200)
    text = ('a: &a ["vllm serve m -tp 2 --enable-expert-parallel", "x", "x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n'
            "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
            "command: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n")
    found, spent = checked(text, "a.yaml")
    assert len(budget_infos(found)) == 1 and spent < 5


def test_budgets_are_per_file(tmp_path, monkeypatch):
    monkeypatch.setattr(budget, "COMMANDS", 20)
    for name in ("a.sh", "b.sh"):
        (tmp_path / name).write_text("x\n" * 15 + LAUNCH)
    report = check_paths([str(tmp_path)], Options(product="A3"))
    assert not budget_infos([d for r in report.results for d in r.diagnostics])  # 16 each, not 32 in all


@pytest.mark.parametrize("limit", ["COMMANDS", "WORDS", "PARSES"])
def test_an_ordinary_launch_is_far_below_every_budget(limit):
    lf = read_shell((ROOT / "examples" / "launch" / "vllm-ascend-dsr1-a3-dp4tp4.sh").read_text())
    assert not lf.problems and getattr(budget, limit) > 1000


def test_documentation_code_blocks_share_the_budget(monkeypatch):
    monkeypatch.setattr(budget, "COMMANDS", 30)
    block = "```bash\n" + "x\n" * 20 + LAUNCH + "```\n\n"
    found, _ = checked("# Guide\n\n" + block * 3, "guide.md")
    (info,) = budget_infos(found)
    assert "30 commands" in info.message
