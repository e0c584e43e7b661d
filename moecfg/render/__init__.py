"""Output formats: one module per format, each with `render(report, *, color=False, command="check") -> str`.

Only the chosen module is imported (`load`)."""
from __future__ import annotations

import importlib

RENDERERS = {
    "text": "moecfg.render.text",
    "json": "moecfg.render.json_report",
    "sarif": "moecfg.render.sarif",
    "github": "moecfg.render.github",
    "junit": "moecfg.render.junit",
}


def load(name: str):
    return importlib.import_module(RENDERERS[name])
