"""benchmarks/wild.py sums `moecfg check .` per folder (run on a folder of fixtures, nothing fetched)."""
from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

from wildkit import FIXTURES

ROOT = Path(__file__).resolve().parents[2]


def wild():
    spec = importlib.util.spec_from_file_location("wild_benchmark", ROOT / "benchmarks" / "wild.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_measure_counts_files_launches_and_codes(tmp_path):
    for name in ("va-dp-template-ep.sh", "va-dp-template-ep-copy.sh", "lws-certificate-template.yaml"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    f = wild().measure(str(tmp_path), [sys.executable, "-m", "moecfg"])
    assert (f["exit"], f["files"], f["launches"], f["ops"]) == (0, 3, 2, 0)
    # the product question and the version assumed once for the run (the second launch keeps no note, still
    # counted); the template of a certificate says nothing
    assert (f["error"], f["warning"], f["info"]) == ({}, {"MC042": 1}, {"MC040": 1})


def test_compare_table_lists_exit_and_errors():
    before = [{"repo": "r", "exit": 1, "error": {"MC020": 3}, "warning": {}}]
    after = [{"repo": "r", "exit": 0, "error": {}, "warning": {"MC042": 1}}]
    assert wild().compare(before, after).splitlines()[-1] == "| r | 1 | 0 | 3 | 0 | 0 | 1 |"
