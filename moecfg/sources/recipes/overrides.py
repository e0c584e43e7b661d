"""A trainer's config file as Hydra's override words: every scalar under a mapping becomes one word
`<dotted.path>=<value>` positioned at its value (lists of scalars joined by commas), as `python3 -m <trainer>
a.b=c ...` would receive it. Used by the readers of trainer configs (mindspeed_rl.py, verl_config.py)."""
from __future__ import annotations

from moecfg.sources.launch import Word
from moecfg.sources.manifests.yaml_source import Span, YamlDocument

MAX_WORDS = 2000  # a config, not a data file: the rest is not read


def flat(value, path: tuple):
    """(path, scalar) for every scalar under a mapping (lists of scalars joined by commas)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(key, str):
                yield from flat(inner, path + (key,))
    elif scalar(value):
        yield path, value
    elif isinstance(value, list) and all(scalar(v) for v in value):
        yield path, ",".join(text(v) for v in value)


def scalar(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def text(value) -> str:
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def span(doc: YamlDocument, path: tuple, key: bool = False) -> Span:
    table = doc.keys if key else doc.values
    return table.get(path) or doc.keys.get(path) or Span(1, 1, 1, 1)


def words(doc: YamlDocument, sections) -> list[Word]:
    """The override words of `sections` (top-level keys of the document), at most MAX_WORDS."""
    out: list[Word] = []
    for section in sections:
        for path, value in flat(doc.data.get(section), (section,)):
            out.append(Word(f"{'.'.join(path)}={text(value)}", span(doc, path)))
            if len(out) >= MAX_WORDS:
                return out
    return out
