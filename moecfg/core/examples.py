"""Builders of the YAML example documents in the rules' docs (`rule(..., docs=lambda: dict(...))`).

Only called when docs are rendered (`moecfg explain`, `moecfg rules`, SARIF help, docs/rules.md), never
on the `check` path: the family modules keep their docs in lambdas, so importing a family builds no text.
"""
from __future__ import annotations


def render(fields: dict, indent: str = "") -> str:
    """Block YAML of a flat mapping (nested mappings one level down); str values are written verbatim."""
    out = []
    for key, value in fields.items():
        if isinstance(value, dict):
            out.append(f"{indent}{key}:\n" + render(value, indent + "  "))
        elif isinstance(value, bool):
            out.append(f"{indent}{key}: {str(value).lower()}\n")
        else:
            out.append(f"{indent}{key}: {value}\n")
    return "".join(out)


def ex(base: dict, **changes) -> str:
    """`base` with keys replaced, added (at the end, before env) or removed (value None)."""
    d = {k: v for k, v in base.items() if k != "env"}
    for k, v in changes.items():
        if k != "env":
            d.pop(k, None)
            if v is not None:
                d[k] = v
    env = changes.get("env", base.get("env"))
    if env is not None:
        d["env"] = env
    return render(d)
