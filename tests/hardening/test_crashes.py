"""Crashes (exit 3) that must be diagnostics: YAML tag constructors raising plain Python errors, integers
past Python's 4300-digit limit, non-finite floats, Unicode digits, collection tags on scalars."""
from __future__ import annotations

import pytest

from hostile import GOOD
from moecfg.checking.engine import lint_bytes

ASCEND = GOOD.replace("bs: 128\n", "")
DEEPEP = "kind: deepep\nmode: normal\nnum_ranks: 8\nhidden: 7168\nnum_experts: 256\nnum_topk: 8\n"


def codes(text: str) -> list[str]:
    return [d.code for r in lint_bytes(text.encode(), "t.yaml") for d in r.diagnostics]


@pytest.mark.parametrize("value", ["0x_", "0b_", "!!int x", "!!float x", "!!bool x", "!!float ''", "!!int 1.5",
                                   "1" * 5000])
def test_bad_scalar_for_its_tag_is_mc001(value):
    assert codes(ASCEND + f"bs: {value}\n") == ["MC001"]


def test_tag_directive_aliasing_the_core_schema():
    assert codes("%TAG ! tag:yaml.org,2002:\n---\n" + ASCEND + "bs: !int x\n") == ["MC001"]


def test_hex_literal_of_100k_digits_is_refused_not_printed():
    results = lint_bytes((ASCEND + "bs: 0x" + "f" * 100_000 + "\n").encode(), "t.yaml")
    [d] = results[0].diagnostics
    assert d.code == "MC001" and "400000 bits" in d.message and len(d.message) < 200


def test_integer_just_beyond_64_bits_is_mc009_with_a_short_message():
    results = lint_bytes((ASCEND + "bs: " + "9" * 1000 + "\n").encode(), "t.yaml")
    d = [d for r in results for d in r.diagnostics if d.code == "MC009"][0]
    assert "about 1000 digits" in d.message and len(d.message) < 200


@pytest.mark.parametrize("value", [".inf", ".nan", "-.inf", "1" * 400])
def test_non_finite_float_is_mc006(value):
    assert "MC006" in codes(DEEPEP + f"device_memory_gb: {value}\n")


def test_huge_finite_device_memory_does_not_overflow():
    assert codes(DEEPEP + "device_memory_gb: 1.0e+308\n") == []


def test_unicode_digit_in_env_is_a_type_error():
    assert "MC004" in codes(GOOD.replace("HCCL_BUFFSIZE: 1024", "HCCL_BUFFSIZE: '²'"))


@pytest.mark.parametrize("tag", ["seq", "map", "set", "omap", "pairs"])
def test_collection_tag_on_a_scalar_has_no_memory_address(tag):
    results = lint_bytes((GOOD + f"!!{tag} x: 1\n").encode(), "t.yaml")
    [d] = results[0].diagnostics
    assert d.code == "MC001" and " at 0x" not in d.message and f"!!{tag}" in d.message


def test_cann_version_of_5000_digits():
    results = lint_bytes(GOOD.replace("cann_version: 9.0.1", "cann_version: 9." + "1" * 5000).encode(), "t.yaml")
    assert all(len(d.message) < 400 for r in results for d in r.diagnostics)


def test_utf32_file_with_bom_is_read_as_utf32():
    for codec in ("utf-32-le", "utf-32-be"):
        raw = "\ufeff".encode(codec) + GOOD.encode(codec)
        assert [d.code for r in lint_bytes(raw, "t.yaml") for d in r.diagnostics] == []


def test_launch_json_flag_nested_50000_levels():
    script = ("#!/bin/bash\nvllm serve m --enable-expert-parallel --additional-config '"
              + '{"a":' * 50_000 + "1" + "}" * 50_000 + "'\n")
    results = lint_bytes(script.encode(), "run.sh")
    assert "MC021" in [d.code for r in results for d in r.diagnostics]
