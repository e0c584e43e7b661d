"""Fixtures shared by every test directory; the helpers themselves live in lintkit.py."""
from __future__ import annotations

import os
import tempfile

import pytest

from lintkit import A2_BASE, A3_BASE, Linted, lint_product, run_lint  # noqa: F401  (re-exported)


@pytest.fixture
def lint():
    """`lint(yaml_text_or_dict, cann=None, **overrides) -> Linted` (results, codes, diagnostics, buffers, derived)."""
    return run_lint


@pytest.fixture
def lint_ascend():
    """`lint_ascend("A3" | "A2", ruleset, **overrides)` on the DeepSeek-V3 (A3) / Qwen3 (A2) base documents."""
    return lint_product


def pytest_configure(config):
    """Tests write their files under pytest's temporary root, and settings discovery walks up from there: a stray
    `.moecfg.yaml` in /tmp (or any folder above it) would apply to every test. Then the root moves to a folder with
    no settings file above it; with none to be had, the run stops and names the file."""
    if config.option.basetemp is not None:
        return
    from moecfg.checking.settings.discovery import find

    default = tempfile.gettempdir()
    stray = find(default)
    if stray is None:
        return
    for candidate in ("/dev/shm", "/var/tmp", os.path.expanduser("~")):
        if os.path.isdir(candidate) and os.access(candidate, os.W_OK) and find(candidate) is None:
            config.option.basetemp = os.path.join(candidate, f"moecfg-pytest-{os.getpid()}")
            return
    raise pytest.UsageError(f"the settings file {stray} applies to every folder under {default}: remove it, or "
                            "give --basetemp a folder with no .moecfg.yaml / [tool.moecfg] pyproject.toml above it")
