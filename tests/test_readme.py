"""Issue 14 item 1: every command README.md shows works as written. Each `moecfg ...` line of a code block
parses (the subcommand exists, every flag it names exists and takes the value given); no block installs a
package that is not published, and the pre-commit snippet names no repository that does not exist."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from moecfg.cli import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```[a-z]*\n(.*?)^```", README, re.S | re.M)
# `$ moecfg ...` in console blocks, `run: moecfg ...` / `entry: moecfg ...` in YAML blocks
COMMANDS = [m.group(1) for block in BLOCKS for m in re.finditer(r"^\s*(?:\$ |- run: |entry: )(moecfg .*)$", block, re.M)]


def _argv(line: str) -> list[str]:
    return shlex.split(line, comments=True)[1:]


def test_readme_has_commands():
    assert len(COMMANDS) >= 15 and any(c.startswith("moecfg check") for c in COMMANDS)


@pytest.mark.parametrize("line", COMMANDS)
def test_readme_command_parses(line):
    name, *args = _argv(line)
    command = cli.get_command(None, name)
    assert command is not None, f"README names a command that does not exist: {line}"
    with click.Context(cli) as parent:
        command.make_context(name, args, parent=parent)  # raises on an unknown flag or a bad value


def test_readme_installs_only_what_exists():
    installs = [line for block in BLOCKS for line in block.splitlines() if "pip install" in line]
    assert installs
    for line in installs:  # from a checkout (`.`, a path) or a VCS URL the user fills in: never from PyPI
        spec = line.split("pip install", 1)[1].strip().strip("'\"")
        assert spec.startswith((".", "/", "moecfg @ git+https://YOUR-")), line
    assert "github.com/moecfg" not in README


def test_readme_pre_commit_is_a_local_hook():
    block = next(b for b in BLOCKS if "# .pre-commit-config.yaml" in b)
    assert "repo: local" in block and "language: system" in block and "entry: moecfg check" in block
