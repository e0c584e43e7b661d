"""tools/relayout.py: old-style references to moved modules in, the new layout out; running it twice changes
nothing more; every move in tools/layout_map.json lands on a module that exists.
(relayout: leave this file -- it holds old names on purpose)"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("relayout", ROOT / "tools" / "relayout.py")
relayout = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(relayout)
R = relayout.Relayout(relayout.load_map())

OLD = '''from moecfg.sources import shell_words, shell, files
from moecfg.sources.shell_words import Word, split
import moecfg.core.engine
from moecfg.core.engine import run_check
from moecfg.sources.shell import read_script
from moecfg.core.settings import config, Settings
    from moecfg.core import launch as core_launch, record
from moecfg.sources import (
    yaml_source as ys,
    budget,
)
target = "moecfg.core.engine.check_paths"
reader = optional_module("moecfg.sources.shell")
# see moecfg/sources/shell_words.py, sources/mindie.py and moecfg/core/settings/config.py
'''
NEW = '''from moecfg.sources import files
from moecfg.sources.shell import words as shell_words, reader as shell
from moecfg.sources.shell.words import Word, split
import moecfg.checking.engine
from moecfg.checking.engine import run_check
from moecfg.sources.shell.reader import read_script
from moecfg.checking.settings import Settings, config
    from moecfg.core import record
    from moecfg.checking import launch as core_launch
from moecfg.sources import budget
from moecfg.sources.manifests import yaml_source as ys
target = "moecfg.checking.engine.check_paths"
reader = optional_module("moecfg.sources.shell.reader")
# see moecfg/sources/shell/words.py, sources/vendor/mindie.py and moecfg/checking/settings/config.py
'''


def test_old_references_become_new_ones():
    assert R.rewrite(OLD) == NEW


def test_running_it_again_changes_nothing():
    assert R.rewrite(NEW) == NEW
    already_new = ("from moecfg.sources.shell import words\nimport moecfg.sources.shell.arith\n"
                   "x = 'moecfg.sources.documents.classify'\n")
    assert R.rewrite(already_new) == already_new


def test_a_from_import_inside_a_string_of_code_is_rewritten_in_the_string():
    old = 'probe = "import sys\\nfrom moecfg.sources import documents, framework_words as fw\\nmain()\\n"\n'
    new = ('probe = "import sys\\nfrom moecfg.sources import framework_words as fw'
           '\\nfrom moecfg.sources.documents import classify as documents\\nmain()\\n"\n')
    assert R.rewrite(old) == new
    assert R.rewrite(new) == new


def test_names_that_only_look_alike_are_left_alone():
    text = ("from moecfg.sources import shellish\nmoecfg.core.engines\nmy_moecfg.core.engine\n"
            "from moecfg.frameworks import launch\nmoecfg.core.record\n")
    assert R.rewrite(text) == text


def test_every_move_lands_on_a_module_of_the_tree():
    for old, new in relayout.load_map().items():
        path = ROOT / new.replace(".", "/")
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), new
        gone = ROOT / old.replace(".", "/")
        assert not gone.with_suffix(".py").exists(), old


def test_the_command_rewrites_files_in_place_and_check_reports(tmp_path):
    src = tmp_path / "a.py"
    src.write_text("from moecfg.core import policy\n", encoding="utf-8")
    tool = [sys.executable, str(ROOT / "tools" / "relayout.py")]
    check = subprocess.run([*tool, "--check", str(src)], capture_output=True, text=True)
    assert check.returncode == 1 and src.read_text() == "from moecfg.core import policy\n"
    subprocess.run([*tool, str(src)], check=True, capture_output=True)
    assert src.read_text() == "from moecfg.checking import policy\n"
    assert subprocess.run([*tool, "--check", str(src)], capture_output=True).returncode == 0
    marked = tmp_path / "b.py"
    marked.write_text("# relayout: leave this file\nfrom moecfg.core import policy\n", encoding="utf-8")
    subprocess.run([*tool, str(marked)], check=True, capture_output=True)
    assert "from moecfg.core import policy" in marked.read_text()


def test_modules_added_under_a_moved_name_are_left_alone():
    # sources/recipes.py became recipes/srt_slurm.py; readers added later beside it are not `recipes` + a name
    tool = relayout.Relayout(relayout.load_map())
    text = "from moecfg.sources.recipes.verl_config import read\nimport moecfg.sources.recipes.mindspeed_rl\n"
    assert tool.rewrite(text) == text
