"""Output formats: one module per format, each with `render(report, *, color=False, command="check") -> str`.

Only the chosen module is imported (`load`)."""
from __future__ import annotations

import importlib

RENDERERS = {
    "text": "moecfg.render.text",
    "json": "moecfg.render.json_report",
}


def load(name: str):
    return importlib.import_module(RENDERERS[name])
