"""Pre-processing of `kind: ascend` documents: `model:` fills fields from a preset, `redundant_experts:` adds
EPLB redundant experts to the routed expert count.

Explicit keys win over the preset. `redundant_experts` always adds to `moe_expert_num`, whether that comes
from the preset or is written in the file (write the model's routed count, not the total). Shared experts
are filled only when the file places them on dedicated ranks (`shared_expert_rank_num` > 0): otherwise
they run on every rank outside the dispatch and torch_npu's default (1, 0) "no shared expert ranks" stays.
Filled keys take the position of the `model` key, so a rule that fires on them points there.
"""
from __future__ import annotations

from ..diagnostics import Finding
from ..rules_input import INVALID_VALUE
from . import ModelPreset, lookup, unknown_message

ASCEND_FILL = (("h", "hidden_size"), ("k", "top_k"), ("moe_expert_num", "routed_experts"),
               ("zero_expert_num", "zero_experts"), ("copy_expert_num", "copy_experts"),
               ("const_expert_num", "const_experts"))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def ascend_values(preset: ModelPreset, data: dict) -> dict:
    """The Ascend fields `preset` fills in `data` (keys already written are left alone)."""
    out = {}
    for key, attr in ASCEND_FILL:
        value = getattr(preset, attr)
        if key not in data and (value or key in ("h", "k", "moe_expert_num")):
            out[key] = value
    ranks = data.get("shared_expert_rank_num")
    if "shared_expert_num" not in data and _is_int(ranks) and ranks > 0 and preset.shared_experts > 0:
        out["shared_expert_num"] = preset.shared_experts
    return out


def expand_ascend(doc) -> list[Finding]:
    """Expand `model` / `redundant_experts` of `doc` in place (data and positions); returns findings."""
    data = doc.data
    if not isinstance(data, dict) or ("model" not in data and "redundant_experts" not in data):
        return []
    findings, new = [], dict(data)
    model = data.get("model")
    if isinstance(model, str):
        preset = lookup(model)
        if preset is None:
            findings.append(Finding(INVALID_VALUE.code, ("model",), unknown_message(model)))
        else:
            for key, value in ascend_values(preset, data).items():
                new[key] = value
                _borrow_position(doc, (key,), ("model",))
    extra = data.get("redundant_experts")
    if _is_int(extra):
        if extra < 0:
            findings.append(Finding(INVALID_VALUE.code, ("redundant_experts",),
                                    f"`redundant_experts` = {extra} must be >= 0 (EPLB redundant experts)"))
        elif extra and _is_int(new.get("moe_expert_num")):
            new["moe_expert_num"] += extra
            if "moe_expert_num" not in data:
                _borrow_position(doc, ("moe_expert_num",), ("redundant_experts",), force=True)
    doc.data = new
    return findings


def _borrow_position(doc, path: tuple, source: tuple, force: bool = False) -> None:
    if source in doc.values and (force or path not in doc.values):
        doc.values[path] = doc.values[source]
        if source in doc.keys:
            doc.keys[path] = doc.keys[source]
