"""Issue 36 item 9: wording that costs trust, each item with a test on the text (the pinned-commit citations:
tests/frameworks/test_vllm_ascend_one_commit.py; "derived as": tests/frameworks/test_sglang_ascend.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from moecfg.render.rule_docs import all_docs, explain_text, lookup

# a path into moecfg's own tree (frameworks/sglang/ascend.py, moecfg/core/x.py): a rule page is read by users, who
# have no checkout; upstream paths (vllm/model_executor/..., sglang/srt/...) start with their project's folder
INTERNAL = re.compile(r"(?<![\w/@.-])(?:moecfg/)?(?:frameworks|backends|core|checking|sources|render|cli|plan|models|"
                      r"presets|explain_error|preflight)/[\w/]+\.py")


@pytest.mark.parametrize("code", ["MC975", "MC976", "MC977"])
def test_deepep_assert_is_called_deepeps_error(code):
    text = explain_text(lookup(code))
    assert "DeepEP's error: \"RuntimeError: Failed: Assertion error csrc/deep_ep.cpp" in text
    assert "CANN's error" not in text


def test_sglangs_own_check_is_sglangs_error():
    assert "SGLang's error: \"ValueError: DeepEP v2" in explain_text(lookup("MC978"))


def test_cann_texts_stay_canns():
    assert "CANN's error" in explain_text(lookup("MC201"))


PACKAGE = Path(__file__).resolve().parents[1] / "moecfg"


def test_no_rule_page_names_a_module_of_moecfg():
    # a path that is a file of moecfg's tree (an upstream lmdeploy/cli/serve.py is not moecfg/cli/serve.py)
    found = {d.code: [p for p in INTERNAL.findall(explain_text(d)) if (PACKAGE / p.removeprefix("moecfg/")).exists()]
             for d in all_docs()}
    assert {code: paths for code, paths in found.items() if paths} == {}
    assert not re.search(r"the derivation is calls\.py|releases\.py cites", "".join(map(explain_text, all_docs())))
