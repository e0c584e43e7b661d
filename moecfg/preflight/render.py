"""Preflight output: what was read from the machine (the derivation's source), what was not and what that means,
then the same report `moecfg check` prints, then the verdict. Every line goes through render/escape.py: tool
output and package metadata are text from outside moecfg."""
from __future__ import annotations

import json

from moecfg.render import escape


def text(outcome, verdict: str) -> str:
    from moecfg.render.text import render

    f = outcome.facts
    lines = ["moecfg preflight: read from this machine"]
    lines += [f"  {line}" for line in f.read] or ["  (nothing)"]
    lines += [f"  model {path} <- {config}" for path, config in outcome.models.items()]
    lines += [f"  {line}" for line in outcome.from_settings]
    if f.unread:
        lines.append("not read: " + "; ".join(f.unread))
    if outcome.assumed:
        lines.append("assumed: " + "; ".join(outcome.assumed))
    return escape.lines(lines) + render(outcome.report) + escape.lines([verdict])


def as_json(outcome, verdict: str, passed: bool) -> str:
    from moecfg.render.json_report import as_dict

    f = outcome.facts
    machine = {"product": f.product, "product_from": f.product_from or None, "device_memory_gb": f.device_memory_gb,
               "memory_from": f.memory_from or None, "cann": f.cann, "cann_from": f.cann_from or None,
               "driver": f.driver, "packages": f.packages, "models": outcome.models}
    doc = {"schema_version": 1, "machine": machine, "read": f.read, "not_read": f.unread, "assumed": outcome.assumed,
           "from_settings": outcome.from_settings, "passed": passed, "verdict": verdict, "report": as_dict(outcome.report)}
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"
