"""The product a launch runs on, from hints in its file: device-plugin resource names, SoC names, node labels.

Only names that identify the product are used. `huawei.com/ascend-1980` is the resource name of both Atlas A2 and
A3 nodes on Huawei Cloud CCE / MindCluster: alone it gives nothing (the launch asks for `--product`, MC042), but a
container asking for more of it than an A2 node has (8 NPUs; an A3 node has 16 dies, as vllm-ascend's A3 nightly
asks `huawei.com/ascend-1980: 16`, vllm-project/vllm-ascend tests/e2e/nightly/multi_node/scripts/lws.yaml.jinja2)
runs on A3. The settings and `--product` always win over a hint.
"""
from __future__ import annotations

import re

# Atlas A3 = Ascend 910_93 SoCs (npu-smi: Ascend910_9391, _9392, _9381, _9382, _9372, _9362), 910C; A2 = 910B1-B4.
_A3 = re.compile(r"910_?93\d*|910C\d?\b|\batlas[- ]?(?:800[it]?|900)[- ]?a3\b|superpod", re.I)
A2_DEVICES_PER_NODE = 8
_SHARED = re.compile(r"^huawei\.com/ascend-1980: (\d+)$", re.I)
_A2 = re.compile(r"910B\d?\b|\batlas[- ]?(?:800[it]?|900|200t?)[- ]?a2\b", re.I)


def product_from_hints(hints) -> tuple[str, str, object] | None:
    """(product, the hint text, its Span) of the first hint naming A2 or A3, or None."""
    for text, span in hints:
        shared = _SHARED.match(text)
        if shared and int(shared.group(1)) > A2_DEVICES_PER_NODE:
            return "A3", f"{text} (more than the {A2_DEVICES_PER_NODE} NPUs of an A2 node)", span
        if _A3.search(text):
            return "A3", text, span
        if _A2.search(text):
            return "A2", text, span
    return None


def product_from_env(env: dict) -> tuple[str, str, object] | None:
    """`ASCEND_A3_ENABLE=1`, which the vllm-ascend GLM-5 / GLM-5.2 tutorials and nightly A3 configs set ("A3-specific
    optimizations for communication aggregation", vllm-project/vllm-ascend@182b75e docs/source/tutorials/models/
    GLM5.md), names A3; any other value names nothing."""
    entry = env.get("ASCEND_A3_ENABLE")
    if entry is None or (entry.value or "").strip() not in ("1", "true", "True"):
        return None
    return "A3", f"ASCEND_A3_ENABLE={entry.value}", entry.span


_ASCEND = re.compile(r"ascend|huawei|\b910|atlas", re.I)


def ascend_hint(hints) -> str | None:
    """The first hint that names Ascend hardware (a GPU resource such as nvidia.com/gpu is not one)."""
    return next((text for text, _ in hints if _ASCEND.search(text)), None)
