"""Framework version strings read with packaging.version (frameworks/versions.py)."""
from __future__ import annotations

import pytest

from moecfg.frameworks import versions
from moecfg.frameworks.flag_tables import version_tuple
from moecfg.frameworks.lmdeploy.releases import match as lmdeploy_match
from moecfg.frameworks.vllm_ascend.releases import match as vllm_ascend_match


@pytest.mark.parametrize("text,want", [
    ("0.23.0.post1", (0, 23, 0, 1)), ("v0.26.0rc", (0, 26, 0, 0)), ("0.13.0rc1", (0, 13, 0, 0)),
    ("0.5.10.dev0+cu124", (0, 5, 10, 0)), ("0.5.10-cu124", (0, 5, 10, 0)), ("0.27", (0, 27, 0, 0)),
    ("V0.11.0", (0, 11, 0, 0)), ("0.23.0-1", (0, 23, 0, 1))])  # PEP 440: `-1` is a post release
def test_versions_as_pep_440_reads_them(text, want):
    assert version_tuple(text) == want


@pytest.mark.parametrize("text", ["", "main", "latest", "7", "x.y", "v", "1" * 200, None])
def test_not_a_version(text):
    assert version_tuple(text) is None


def test_a_post_release_orders_after_its_release_and_a_pre_release_before():
    assert versions.parse("0.23.0.post1") > versions.parse("0.23.0") > versions.parse("v0.23.0rc1")


@pytest.mark.parametrize("text,key", [("v0.23.0.post1", "0.23.0"), ("0.26.0rc", "0.26.0rc"), ("v0.13.0rc1", "0.13.0"),
                                      ("0.27", "0.27"), ("main", "main"), ("1.0.0", None), ("0.99.0", None),
                                      ("zero", None)])
def test_vllm_ascend_release_line_of_a_version(text, key):
    assert vllm_ascend_match(text) == key


def test_lmdeploy_release_tables_read_at_or_below_the_version():
    assert lmdeploy_match("0.12.0") is None  # before Ascend EP (0.12.1)
    assert lmdeploy_match("v0.12.1") is not None and lmdeploy_match("v0.12.1.post2") == lmdeploy_match("0.12.1")
