"""Hostile input for the issue-24 readers: Markdown / rST code blocks, Dynamo and OME container specs, KServe
LLMInferenceService parallelism. Never raised, bounded in time, output safe (as test_hostile_properties.py)."""
from __future__ import annotations

import time

import yaml
from hypothesis import given
from hypothesis import strategies as st
from test_hostile_properties import FAST, WORDS, rendered_safely

from moecfg.checking.engine import lint_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy

FENCES = ["```bash\n", "```console\n$ ", "~~~sh\n", "   ```shell\n   ", "````{code-block} bash\n", "```yaml\n",
          "```\n", "```bash\n```\n", "::::{tab-item} x\n```bash\n", "# heading\n```bash\n", "```bash\n<node_ip> '{...}' ... "]
CLOSERS = ["\n```\n", "\n", "\n~~~\n", "\n````\n", "\n::::\n", ""]


@st.composite
def surface_file(draw) -> tuple[str, bytes]:
    script = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=30)))
    kind = draw(st.integers(0, 4))
    if kind <= 1:
        parts = [draw(st.sampled_from(FENCES)) + script + draw(st.sampled_from(CLOSERS))
                 for _ in range(draw(st.integers(1, 6)))]
        if kind == 1:
            return "doc.rst", ("Title\n=====\n\n.. code-block:: bash\n\n   " + script.replace("\n", "\n   ") + "\n"
                               ).encode("utf-8", "surrogateescape")
        return "doc.md", "prose\n".join(parts).encode("utf-8", "surrogateescape")
    container = {"command": ["sh", "-c"], "args": [script], "resources": {"limits": {"nvidia.com/gpu": draw(
        st.sampled_from([8, "8", "x", None, -1, 10**30]))}}, "env": [{"name": "A", "value": script}]}
    if kind == 2:
        doc = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
               "spec": {"envs": [{"name": "X", "valueFrom": {}}], "services": {"decode": {"extraPodSpec": {
                   "mainContainer": container}}}}}
    elif kind == 3:
        doc = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "spec": {"engineConfig": {
            "leader": {"runner": container}, "worker": {"size": draw(st.sampled_from([1, "1", None, True, 10**30]))}}}}
    else:
        par = {k: draw(st.sampled_from([1, 32, "x", None, True, [1], 10**30])) for k in ("tensor", "data", "dataLocal")}
        par["expert"] = draw(st.sampled_from([True, "yes", None]))
        doc = {"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceService",
               "spec": {"parallelism": par, "template": {"containers": [{"name": "main", "env": [
                   {"name": "VLLM_ADDITIONAL_ARGS", "value": script}]}]}}}
    return "crd.yaml", yaml.safe_dump(doc, allow_unicode=True).encode("utf-8", "surrogatepass")


@FAST
@given(surface_file())
def test_hostile_docs_and_serving_crds_are_reported_never_raised(named):
    name, raw = named
    results = rendered_safely(name, raw)
    if name.endswith((".md", ".rst")):  # documentation: no shell-syntax finding, ever
        assert not [d for r in results for d in r.diagnostics if d.code == "MC020"]


def test_deeply_nested_yaml_block_in_markdown_is_skipped():
    raw = ("```yaml\napiVersion: v1\nkind: Pod\nspec: " + "[" * 20000 + "]" * 20000 + "\n```\n").encode()
    assert lint_bytes(raw, "doc.md", policy=FilePolicy(Config(), Cli())) == []


def test_huge_crd_with_many_runners_stays_fast():
    runner = "  - runner:\n      command: [vllm, serve, m, --tensor-parallel-size, '2']\n"
    raw = ("apiVersion: x/v1\nkind: Big\nspec:\n  items:\n" + runner * 3000).encode()
    start = time.process_time()
    results = lint_bytes(raw, "big.yaml", policy=FilePolicy(Config(), Cli()))
    assert time.process_time() - start < 30 and results
