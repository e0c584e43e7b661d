"""Issue 36 item 9: a derivation pinned to a vllm-ascend release cites that release's commit only (before: v0.23.0
derivations cited main@182b75e for the graph-capture size and the mc2 group's buffer next to v0.23.0@5cb98ca)."""
from __future__ import annotations

import re

import pytest

from moecfg.backends import Options
from moecfg.checking.engine import lint_text
from moecfg.frameworks.vllm_ascend.releases_2026 import RELEASES_2026

LAUNCH = """export HCCL_BUFFSIZE=100
vllm serve vllm-ascend/DeepSeek-R1-W8A8 --quantization ascend --data-parallel-size 4 --tensor-parallel-size 4 \\
  --enable-expert-parallel --max-num-seqs 16 --additional-config '{"dynamic_eplb": true}'
"""
COMMIT = re.compile(r"(?:vllm-project/vllm-ascend|VA)@([0-9a-f]{7})")


@pytest.mark.parametrize("rel", RELEASES_2026, ids=lambda r: r.key)
def test_a_pinned_derivation_cites_one_commit(rel):
    commit = rel.ref.rsplit("@", 1)[1]
    results = lint_text(LAUNCH, "serve.sh", Options(product="A3", framework_versions=(("vllm-ascend", rel.key),)))
    texts = [t for r in results for t in (r.derivation or {}).values()]
    texts += [d.message for r in results for d in r.diagnostics]
    assert texts and {r.launch["framework_version"] for r in results} == {rel.key}
    cited = {c for t in texts for c in COMMIT.findall(t)}
    assert cited == {commit}, cited


@pytest.mark.parametrize("rel", RELEASES_2026, ids=lambda r: r.key)
def test_every_cite_names_the_release_commit(rel):
    commit = rel.ref.rsplit("@", 1)[1]
    assert all(set(COMMIT.findall(text)) <= {commit} for text in rel.cite.values()), rel.cite


def test_explain_launch_of_v0_23_0_names_5cb98ca_only(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from moecfg.cli import cli

    (tmp_path / "serve.sh").write_text(LAUNCH)
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(cli, ["explain-launch", "--product", "A3", "--framework-version", "vllm-ascend=0.23.0",
                                   "serve.sh"]).stdout
    assert "memory per rank" in out and "dynamic_eplb" in out
    assert set(COMMIT.findall(out)) == {"5cb98ca"}
