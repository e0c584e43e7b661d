"""What changed between two CANN rule sets: every limit of every op table, flattened to dotted paths.

Pure data walk over the frozen catalogs of shared/rulesets.py (dispatch/combine v2 per product) and of the ops
with per-release tables (ops/<op>/catalog.py: combine_add_rms_norm, dispatch/combine v1, FfnWorkerBatching); `name` and `source` are identity, not limits, and are left out.
"""
from __future__ import annotations

import dataclasses

from moecfg.backends.ascend.ops.combine_add_rms_norm.catalog import ADD_RMS_NORM_RULES
from moecfg.backends.ascend.ops.dispatch_combine_v1.catalog import V1_RULES
from moecfg.backends.ascend.ops.ffn_worker_batching.catalog import FFN_RULES
from moecfg.backends.ascend.shared import rulesets

TABLES = (("v2", rulesets.RULESETS), ("add_rms_norm", ADD_RMS_NORM_RULES), ("v1", V1_RULES), ("ffn", FFN_RULES))
_IDENTITY = ("name", "source")
# the rule a limit feeds, by the first matching path prefix (v2 tables; "v2.a3.hierarchy." before "v2.a3.")
_RULES = (("v2.a3.hierarchy.ep", "MC101"), ("v2.a3.hierarchy.bs", "MC103"), ("v2.a3.hierarchy.h", "MC104"),
          ("v2.a3.hierarchy.moe", "MC106"), ("v2.a3.hierarchy.tp", "MC306"), ("v2.a3.hierarchy", "MC301"),
          ("v2.a2.moe_per_rank", "MC203"), ("v2.a2.h_max_int32", "MC113"), ("v2.a2.window_source", "MC503"),
          ("v2.a3.local_x_ep_max", "MC202"), ("v2.a3.shared_num_max", "MC204"), ("v2.a3.fm2_bs", "MC303"),
          ("v2.a3.fm2_k", "MC304"), ("v2.a3.fm2_rejects", "MC305"), ("v2.a3.fm2_ub", "MC310"),
          ("v2.a3.hier_rejects", "MC306"), ("v2.a3.performance_info", "MC405"), ("v2.a3.context", "MC407"),
          ("v2.a3.window_error", "MC501"), ("v2.a3.comm_algs", "MC301"), ("v2.a3.comm_quant", "MC112"),
          ("v2.a2.combine_comm_quant", "MC112"), ("v2.a3.legacy_tp", "MC111")) + tuple(
    (f"v2.{p}.{field}", code) for p in ("a2", "a3") for field, code in
    (("ep_", "MC101"), ("bs_", "MC103"), ("h_", "MC104"), ("k_max", "MC105"), ("moe_max", "MC106"), ("tp_", "MC111")))


def flatten(obj, prefix: str) -> dict:
    """{dotted path: value} of a catalog dataclass (nested dataclasses recursed, None kept)."""
    out = {}
    for f in dataclasses.fields(obj):
        if f.name in _IDENTITY:
            continue
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            out.update(flatten(value, f"{prefix}.{f.name}"))
        else:
            out[f"{prefix}.{f.name}"] = value
    return out


def limits(name: str) -> dict:
    """Every limit of rule set `name`, over all op tables."""
    out = {}
    for table, entries in TABLES:
        out.update(flatten(entries[name], table))
    return out


def rule_of(path: str) -> str:
    hits = [(prefix, code) for prefix, code in _RULES if path.startswith(prefix) and code]
    return max(hits, key=lambda h: len(h[0]))[1] if hits else ""


def diff(old: str, new: str) -> list[dict]:
    """[{path, old, new, rule}] for every limit that differs between rule sets `old` and `new`."""
    a, b = limits(old), limits(new)
    return [{"path": p, "old": a.get(p), "new": b.get(p), "rule": rule_of(p)}
            for p in sorted(set(a) | set(b)) if a.get(p) != b.get(p)]
