"""Cheap classification before a full parse (sources/sniff.py): a big file of Kubernetes objects with no launch word
and no accelerator is skipped unparsed; anything that may hold a launch or a moecfg document is parsed."""
from __future__ import annotations

import re
import time

import pytest

from moecfg.checking.engine import check_text
from moecfg.sources import framework_words, sniff

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-{i}
  namespace: operator-system
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: manager
        image: example.com/operator/manager:v1.{i}.0
        command: ["/manager"]
        args: ["--leader-elect", "--metrics-bind-address=:8443"]
        resources: {{limits: {{cpu: 500m, memory: 128Mi}}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: settings-{i}}}
data:
  config.yaml: |
    level: info
    retries: {i}
---
"""


def bundle(n: int = 200, extra: str = "") -> str:
    return "".join(DEPLOYMENT.format(i=i) for i in range(n)) + extra


def test_a_big_bundle_without_launch_words_is_skipped_unparsed():
    text = bundle()
    assert len(text) > sniff.SNIFFED
    start = time.process_time()
    checked = check_text(text, "install.yaml")
    elapsed = time.process_time() - start
    assert checked.results == [] and len(checked.skipped) == 1
    assert checked.skipped[0].reason == ("Kubernetes ConfigMap, Deployment: no launch word and no accelerator in it, "
                                         "holds no launch (not parsed)")
    assert elapsed < 0.2  # composing it with positions takes about a second


@pytest.mark.parametrize("extra", [
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: c, image: x, command: [vllm, serve, m]}\n",
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n"
    "    resources: {limits: {nvidia.com/gpu: 8}}\n",  # an accelerator workload: parsed, whatever it runs
    "kind: ascend\nproduct: A3\nbs: 128\n",  # a moecfg document (no apiVersion)
    "apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\nmetadata: {name: m}\nspec: {parallelism: {tensor: 8}}\n",
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: c, image: x, command: [torchrun, train.py]}\n",
])
def test_a_bundle_with_anything_for_moecfg_is_parsed(extra):
    assert sniff.foreign_without_parsing(bundle(extra=extra)) is None


def test_small_files_are_always_parsed():
    assert sniff.foreign_without_parsing(bundle(n=2)) is None


def test_many_kinds_are_named_briefly():
    kinds = "".join(f"apiVersion: v1\nkind: Kind{i}\nmetadata: {{name: x}}\ndata: {{a: '{'x' * 400}'}}\n---\n"
                    for i in range(100))
    why = sniff.foreign_without_parsing(kinds)
    assert why.startswith("Kubernetes Kind0, Kind1, Kind10, Kind11, Kind12, Kind13 and 94 more kinds: ")


def _literal(alternative: str) -> str:
    """A pattern alternative's literal text, lowercased: `\\bvllm\\s+serve\\b` -> `vllm serve`, optional groups
    left out (`\\btrain(?:_async)?\\.py` -> `train.py`)."""
    text = re.sub(r"\(\?:[^()]*\)\?", "", alternative).replace("\\.", ".")
    return re.sub(r"\\[bsSwWd]|[\\^$(){}?+*|\[\]]", " ", text).lower()


@pytest.mark.parametrize("name", ["COMMANDS", "PYTHON_MODULES", "TRAINING_SCRIPTS", "TEMPLATE_WORDS", "MARKDOWN_WORDS"])
def test_every_launch_word_list_is_covered_by_the_manifest_words(name):
    missing = [alt for alt in getattr(framework_words, name)
               if not any(w in _literal(alt)
                          for w in framework_words.MANIFEST_WORDS)]
    assert missing == []


POD = ("apiVersion: v1\nkind: Pod\nmetadata: {name: decode}\nspec:\n  containers:\n  - name: c\n    image: x\n"
       "    env: [{name: HCCL_BUFFSIZE, value: '100'}]\n    command: [vllm, serve, /models/DeepSeek-V3, --tensor-parallel-size,"
       " '8', --enable-expert-parallel, --quantization, ascend]\n    resources: {limits: {huawei.com/ascend-1980: 16}}\n")


@pytest.mark.parametrize("head,tail", [("", ""), ("# a bundle\n---\n", "---\n"), ("---\n", "\n---\n# end\n")])
def test_a_big_stream_parses_only_the_documents_that_may_launch_with_the_files_positions(head, tail, monkeypatch):
    text = head + bundle(60) + POD + "---\n" + bundle(60) + tail
    assert len(text) > sniff.SNIFFED
    pieces = sniff.pieces(text)
    assert [p.index for p in pieces if p.why is None] == [120]  # the Pod alone: 2 documents per DEPLOYMENT x 60
    start = time.process_time()
    some = check_text(text, "bundle.yaml")
    elapsed = time.process_time() - start
    monkeypatch.setattr(sniff, "pieces", lambda text: None)
    whole = check_text(text, "bundle.yaml")

    def shown(checked):
        return [(r.document, [(d.code, d.line, d.column, d.message) for d in r.diagnostics]) for r in checked.results]
    assert shown(some) == shown(whole) and shown(some)[0][0] == 120 and shown(some)[0][1]  # same findings, same lines
    assert [s.document for s in some.skipped] == [s.document for s in whole.skipped]
    assert all("not parsed" in s.reason for s in some.skipped) and elapsed < 0.5


def test_content_on_a_separator_line_parses_the_whole_stream():
    assert sniff.pieces(bundle() + "--- {apiVersion: v1, kind: Pod}\n") is None
    assert sniff.pieces(bundle() + "...\n") is None
