"""False positives met running `moecfg check .` on the repositories of the new launch surfaces (MindSpeed,
MindIE, LMDeploy, xLLM, vllm-mindspore, vLLM recipes; docs/wild.md); each fixture cites its source."""
from __future__ import annotations

from wildkit import FIXTURES, findings

from moecfg.backends import Options
from moecfg.core.engine import check_paths


def test_a_test_matrix_with_a_products_section_is_not_a_moecfg_document():
    # `products:` is a near miss of the field `product`, but it holds a list of mappings: a section, not a typo
    assert findings("mindspeed-usecase-matrix.yaml") == []
    report = check_paths([str(FIXTURES / "mindspeed-usecase-matrix.yaml")], Options())
    assert [s.reason for s in report.skipped]


def test_a_typo_of_a_field_holding_a_value_is_still_reported(tmp_path):
    (tmp_path / "ep.yaml").write_text("kind: ascend\nproduct: A3\nbss: 128\n")
    assert ("MC003", "error") in {(f[0], f[1]) for f in findings(str(tmp_path / "ep.yaml"))}
    (tmp_path / "typo.yaml").write_text("productt: A3\nbss: 128\n")  # only near misses, values: still ours
    assert "MC003" in {f[0] for f in findings(str(tmp_path / "typo.yaml"))}
