"""Pre-processing of `kind: ascend` and `kind: deepep` documents: `model:` fills fields from a preset,
`redundant_experts:` adds EPLB redundant experts to the routed expert count (`moe_expert_num` / `num_experts`).

Explicit keys win over the preset. `redundant_experts` always adds to `moe_expert_num`, whether that comes
from the preset or is written in the file (write the model's routed count, not the total). Shared experts
are filled only when the file places them on dedicated ranks (`shared_expert_rank_num` > 0): otherwise
they run on every rank outside the dispatch and torch_npu's default (1, 0) "no shared expert ranks" stays.
Filled keys take the position of the `model` key, so a rule that fires on them points there.
DeepEP takes `hidden`, `num_experts` and `num_topk` (hidden_size, routed experts, top-k): shared experts run
outside DeepEP's dispatch, and LongCat-Flash's zero-computation experts are handled on the sending rank.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from moecfg.core.diagnostics import Finding
from moecfg.core.input_rules import INVALID_VALUE, MISSING_KEY

if TYPE_CHECKING:  # the preset table loads only for documents with `model:` (not on every check)
    from moecfg.presets import ModelPreset

ASCEND_FILL = (("h", "hidden_size"), ("k", "top_k"), ("moe_expert_num", "routed_experts"),
               ("zero_expert_num", "zero_experts"), ("copy_expert_num", "copy_experts"),
               ("const_expert_num", "const_experts"))
DEEPEP_FILL = (("hidden", "hidden_size"), ("num_experts", "routed_experts"), ("num_topk", "top_k"))
FILL = {"ascend": ASCEND_FILL, "deepep": DEEPEP_FILL}
EXPERT_COUNT = {"ascend": "moe_expert_num", "deepep": "num_experts"}  # what `redundant_experts` adds to
BY_HAND = {"ascend": "h, k and moe_expert_num", "deepep": "hidden, num_experts and num_topk"}


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


def deepep_values(preset: ModelPreset, data: dict) -> dict:
    """The DeepEP fields `preset` fills in `data` (keys already written are left alone)."""
    return {key: getattr(preset, attr) for key, attr in DEEPEP_FILL if key not in data}


def preset_values(kind: str, preset: ModelPreset, data: dict) -> dict:
    """The fields `preset` fills in a `kind` document ({} for a kind without presets)."""
    fill = {"ascend": ascend_values, "deepep": deepep_values}.get(kind)
    return fill(preset, data) if fill else {}


def expand_ascend(doc) -> list[Finding]:
    """Expand `model` / `redundant_experts` of an ascend `doc` in place (data and positions); returns findings."""
    return expand(doc, "ascend")


def expand_deepep(doc) -> list[Finding]:
    """Expand `model` / `redundant_experts` of a deepep `doc` in place (data and positions); returns findings."""
    return expand(doc, "deepep")


def expand(doc, kind: str) -> list[Finding]:
    data = doc.data
    if not isinstance(data, dict) or ("model" not in data and "redundant_experts" not in data):
        return []
    findings, new = [], dict(data)
    model = data.get("model")
    if isinstance(model, str):
        from moecfg.presets import lookup, unknown_message

        preset = lookup(model)
        if preset is None:
            findings.append(Finding(INVALID_VALUE.code, ("model",), unknown_message(model, BY_HAND[kind])))
        else:
            for key, value in preset_values(kind, preset, data).items():
                new[key] = value
                _borrow_position(doc, (key,), ("model",))
    extra, count = data.get("redundant_experts"), EXPERT_COUNT[kind]
    if _is_int(extra):
        if extra < 0:
            findings.append(Finding(INVALID_VALUE.code, ("redundant_experts",),
                                    f"`redundant_experts` = {extra} must be >= 0 (EPLB redundant experts)"))
        elif extra and _is_int(new.get(count)):
            new[count] += extra
            if count not in data:
                _borrow_position(doc, (count,), ("redundant_experts",), force=True)
    doc.data = new
    return findings


def _borrow_position(doc, path: tuple, source: tuple, force: bool = False) -> None:
    if source in doc.values and (force or path not in doc.values):
        doc.values[path] = doc.values[source]
        if source in doc.keys:
            doc.keys[path] = doc.keys[source]


def without_follow_ons(findings: list, kind: str) -> list:
    """When `model:` names no preset (MC006 on `model`), the keys its preset would fill are missing because of
    it: drop their MC005 so that the one root cause is reported, not four errors (issue 14)."""
    if not any(f.code == INVALID_VALUE.code and tuple(f.path) == ("model",) for f in findings):
        return findings
    follow_on = tuple(f"missing required key `{key}`" for key, _ in FILL[kind])  # core.fields.Validator's text
    return [f for f in findings if not (f.code == MISSING_KEY.code and not f.path and f.message.startswith(follow_on))]
