"""Helpers of the CI/editor integration tests: run the CLI in-process, compare with golden files.

Not a conftest.py: tests/conftest.py is imported by name (`from conftest import ...`) from other test folders."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
GOLDEN = HERE / "golden"
UPDATE = os.environ.get("MOECFG_UPDATE_GOLDEN") == "1"


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def run(monkeypatch):
    """run(*args, cwd=None, env=None) -> Run: `moecfg ARGS` in-process (GITHUB_ACTIONS unset unless given)."""
    from moecfg.cli import cli

    def _run(*args, cwd=None, env=None, input=None):
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
        if cwd is not None:
            monkeypatch.chdir(cwd)
        for k, v in (env or {}).items():
            monkeypatch.setenv(k, v)
        res = CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)
        try:
            stderr = res.stderr
        except ValueError:  # click < 8.2 mixes stderr into stdout
            stderr = ""
        return Run(res.exit_code, res.stdout, stderr)

    return _run


def assert_golden(name: str, text: str) -> None:
    """Compare with tests/integration/golden/NAME; MOECFG_UPDATE_GOLDEN=1 rewrites it instead."""
    path = GOLDEN / name
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"{path} is missing; run with MOECFG_UPDATE_GOLDEN=1 to create it")
        path.write_text(text, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs from the golden file; if the change is intended, rerun with MOECFG_UPDATE_GOLDEN=1"
