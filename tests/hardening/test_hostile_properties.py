"""Hostile-input property test: YAML built from the pieces the attacks above used (tags and their bad scalars,
anchors, aliases and merge keys, deep nesting, directives in comments and in scalars, control characters, long
and Unicode-digit values, several documents) never makes the engine raise, stays bounded in time, and every
output format stays safe: no control character or workflow command in text, github escaped, XML well-formed,
JSON parseable. Launch/shell files join this test once their readers exist (sources/)."""
from __future__ import annotations

import json
import re
import time
import xml.etree.ElementTree as ET

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moecfg.core.diagnostics import Report
from moecfg.checking.engine import lint_bytes
from moecfg.checking.settings import Cli, Config, FilePolicy
from moecfg.render import load

KEYS = ["product", "bs", "h", "k", "ep_world_size", "moe_expert_num", "cann_version", "env", "kind", "<<",
        "device_memory_gb", '"x\\e]0;t\\ay"', '"::error::k"', "a\u202eb", '"k\\n::warning::w"', "k" * 80, "'q # moecfg: disable=MC003 -- s'"]
TAGS = ["", "!!int ", "!!float ", "!!bool ", "!!str ", "!!seq ", "!!map ", "!!set ", "!!omap ", "!!binary ",
        "!!timestamp ", "!local ", "!!null "]
SCALARS = ["0x_", "0b_", "x", "1.5", "''", "A3", "²", "9." + "1" * 50, "1" * 30, ".inf", ".nan", "1.0e+308", "~",
           "yes", "1:30", "deepep", "__main__", "\"\\e]0;t\\a\"", "\"a\\nb\"", "128", "-1", "2024-01-01"]
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def value(draw, depth=0):
    kind = draw(st.integers(0, 6 if depth < 3 else 2))
    if kind <= 2:
        tag = draw(st.sampled_from(TAGS)) if draw(st.integers(0, 3)) == 0 else ""
        return tag + draw(st.sampled_from(SCALARS))
    if kind == 3:
        return "*a" + str(draw(st.integers(0, 3)))
    if kind == 4:
        n = draw(st.integers(1, 60))
        return "[" * n + "]" * n
    if kind == 5:
        return "{<<: [" + ", ".join("*a" + str(draw(st.integers(0, 3))) for _ in range(draw(st.integers(1, 4)))) + "]}"
    inner = draw(st.lists(value(depth + 1), min_size=1, max_size=4))
    return "[" + ", ".join(inner) + "]"


@st.composite
def hostile_file(draw) -> bytes:
    lines = [f"a{i}: &a{i} " + "{x: " + draw(st.sampled_from(SCALARS)) + "}" for i in range(4)]
    for _ in range(draw(st.integers(1, 12))):
        key = draw(st.sampled_from(KEYS))
        line = f"{key}: {draw(value())}"
        extra = draw(st.sampled_from(["", "  # moecfg: disable=MC201 -- r", "  # moecfg: disable=", "\n---",
                                      "\n# moecfg: disable-file=MC011 -- r", "\nnote: |\n  # moecfg: disable=MC003 -- in"]))
        lines.append(line + extra)
    text = "\n".join(lines) + "\n"
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32"]))
    return text.encode(encoding, "surrogatepass")


@FAST
@given(hostile_file())
def test_hostile_input_is_reported_never_raised(raw):
    start = time.process_time()
    results = lint_bytes(raw, "deploy/x\x1b.yaml", policy=FilePolicy(Config(), Cli()))
    assert time.process_time() - start < 5
    report = Report(results=results, files=1)
    for r in results:
        for d in r.diagnostics:
            assert d.code.startswith("MC") and d.line >= 1 and len(d.message) < 2000 and " at 0x" not in d.message
    text = load("text").render(report)
    assert not CONTROL.search(text) and not re.search(r"^\s*::", text, re.M)
    github = load("github").render(report)
    assert not CONTROL.search(github) and all(line.startswith(("::error ", "::warning ", "::notice ", "Checked "))
                                              for line in github.splitlines())
    ET.fromstring(load("junit").render(report))
    json.loads(load("json").render(report))
    json.loads(load("sarif").render(report))


WORDS = ["vllm", "serve", "python", "-m", "sglang.launch_server", "--tensor-parallel-size", "--tp", "16", "$TP",
         "${A:-", "}", "'", '"', "\\", "\n", "\x1b]0;t\x07", "::error::w", "²", "9" * 40, "bash", "-c", "export",
         "HCCL_BUFFSIZE=", "--enable-expert-parallel", "--data-parallel-size", "$(", ")", "`", "&&", ";", "#",
         "# moecfg: disable=MC201 -- r", "--additional-config", "{\"ascend\": 1}", "\u202e", "\udcff"]


@st.composite
def launch_file(draw) -> tuple[str, bytes]:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=40))
    head = draw(st.sampled_from(["", "vllm serve deepseek-ai/DeepSeek-V3 ", "python -m sglang.launch_server --model m ",
                                 "export HCCL_BUFFSIZE=1024\nvllm serve m --enable-expert-parallel "]))
    script = head + " ".join(words)
    if draw(st.booleans()):
        return "run.sh", ("#!/bin/bash\n" + script + "\n").encode("utf-8", "surrogateescape")
    manifest = {"apiVersion": "v1", "kind": "Pod",
                "spec": {"containers": [{"name": "c", "command": ["bash", "-c"], "args": [script]}]}}
    import yaml

    return "pod.yaml", yaml.safe_dump(manifest, allow_unicode=True).encode("utf-8", "surrogatepass")


@FAST
@given(launch_file())
def test_hostile_launch_files_are_reported_never_raised(named):
    rendered_safely(*named)


def rendered_safely(name: str, raw: bytes) -> list:
    """Checks one hostile file in bounded time and renders it in every format: no control character, no line
    starting with `::`, well-formed JUnit XML and SARIF JSON. Returns the results for further assertions."""
    start = time.process_time()
    results = lint_bytes(raw, name, policy=FilePolicy(Config(), Cli()))
    assert time.process_time() - start < 5
    report = Report(results=results, files=1)
    text = load("text").render(report)
    assert not CONTROL.search(text) and not re.search(r"^\s*::", text, re.M)
    ET.fromstring(load("junit").render(report))
    json.loads(load("sarif").render(report))
    return results
