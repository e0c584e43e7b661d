"""Hostile input to the launch readers: a diagnostic or nothing, never a traceback."""
from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moecfg.sources.readers import read_shell, read_yaml_document, template_problem
from moecfg.sources.manifests.yaml_source import YamlProblem, parse_stream


@pytest.mark.parametrize("text", [
    "if true; then " * 2000 + "vllm serve m;" + " fi;" * 2000,
    "echo " + "${A:-" * 3000 + "x" + "}" * 3000,
    "(" * 3000 + "vllm serve m" + ")" * 3000,
    "bash -c " + "\"bash -c " * 50 + "vllm serve m" + "\"" * 50,
    "'" * 10001,
    "vllm serve \x00 m\nvllm serve \ud800",
], ids=["deep-if", "deep-default", "deep-subshell", "nested-bash-c", "quotes", "nul-and-surrogate"])
def test_deep_or_broken_scripts_give_problems_not_tracebacks(text):
    lf = read_shell(text)
    assert all(p.code == "MC020" for p in lf.problems)


_KEYS = st.sampled_from(["apiVersion", "kind", "spec", "containers", "command", "args", "env", "name", "value",
                         "valueFrom", "image", "services", "environment", "entrypoint", "server_cmd", "model", "envs",
                         "envFrom", "configMapRef", "secretRef", "prefix", "env_file", "path", "required"])
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20),
                     st.sampled_from(["vllm serve m --tp $(TP)", "bash", "-c", "sh -c 'vllm serve $X", "{{ x }}",
                                      "A=1", "$$", "python -m sglang.launch_server --tp 2"]))
_DATA = st.recursive(_SCALARS, lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(_KEYS, c, max_size=5)),
                     max_leaves=20)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(container=st.dictionaries(_KEYS, _DATA, max_size=6), style=st.sampled_from([None, "'", '"', "|", ">"]),
       shape=st.integers(0, 2))
def test_random_manifests_never_crash(container, style, shape):
    data = [{"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [container]}}, {"services": {"a": container}},
            {"deployment": [dict(container, server_cmd="vllm serve m --x $A")]}][shape]
    text = yaml.dump(data, default_style=style, allow_unicode=True)
    try:
        docs = parse_stream(text)
    except YamlProblem:
        return
    for doc in docs:
        lf = read_yaml_document(doc, text)
        assert lf is None or all(p.code in ("MC020", "MC023", "MC024") for p in lf.problems)
    template_problem(text)


@pytest.mark.parametrize("text", [
    "A=(" * 3000 + "x" + ")" * 3000 + "\nvllm serve \"${A[@]}\"",
    "A=(x)\n" + "A=(\"${A[@]}\" \"${A[@]}\")\n" * 40 + "vllm serve \"${A[@]}\" ${#A[@]}",
    "A=(" + "$(" * 500 + ")" * 500 + ")\nvllm serve ${A[@]}",
    "sbatch <<EOF\n" + "bash <<E2\n" * 50 + "vllm serve m\n" + "E2\n" * 50 + "EOF\n",
    "declare -A M=(" + "[k]=v " * 5000 + ")\nvllm serve \"${M[@]}\" ${M[k]}",
    "source ./x.sh\n. \n. '' \nsource /dev/zero\n" * 200 + "vllm serve m",
], ids=["deep-array", "doubling-array", "deep-substitution-element", "nested-heredocs", "assoc", "sources"])
def test_hostile_arrays_heredocs_and_sources_stay_fast(text):
    import time
    t = time.process_time()
    lf = read_shell(text)
    assert time.process_time() - t < 5
    assert all(p.code in ("MC020", "MC023") for p in lf.problems)
