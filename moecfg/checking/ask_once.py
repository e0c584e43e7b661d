"""Questions asked once per run: "which Ascend product?" and "which model is this?" (MC042) are the same question
for every launch of a repository (one settings entry answers them all), so each is reported on the first launch
that needs it, naming the other files (and, for the model, the other names to map), instead of on each. So is
MC040 "framework version assumed": one pin answers it for every launch the same assumption covers.
Each function works on one run's results only: nothing is kept between runs."""
from __future__ import annotations

import re

from moecfg.core.launch_rules import FUSED_OP_UNKNOWN, MODEL_NOT_KNOWN, MODEL_NOT_STATIC, PRODUCT_UNKNOWN

_SHOWN = 5  # files (or model names) named in the one question; the rest are counted
_MODEL_NAME = re.compile(r"model ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\") " + re.escape(MODEL_NOT_KNOWN))


def may_be_asked_once(d) -> bool:
    """A finding one of the functions below may fold into another file's (or reword): streamed text output
    (checking/stream.py) holds it back until the run is done."""
    if d.code == "MC040":
        return True
    return d.code == "MC042" and any(q in d.message for q in (PRODUCT_UNKNOWN, FUSED_OP_UNKNOWN, MODEL_NOT_KNOWN,
                                                              MODEL_NOT_STATIC))


def product_question(results: list) -> None:
    """Keeps the first MC042 product question of the run (files in report order) and names the rest in it."""
    asked = _asked(results, lambda m: PRODUCT_UNKNOWN in m)
    if len(asked) > 1:
        _keep_first(asked, f"asked once for the {len(asked)} launches with expert parallelism")


def fused_op_question(results: list) -> None:
    """Keeps the first MC042 "which fused MC2 op does the image run" (vllm-ascend's enable_fused_mc2): the same
    `cann_version` setting answers it for every launch of the run."""
    asked = _asked(results, lambda m: FUSED_OP_UNKNOWN in m)
    if len(asked) > 1:
        _keep_first(asked, f"asked once for the {len(asked)} launches with fused MC2")


def model_question(results: list) -> None:
    """Keeps the first MC042 "model not known" of the run and names the other models and files in it. Only launches
    whose model changes the verdict ask it (the frameworks say it where the model sizes the EP buffers)."""
    asked = _asked(results, lambda m: MODEL_NOT_KNOWN in m or MODEL_NOT_STATIC in m)
    if len(asked) < 2:
        return
    names = list(dict.fromkeys(_model_name(d.message) for _, d in asked))
    others = [n for n in names if n != _model_name(asked[0][1].message)]
    also = f"; map the other models too: {_listed(others)}" if others else ""
    _keep_first(asked, f"asked once for the {len(asked)} launches whose model is not known", also)


def version_assumed(results: list) -> None:
    """Keeps the first MC040 of each assumption (framework, version assumed, reason: one message text, since the
    frameworks word it from those three alone) and says in it how many launches it covers."""
    said: dict[str, list] = {}
    for r in results:
        for d in r.diagnostics:
            if d.code == "MC040":
                said.setdefault(d.message, []).append((r, d))
    for same in said.values():
        if len(same) > 1:
            _keep_first(same, f"said once for the {len(same)} launches it covers")


def _asked(results: list, question) -> list:
    return [(r, d) for r in results for d in r.diagnostics if d.code == "MC042" and question(d.message)]


def _model_name(message: str) -> str:
    m = _MODEL_NAME.search(message)
    return m.group(1) if m else "a model set at run time (`*`)"


def _listed(items: list) -> str:
    return ", ".join(items[:_SHOWN]) + (f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


def _keep_first(asked: list, said: str, also: str = "") -> None:
    (first, kept), rest = asked[0], asked[1:]
    for r, d in rest:
        r.diagnostics.remove(d)
    files = list(dict.fromkeys(r.file for r, _ in rest if r.file != first.file))
    where = f" in this file{' and in ' + _listed(files) if files else ''}"
    kept.message += f" ({said}{where}{also})"
