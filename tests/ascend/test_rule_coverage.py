"""Every registered input and Ascend v2 rule (MC0xx-MC5xx) has a test that names its code, and every rule has a
unique code, a kebab-case name and a source for the hardware rules."""
from __future__ import annotations

import re
from pathlib import Path

from moecfg.core.registry import all_rules

TESTS = Path(__file__).resolve().parents[1]
CORE = re.compile(r"^MC[0-5]\d\d$")


def core_rules():
    return [r for r in all_rules() if CORE.match(r.code)]


def test_every_core_rule_is_tested():
    text = "".join(p.read_text(encoding="utf-8") for p in TESTS.rglob("*.py") if p.name != Path(__file__).name)
    untested = [f"{r.code} {r.name}" for r in core_rules() if f'"{r.code}"' not in text]
    assert untested == []


def test_rule_metadata():
    rules = core_rules()
    assert len({r.name for r in rules}) == len(rules)
    for r in rules:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name), r.name
        assert r.severity in ("error", "warning", "info")
        if r.code >= "MC100":
            assert r.source, f"{r.code} cites no CANN source"
