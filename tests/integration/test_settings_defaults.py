"""Issue 36 item 3: settings defaults never become findings on documents that do not hold the key. Every bundled
example (documents and launches) under a repository-wide `.moecfg.yaml` holding every documented key gives the same
findings as without it (the policy keys at values that change nothing: ignore, severity and fail-on are meant to
change results). Before: `cann_version: 9.1.0` -> MC003 on the untouched `op: sgl_deepep_low_latency` example."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from moecfg.checking.settings.config import _KEYS
from integration_helpers import run  # noqa: F401  (pytest fixture)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EVERY_KEY = """cann_version: 9.1.0
product: A3
fail-on: error
ignore: []
per-path-ignores: {}
severity: {}
inline-suppressions: true
framework-versions: {vllm-ascend: 0.13.0, sglang: 0.5.8, vllm: 0.11.0}
models: {}
device: H100
device-memory-gb: 80
markdown: true
respect-gitignore: true
unread: list
exclude: [vendor/, build/]
extend-exclude: []
"""


def _findings(res) -> list:
    out = json.loads(res.stdout)
    return sorted((r["file"], d["code"], d["line"], d["message"]) for r in out["results"] for d in r["diagnostics"])


def test_the_settings_file_names_every_documented_key():
    written = {line.split(":", 1)[0].replace("-", "_") for line in EVERY_KEY.splitlines()}
    assert written == set(_KEYS)


def test_every_example_gives_the_same_findings_under_every_setting(run, tmp_path):
    bare, configured = tmp_path / "bare", tmp_path / "configured"
    for where in (bare, configured):
        shutil.copytree(EXAMPLES, where)
    (configured / ".moecfg.yaml").write_text(EVERY_KEY)
    without = run("check", "--format", "json", ".", cwd=bare)
    with_settings = run("check", "--format", "json", ".", cwd=configured)
    assert without.exit_code == 0 and with_settings.exit_code == 0, with_settings.stdout[-2000:]
    assert _findings(with_settings) == _findings(without)
    assert len(json.loads(without.stdout)["results"]) >= 30  # every example was checked, launches included


def test_a_default_the_op_does_not_take_is_not_added(run, tmp_path):
    shutil.copy(EXAMPLES / "sgl-deepep-deepseek-v3-a3-low-latency.yaml", tmp_path / "ll.yaml")
    (tmp_path / ".moecfg.yaml").write_text("cann_version: 9.1.0\n")
    res = run("check", "--format", "json", "ll.yaml", cwd=tmp_path)
    assert res.exit_code == 0 and "MC003" not in res.stdout


def test_every_key_is_documented():
    import re

    import yaml

    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    block = re.search(r"```yaml\n(.*?)```", page, re.S).group(1)
    assert {k.replace("-", "_") for k in yaml.safe_load(block)} == set(_KEYS)
