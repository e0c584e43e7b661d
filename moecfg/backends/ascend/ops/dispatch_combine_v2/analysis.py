"""`op: dispatch_combine_v2` (the default op): npu_moe_distribute_dispatch_v2 / npu_moe_distribute_combine_v2.

Its model, formulas, limits and rule families are shared with the ops built on dispatch v2 (shared/);
its own fields (`api`, `ccl_buffer_size`) are in fields.py.
"""
from __future__ import annotations

from moecfg.backends import Analysis, Options
from moecfg.backends.ascend import kind
from moecfg.backends.ascend.shared.dispatch_v2 import derived, run_families
from moecfg.backends.ascend.shared.model import AscendConfig, derive
from moecfg.backends.ascend.shared.rules import buffers
from moecfg.backends.device import rules as device_rules

OP = "dispatch_combine_v2"


def analyze(doc, options: Options) -> Analysis:
    values, findings, broken, ruleset = kind.validate(doc, options, OP)
    out = Analysis(findings=findings, kind="ascend", op=values.get("op"), product=values.get("product"))
    out.ruleset = ruleset.name if ruleset else None
    if ruleset is None or broken:
        return out
    cfg = AscendConfig.from_values(values, doc.data.keys())
    facts = derive(cfg, ruleset)
    run_families(cfg, facts, findings)
    findings.extend(device_rules.check(cfg, facts, values.get("device_memory_gb")))  # MC9xx
    reqs = buffers.requirements(cfg, facts)
    out.buffers = {r.domain: r.to_json() for r in reqs}
    out.derived = derived(cfg, facts)
    return out
