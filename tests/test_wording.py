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


SGLANG = """export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=256
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dp 16 --enable-dp-attention \\
  --moe-a2a-backend deepep --deepep-mode low_latency --cuda-graph-max-bs 128 --nnodes 2 --node-rank 0
"""


@pytest.mark.parametrize("version, dtype", [("0.5.8", "bf16"), (None, "fp8")])
def test_the_sizing_dtype_says_it_is_the_sizing_not_the_dispatch(version, dtype):
    # before: `dtype = bf16 <- fp8 dispatch: ...` (the value contradicted its first reason)
    from moecfg.backends import Options
    from moecfg.checking.engine import lint_text

    versions = (("sglang", version),) if version else ()
    (r,) = lint_text(SGLANG, "s.sh", Options(device="H800", framework_versions=versions))
    text = r.derivation["dtype"]
    assert text.startswith(f"{dtype} <- the buffer sizes: SGLang sizes them with params_bytes {1 if dtype == 'fp8' else 2}")
    assert "here fp8" in text and not text.startswith(f"{dtype} <- fp8 dispatch")
    assert r.launch["framework_version"] == (version or "main-2026-08")


def test_a_sweep_series_says_what_runs_and_which_rules():
    # before: "default @ 9.1.0" (neither the algorithm that runs nor what 9.1.0 is)
    import json

    from click.testing import CliRunner

    from moecfg.cli import cli

    res = CliRunner().invoke(cli, ["sweep", "--product", "A3", "--model", "deepseek-v3", "--ep", "32", "--bs", "1:64",
                                   "--cann", "9.1.0", "--comm-alg", ",fullmesh_v2", "--format", "json"])
    labels = [s["label"] for s in json.loads(res.stdout)["series"]]
    assert labels == ["comm_alg unset = fullmesh_v1, CANN 9.1.0 rules", "fullmesh_v2, CANN 9.1.0 rules"]
