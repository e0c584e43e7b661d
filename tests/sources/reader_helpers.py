"""Helpers for the reader tests: the file text a Span covers, and reading YAML documents."""
from __future__ import annotations

from pathlib import Path

from moecfg.sources.readers import read_yaml_document
from moecfg.sources.textmap import LineIndex
from moecfg.sources.manifests.yaml_source import Span, parse_stream

FIXTURES = Path(__file__).parent / "fixtures"


def at(text: str, span: Span) -> str:
    """The text a Span covers (1-based line/column, end exclusive)."""
    idx = LineIndex(text)
    return text[idx.offset(span.line, span.column):idx.offset(span.end_line, span.end_column)]


def pos(span: Span) -> tuple[int, int, int, int]:
    return span.line, span.column, span.end_line, span.end_column


def read_yaml(text: str):
    """read_yaml_document over every document of `text`."""
    return [read_yaml_document(doc, text) for doc in parse_stream(text)]


def words(launch) -> list:
    return [w.value for w in launch.argv]


def word(launch, value: str):
    """The first word of `launch` whose value is `value`."""
    return next(w for w in launch.argv if w.value == value)


def after(launch, flag: str):
    """The word after `flag`."""
    argv = list(launch.argv)
    i = next(i for i, w in enumerate(argv) if w.value == flag)
    return argv[i + 1]
