"""The direction between moecfg's top-level parts, read from the one table that declares it (docs/architecture.md,
between the `part-levels` comments): part -> level. A module may import its own part or a lower level only."""
from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
_BLOCK = re.compile(r"<!-- part-levels.*?-->\n(.*?)<!-- /part-levels -->", re.S)
_ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]+)\|", re.M)


def read_levels(text: str) -> dict[str, int]:
    block = _BLOCK.search(text)
    assert block, f"{DOC}: no part-levels table"
    levels: dict[str, int] = {}
    for level, parts in _ROW.findall(block.group(1)):
        for name in parts.split(","):
            assert name.strip() not in levels, f"{name.strip()} has two levels"
            levels[name.strip()] = int(level)
    return levels


LEVELS = read_levels(DOC.read_text(encoding="utf-8"))


def part(module: str) -> str:
    """`moecfg.sources.shell.reader` -> sources; `moecfg.api` -> api; the package itself -> moecfg."""
    return module.split(".")[1] if "." in module else module


def against(edges: dict[str, set[str]], levels: dict[str, int] = LEVELS) -> set[tuple[str, str]]:
    """Every import between two parts that does not go to a strictly lower level (or touches a part with no level)."""
    return {(m, t) for m, targets in edges.items() for t in targets if part(m) != part(t)
            and (part(m) not in levels or part(t) not in levels or levels[part(t)] >= levels[part(m)])}
