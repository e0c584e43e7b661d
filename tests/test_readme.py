"""Issue 14 item 1, issue 36 item 2: README.md is the front door. It fits in 16 KB; its first lines set up a venv
and run moecfg; every command it shows parses (the subcommand exists, every flag it names exists and takes the
value given) and so do the commands of the docs pages that came out of it; the recipes' outputs are what moecfg
prints for the files they show; the install lines install only this repository (never an unpublished PyPI name);
the action and pre-commit snippets name inputs and hooks that exist; every relative link resolves."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner

from moecfg.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
REPO = "https://github.com/moecfg/moecfg"
# the pages README.md links to that were cut from it (the generated ones, rules.md and api.md, are not prose)
PAGES = ["usage", "deployment-files", "gpu-backends", "launches", "preflight-deploy", "library", "planning",
         "output-formats", "configuration", "editors", "ci"]
TEXTS = {"README.md": README} | {f"docs/{p}.md": (ROOT / "docs" / f"{p}.md").read_text(encoding="utf-8")
                                  for p in PAGES}


def _blocks(text: str) -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)


BLOCKS = _blocks(README)
# `$ moecfg ...` in console blocks, `run: moecfg ...` / `entry: moecfg ...` in YAML blocks
COMMANDS = [(name, m.group(1)) for name, text in TEXTS.items() for block in _blocks(text)
            for m in re.finditer(r"^\s*(?:\$ |- run: |entry: )(moecfg .*)$", block, re.M)]


def _argv(line: str) -> list[str]:
    return shlex.split(line, comments=True)[1:]


def test_readme_is_a_front_door():
    assert len(README.encode()) <= 16 * 1024
    first = BLOCKS[0].splitlines()
    assert README.index("```") < 40  # the first thing after the title
    setup, run = first[0], first[1]
    assert setup.startswith("python3 -m venv .venv ") and "pip install -q ." in setup  # works in a fresh clone
    assert _argv(run)[:1] == ["check"] and run.split()[0] == ".venv/bin/moecfg"
    for section in ("## Install", "## Recipe: a vllm-ascend launch", "## Recipe: SGLang with DeepEP",
                    "## Recipe: CI and pre-commit"):
        assert section in README
    assert "python -m pytest -q" in README  # the test command CI runs stays discoverable (CONTRIBUTING.md)


def test_readme_first_command_runs(monkeypatch):
    # the second line, run in the checkout the first line installed: a result with no error, exit 0
    monkeypatch.chdir(ROOT)
    res = CliRunner().invoke(cli, _argv(BLOCKS[0].splitlines()[1]))
    assert res.exit_code == 0 and re.search(r"Checked \d+ files \(\d+ documents\): 0 errors", res.stdout)


def test_check_with_no_path_checks_the_current_folder(tmp_path, monkeypatch):
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "a3.yaml").write_text((ROOT / "examples" / "deepseek-v3-a3-ep16.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["check"])
    assert res.exit_code == 0 and res.stdout.endswith("Checked 1 file (1 document): 0 errors, 0 warnings, 0 infos.\n")


def test_readme_has_commands():
    mine = [c for name, c in COMMANDS if name == "README.md"]
    assert len(mine) >= 8 and any(c.startswith("moecfg check") for c in mine)
    assert len(COMMANDS) >= 25


@pytest.mark.parametrize("where, line", COMMANDS)
def test_readme_command_parses(where, line):
    name, *args = _argv(line)
    command = cli.get_command(None, name)
    assert command is not None, f"{where} names a command that does not exist: {line}"
    with click.Context(cli) as parent:
        command.make_context(name, args, parent=parent)  # raises on an unknown flag or a bad value


def test_readme_installs_only_this_repository():
    installs = [line for text in TEXTS.values() for block in _blocks(text) for line in block.splitlines()
                if "pip install" in line or "pipx install" in line]
    installs += re.findall(r"`([^`]*pipx? install[^`]*)`", README)
    assert len(installs) >= 4
    for line in installs:  # from a checkout (`.`, a path, the lock) or this repository: never a PyPI name
        for spec in re.findall(r"pipx? install (?:-q |--quiet |--no-deps |-e )*(\S+(?: @ \S+)?)", line):
            spec = spec.strip("'\"")
            assert spec in (".", f"moecfg @ git+{REPO}", f"git+{REPO}") or spec.startswith(("./", "/", "-r")) \
                or spec.startswith(f"git+{REPO}@"), line
    assert "YOUR-" not in README and "FILL IN" not in "".join(TEXTS.values())


def _yaml_blocks(marker: str) -> list:
    return [yaml.safe_load(b) for text in TEXTS.values() for b in _blocks(text) if marker in b]


def test_the_action_snippets_name_its_inputs():
    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    steps = [s for doc in _yaml_blocks("uses: moecfg/moecfg@") for job in
             (doc.get("jobs", {}).values() if isinstance(doc, dict) and "jobs" in doc else [{"steps": doc}])
             for s in job["steps"] if isinstance(s, dict) and str(s.get("uses", "")).startswith("moecfg/moecfg@")]
    assert len(steps) >= 2
    for step in steps:
        assert set(step.get("with", {})) <= inputs, step


def test_the_pre_commit_snippets_name_its_hooks():
    hooks = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    blocks = [b for text in TEXTS.values() for b in _blocks(text) if "# .pre-commit-config.yaml" in b]
    assert blocks
    for block in blocks:
        for repo in yaml.safe_load(block)["repos"]:
            if repo["repo"] != "local":
                assert repo["repo"] == REPO and {h["id"] for h in repo["hooks"]} <= hooks


@pytest.mark.parametrize("name", list(TEXTS))
def test_every_relative_link_resolves(name):
    base = (ROOT / name).parent
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", TEXTS[name]):
        if not target.startswith(("http://", "https://")):
            assert (base / target).exists(), f"{name}: {target}"


# ---- the recipes' outputs are moecfg's -------------------------------------------------------------------------

def _console(block_marker: str) -> str:
    return next(b for b in BLOCKS if block_marker in b)


def _shown_output(block: str, command: str) -> list[str]:
    """The lines the README shows under `$ COMMAND`, up to the next `$ `."""
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("$ " + command))
    out = []
    for line in lines[start + 1:]:
        if line.startswith("$ "):
            break
        out.append(line)
    return out


def _file_shown(block: str, command: str) -> str:
    return "\n".join(_shown_output(block, command)) + "\n"


MANIFEST_HEAD = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: decode}\nspec:\n  template:\n    spec:\n"


def _check_shown(tmp_path, monkeypatch, block, name, text, command):
    (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, _argv(command))
    shown = [line for line in _shown_output(block, command) if not line.startswith("    ")]  # derivations: cut
    printed = res.stdout.splitlines()
    assert shown and all(line in printed for line in shown), (shown, printed)
    return res


def test_the_vllm_ascend_recipe_prints_what_it_shows(tmp_path, monkeypatch):
    block = _console("tail -7 decode.yaml")
    shown = _file_shown(block, "tail -7 decode.yaml")
    assert shown.count("\n") == 7  # what `tail -7` prints: the Deployment's head is the only part not shown
    text = MANIFEST_HEAD + shown
    res = _check_shown(tmp_path, monkeypatch, block, "decode.yaml", text, "moecfg check decode.yaml")
    assert res.exit_code == 1 and "MC042" not in res.stdout and "MC040" not in res.stdout  # product, version known
    explained = CliRunner().invoke(cli, ["explain-launch", "decode.yaml"]).stdout
    assert "cann_version = 9.1.0 <- image quay.io/ascend/vllm-ascend:v0.23.0-a3" in explained
    assert "product = A3 <- hint huawei.com/ascend-1980: 16" in explained


def test_the_vllm_ascend_recipe_diff_and_plan_do_what_the_readme_says(tmp_path, monkeypatch):
    block = _console("tail -7 decode.yaml")
    text = MANIFEST_HEAD + _file_shown(block, "tail -7 decode.yaml")
    (tmp_path / "decode.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    diff = CliRunner().invoke(cli, ["check", "--diff", "decode.yaml"])
    assert diff.exit_code == 1 and '-          env: [{name: HCCL_BUFFSIZE, value: "100"}]' in diff.stdout
    assert '+          env: [{name: HCCL_BUFFSIZE, value: "120"}]' in diff.stdout
    assert (tmp_path / "decode.yaml").read_text() == text  # --diff writes nothing
    planned = CliRunner().invoke(cli, ["plan", "decode.yaml"])
    assert planned.exit_code == 1  # the launch as written fails; the answer is in its own knobs
    assert "HCCL_BUFFSIZE=120" in planned.stdout and "--max-num-seqs 13" in planned.stdout


def test_the_sglang_recipe_prints_what_it_shows(tmp_path, monkeypatch):
    block = _console("cat sgl.sh")
    command = next(line[2:] for line in block.splitlines() if line.startswith("$ moecfg check"))
    res = _check_shown(tmp_path, monkeypatch, block, "sgl.sh", _file_shown(block, "cat sgl.sh"), command)
    assert res.exit_code == 1
