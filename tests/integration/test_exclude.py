"""Issue 36 item 8: `exclude:` (replaces the built-in list of folders nobody deploys from) and `extend-exclude:`
(adds to it) in the settings file: gitignore-style patterns relative to its folder, applied while walking; a path
named on the command line is always checked (as ruff without --force-exclude)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from integration_helpers import run  # noqa: F401  (pytest fixture)

DOC = Path(__file__).resolve().parents[2] / "examples" / "deepseek-v3-a3-ep16.yaml"
FILES = ("deploy/a.yaml", "deploy/b.draft.yaml", "legacy/a.yaml", "vendor/a.yaml", "deploy/old/c.yaml")


@pytest.fixture
def tree(tmp_path):
    for rel in FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DOC, tmp_path / rel)
    return tmp_path


def _checked(res) -> set:
    return {Path(r["file"]).relative_to(".").as_posix() if not r["file"].startswith("./") else r["file"][2:]
            for r in json.loads(res.stdout)["results"]}


@pytest.mark.parametrize("settings, checked", [
    ("", {"deploy/a.yaml", "deploy/b.draft.yaml", "legacy/a.yaml", "deploy/old/c.yaml"}),  # vendor/: built-in
    ("extend-exclude: [legacy/, '*.draft.yaml']\n", {"deploy/a.yaml", "deploy/old/c.yaml"}),
    ("extend-exclude: [/deploy/old]\n", {"deploy/a.yaml", "deploy/b.draft.yaml", "legacy/a.yaml"}),
    ("exclude: []\n", set(FILES)),  # replaces the built-in list: vendor/ is walked
    ("exclude: [deploy/]\n", {"legacy/a.yaml", "vendor/a.yaml"}),
    ("exclude: [deploy/]\nextend-exclude: [vendor]\n", {"legacy/a.yaml"}),
])
def test_walking_leaves_out_what_the_settings_exclude(run, tree, settings, checked):
    (tree / ".moecfg.yaml").write_text(settings)
    res = run("check", "--format", "json", cwd=tree)
    assert res.exit_code == 0 and _checked(res) == checked


def test_a_named_file_is_checked_even_when_excluded(run, tree):
    (tree / ".moecfg.yaml").write_text("extend-exclude: [legacy/]\n")
    res = run("check", "--format", "json", "legacy/a.yaml", cwd=tree)
    assert res.exit_code == 0 and _checked(res) == {"legacy/a.yaml"}


@pytest.mark.parametrize("settings, said", [("exclude: 3\n", "`exclude` must be a list"),
                                            ("extend-exclude: ['[']\n", "extend-exclude: '[' is not a valid")])
def test_a_bad_pattern_is_a_config_error(run, tree, settings, said):
    (tree / ".moecfg.yaml").write_text(settings)
    res = run("check", cwd=tree)  # found in the tree: MC016 on it, the run goes on (issue 33)
    assert res.exit_code == 1 and "MC016" in res.stdout and said in res.stdout
    pinned = run("check", "--config", ".moecfg.yaml", cwd=tree)  # the run's own settings: exit 2
    assert pinned.exit_code == 2 and said in pinned.stderr


def test_show_config_names_the_patterns(run, tree):
    (tree / ".moecfg.yaml").write_text("extend-exclude: [legacy/]\n")
    shown = json.loads(run("check", "--show-config", cwd=tree).stdout)
    assert shown["exclude"] is None and shown["extend_exclude"] == ["legacy/"]
