"""Shared lint helpers (import them as `from lintkit import ...`; tests/conftest.py exposes them as fixtures).

`run_lint(doc, **overrides)` runs the engine on one document and returns what it found. A module of its own
because several conftest.py files exist and `from conftest import` would pick whichever was loaded last.
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest
import yaml

from moecfg.checking.engine import lint_text
from moecfg.backends import Options

# DeepSeek-V3 decode shapes (h 7168, top-8 of 256 routed experts) on A3, EP 32, 128 tokens per die.
A3_BASE = {"product": "A3", "cann_version": "latest", "bs": 128, "h": 7168, "k": 8, "ep_world_size": 32,
           "moe_expert_num": 256, "env": {"HCCL_BUFFSIZE": 4096}}
# Qwen3-235B-A22B shapes (h 4096, top-8 of 128 experts) on A2, EP 16, fullmesh.
A2_BASE = {"product": "A2", "cann_version": "latest", "bs": 64, "h": 4096, "k": 8, "ep_world_size": 16,
           "moe_expert_num": 128, "comm_alg": "fullmesh", "env": {"HCCL_BUFFSIZE": 4096}}
RULESETS = ("8.5", "9.0", "9.1", "latest")


@dataclass
class Linted:
    """The results of linting one text; `result` is the first document's."""

    results: list

    @property
    def result(self):
        return self.results[0]

    @property
    def diagnostics(self):
        return [d for r in self.results for d in r.diagnostics]

    @property
    def codes(self) -> set:
        return {d.code for d in self.diagnostics}

    def of(self, code: str) -> list:
        return [d for d in self.diagnostics if d.code == code]

    def one(self, code: str):
        found = self.of(code)
        assert len(found) == 1, f"expected one {code}, got {[(d.code, d.message) for d in self.diagnostics]}"
        return found[0]

    @property
    def buffers(self) -> dict:
        return self.result.buffers

    @property
    def derived(self) -> dict:
        return self.result.derived

    def __repr__(self):  # shown by pytest on failure
        return "Linted(" + "; ".join(f"{d.code} {d.message}" for d in self.diagnostics) + ")"


def merged(base: dict, overrides: dict) -> dict:
    """`base` with `overrides`; a value of None deletes the key; `env`/`hccl_buffer_size` dicts replace."""
    doc = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for key, value in overrides.items():
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value
    return doc


def run_lint(doc, cann: str | None = None, **overrides) -> Linted:
    """Lint a YAML text, or a dict (with `overrides` applied) dumped to YAML."""
    if isinstance(doc, dict):
        text = yaml.safe_dump(merged(doc, overrides), sort_keys=False)
    else:
        assert not overrides, "overrides only apply to dict documents"
        text = doc
    return Linted(lint_text(text, "test.yaml", Options(cann=cann)))


def a3(**overrides) -> Linted:
    return run_lint(A3_BASE, **overrides)


def a2(**overrides) -> Linted:
    return run_lint(A2_BASE, **overrides)


ALL = RULESETS
LEGACY_TP = ("8.5", "9.0", "9.1")  # rule sets that still have TP (tp_world_size <= 2)
WITH_A3_HIERARCHY = ("9.0", "9.1", "latest")
A3_HIER = {"comm_alg": "hierarchy", "expert_scales": True}
A2_HIER = {"comm_alg": "hierarchy", "expert_scales": True}


def lint_product(product: str, ruleset: str, **overrides) -> Linted:
    base = A3_BASE if product == "A3" else A2_BASE
    return run_lint(base, cann_version=ruleset, **overrides)


def rule_cases(rows):
    """Boundary tables: rows of (product, rule sets, overrides, fires) -> one pytest.param per rule set."""
    params = []
    for product, rulesets, overrides, fires in rows:
        for rs in (rulesets,) if isinstance(rulesets, str) else rulesets:
            shown = ",".join(f"{k}={v}" for k, v in overrides.items())
            params.append(pytest.param(product, rs, overrides, fires,
                                       id=f"{product}-{rs}-{shown}-{'fail' if fires else 'ok'}"))
    return params


def assert_rule(code: str, product: str, ruleset: str, overrides: dict, fires: bool) -> Linted:
    out = lint_product(product, ruleset, **overrides)
    found = out.of(code)
    if fires:
        assert found, f"{code} should fire for {product} {ruleset} {overrides}; got {out!r}"
        for d in found:  # every message names the value it is about and points at a real line
            assert d.line >= 1 and d.column >= 1
    else:
        assert not found, f"{code} should not fire for {product} {ruleset} {overrides}; got {out!r}"
    return out
