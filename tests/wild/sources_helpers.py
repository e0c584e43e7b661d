"""Reading YAML documents for the wild tests (no engine, no settings)."""
from __future__ import annotations

from moecfg.sources.readers import read_yaml_document
from moecfg.sources.manifests.yaml_source import parse_stream


def read_yaml_text(text: str) -> list:
    return [read_yaml_document(doc, text) for doc in parse_stream(text)]
