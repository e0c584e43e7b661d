"""Every data file the package reads at run time is shipped: `pip install .` (not editable, as CI and users install)
copies only what `[tool.setuptools.package-data]` names. A framework's generated table left out of it works in a
development checkout and fails in every user's install."""
from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_data_file_under_the_package_is_named_in_package_data():
    section = (ROOT / "pyproject.toml").read_text().split("[tool.setuptools.package-data]", 1)[1]
    patterns = ast.literal_eval(re.search(r"(?m)^moecfg\s*=\s*(\[.*?\])", section).group(1))  # tomllib: 3.11+
    package = ROOT / "moecfg"
    data = [p.relative_to(package).as_posix() for p in package.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert data, "the package holds generated tables: the walk found none"
    missing = [d for d in data if not any(fnmatch.fnmatch(d, pat) for pat in patterns)]
    assert missing == []
