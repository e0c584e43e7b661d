"""The DeepEP APIs, one folder each (ops/<api>/): its fields, formulas, model, rules with their docs, and
`analysis.py`, whose `analyze(doc, options) -> Analysis` checks a document. `v1` is the legacy `Buffer` with its
three modes (normal, low_latency, auto: one Buffer, one config and one buffer size for both kernels, so one
folder); `v2` is `ElasticBuffer`; `hybridep` is NVIDIA's `HybridEPBuffer`. What they share is in ../shared/.

Adding an API = its folder + one line in APIS (the kind and the field tables read it from here).
"""

# `api:` value -> the module under ops/ whose `analyze(doc, options)` checks it; its field table is
# `fields.FIELDS` of the same folder. The order is the order of the `api` choices in messages and the schema.
APIS = {
    "v1": "v1.analysis",
    "v2": "v2.analysis",
    "hybridep": "hybridep.analysis",
}


def analysis_module(api: str) -> str:
    return f"{__name__}.{APIS[api]}"


def folder_package(api: str) -> str:
    return f"{__name__}.{APIS[api].split('.')[0]}"
