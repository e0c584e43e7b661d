"""Product from hints in a launch file: only names that identify A2 or A3 count."""
import pytest

from moecfg.backends import Options
from moecfg.checking.engine import lint_text
from moecfg.frameworks.hints import product_from_hints
from moecfg.sources.textmap import Span

S = Span(1, 1, 1, 5)


@pytest.mark.parametrize("text, product", [("Ascend910_9391", "A3"), ("ascend910_9382", "A3"), ("Ascend910B3", "A2"),
                                           ("huawei.com/Ascend910B", "A2"), ("910B4", "A2"), ("atlas-800i-a3", "A3"),
                                           ("atlas-800t-a2", "A2"), ("huawei.com/ascend-1980", None),
                                           ("nvidia.com/gpu", None)])
def test_hint_names(text, product):
    found = product_from_hints([(text, S)])
    assert (found[0] if found else None) == product


MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      nodeSelector:
        accelerator-type: Ascend910B3
      containers:
        - name: serve
          image: quay.io/ascend/vllm-ascend:v0.13.0
          command: ["vllm", "serve", "Qwen/Qwen3-235B-A22B", "--tensor-parallel-size", "4",
                    "--data-parallel-size", "2", "--enable-expert-parallel", "--max-num-seqs", "16"]
"""


def test_product_from_node_selector_reaches_the_derivation():
    # A2 (from Ascend910B3), EP = DP 2 x TP 4 = 8 < 16: vllm-ascend 0.13.0 uses all-gather on A2, no MC2 op.
    results = lint_text(MANIFEST, "d.yaml", Options())
    assert all(r.op == "none" for r in results) and results
    assert any("A2" in d.message and "EP 8" in d.message for r in results for d in r.diagnostics if d.code == "MC041")


def test_product_flag_beats_the_hint():
    results = lint_text(MANIFEST, "d.yaml", Options(product="A3"))
    assert any(r.product == "A3" or (r.arguments or {}).get("product") == "A3" or r.op == "none" for r in results)
    assert not any("A2" in d.message for r in results for d in r.diagnostics if d.code == "MC041")


def test_gpu_hints_are_not_ascend_evidence():
    from moecfg.frameworks.hints import ascend_hint

    assert ascend_hint([("nvidia.com/gpu", S)]) is None
    assert ascend_hint([("nvidia.com/gpu", S), ("huawei.com/ascend-1980", S)]) == "huawei.com/ascend-1980"


def test_gpu_lws_manifest_is_not_vllm_ascend():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "sources" / "fixtures" / "lws-vllm-gpu.yaml").read_text()
    results = lint_text(text, "lws.yaml", Options())
    assert not any(r.launch and r.launch["framework"] == "vllm-ascend" for r in results)


@pytest.mark.parametrize("text, product", [("huawei.com/ascend-1980: 16", "A3"), ("huawei.com/ascend-1980: 9", "A3"),
                                           ("huawei.com/ascend-1980: 8", None), ("huawei.com/ascend-1980: 2", None)])
def test_the_shared_resource_names_a3_only_past_an_a2_node(text, product):
    # issue 36 item 8: an A2 node has 8 NPUs, an A3 node 16 dies; one container asking for 9+ runs on A3
    found = product_from_hints([(text, S)])
    assert (found[0] if found else None) == product


SHARED = """apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      containers:
        - name: serve
          image: quay.io/ascend/vllm-ascend:v0.13.0
          command: ["vllm", "serve", "deepseek-ai/DeepSeek-V3", "--tensor-parallel-size", "4",
                    "--data-parallel-size", "4", "--enable-expert-parallel", "--max-num-seqs", "16"]
          resources:
            limits:
              huawei.com/ascend-1980: COUNT
"""


@pytest.mark.parametrize("count, product", [("16", "A3"), ("8", None)])
def test_the_shared_resource_count_reaches_the_derivation(count, product):
    results = lint_text(SHARED.replace("COUNT", count), "d.yaml", Options())
    codes = {d.code for r in results for d in r.diagnostics}
    assert results and ("A3" in {r.product for r in results}) == (product == "A3")
    assert ("MC042" in codes) == (product is None)  # 8 devices: A2 or A3, the launch asks for --product
