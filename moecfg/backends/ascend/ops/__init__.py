"""The Ascend ops, one folder each: ops/<op>/ holds the op's fields, its limits per CANN release (catalog),
its pure formulas, its model, its rules with their docs, and `analysis.py`, whose `analyze(doc, options) ->
Analysis` checks a document. What several ops share (the dispatch/combine v2 model, formulas, limits and
rule families that v1, combine_add_rms_norm and the fused ops build on; rule-set resolution) is in
../shared/, imported by name.

Adding an op = its folder + one line in OPS: the kind (kind.py), the field tables (fields.py) and the rule
listing (`moecfg rules`, which imports every `rules` module of an op folder) read it from here.
"""

# `op:` value -> the module under ops/ whose `analyze(doc, options)` checks it. The op's field table is
# `fields.FIELDS` of the same folder (`fields.OP_FIELDS[op]` where a folder serves several ops). The order is
# the order of the `op` choices in messages and in the schema.
OPS = {
    "dispatch_combine_v2": "dispatch_combine_v2.analysis",
    "combine_add_rms_norm": "combine_add_rms_norm.analysis",
    "dispatch_combine_v1": "dispatch_combine_v1.analysis",
    "ffn_worker_batching": "ffn_worker_batching.analysis",
    "mega_moe": "mega_moe.analysis",
    "dispatch_ffn_combine": "dispatch_ffn_combine.analysis",
    "sgl_deepep_normal": "sgl_deepep.normal",
    "sgl_deepep_low_latency": "sgl_deepep.low_latency",
}


def analysis_module(op: str) -> str:
    """The full name of the module that analyses `op`."""
    return f"{__name__}.{OPS[op]}"


def folder_package(op: str) -> str:
    """The full name of the package (folder) of `op`."""
    return f"{__name__}.{OPS[op].split('.')[0]}"
