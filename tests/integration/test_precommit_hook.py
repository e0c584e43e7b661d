"""The pre-commit hook manifest: the `moecfg` hook runs `moecfg check` on YAML files, with a `files` pattern
that matches deployment folders and not the rest of a repository's YAML."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from integration_helpers import run  # noqa: F401  (pytest fixture)

ROOT = Path(__file__).resolve().parents[2]
HOOKS = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}


def test_moecfg_hook():
    hook = HOOKS["moecfg"]
    assert shlex.split(hook["entry"]) == ["moecfg", "check"]
    # launch scripts are checked too (pre-commit's identify tags *.sh and shell shebangs `shell`)
    assert hook["types_or"] == ["yaml", "shell"] and "types" not in hook and hook["language"] == "python"
    assert hook.get("pass_filenames", True) is True


@pytest.mark.parametrize("path,matches", [
    ("deploy/a3.yaml", True), ("infra/deployments/dsv3.yml", True), ("moe/x.yaml", True),
    ("configs/dsv3.moe.yaml", True), (".github/workflows/ci.yml", False), ("docker-compose.yaml", False),
    ("redeploy/a.yaml", False), (".moecfg.yaml", False), ("deploy/decode.sh", True),
])
def test_default_files_pattern(path, matches):
    assert bool(re.search(HOOKS["moecfg"]["files"], path)) is matches  # pre-commit uses re.search


def test_config_file_is_excluded():
    hook = HOOKS["moecfg"]
    assert re.search(hook["files"], "deploy/.moecfg.yaml") and re.search(hook["exclude"], "deploy/.moecfg.yaml")


def test_config_hook_takes_paths_from_args():
    hook = HOOKS["moecfg-config"]
    assert hook["pass_filenames"] is False and hook["args"] == ["deploy/"]


def test_entry_runs_on_the_files_pre_commit_passes(run):
    res = run("check", ROOT / "examples" / "deepseek-v3-a3-ep16.yaml", ROOT / "examples" / "qwen3-235b-a2-fullmesh.yaml")
    assert res.exit_code == 0 and "Checked 2 files" in res.stdout


@pytest.mark.parametrize("hook", ["moecfg", "moecfg-config"])
def test_one_run_one_summary(hook):
    # issue 36: pre-commit splits the files into parallel batches unless the hook is serial: two summaries
    assert HOOKS[hook]["require_serial"] is True
