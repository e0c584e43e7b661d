"""Fixtures shared by every test directory; the helpers themselves live in lintkit.py."""
from __future__ import annotations

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
