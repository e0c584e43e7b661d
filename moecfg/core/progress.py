"""Progress of long runs (a folder of thousands of files, `plan` over many EP sizes, big sweeps) on stderr.

Shown only when stderr is a terminal, outside CI (`CI` set, as GitHub Actions, GitLab and most runners do)
and for the human format; never in pipes, CI logs or machine formats (the caller passes enabled=False).
rich is imported only when a bar is drawn; the bar disappears when the run ends (transient). `check_paths`
takes `progress=` from its caller; the planners' loops call `track` and draw only after the command
enabled it (`enable(True)` for its text format).
"""
from __future__ import annotations

import os
import sys


_ENABLED = [False]  # set by the command (its output format); off in library use


def enable(on: bool) -> None:
    _ENABLED[0] = on


def wanted(total: int, min_items: int, enabled: bool | None = None) -> bool:
    on = _ENABLED[0] if enabled is None else enabled
    return on and total >= min_items and sys.stderr.isatty() and not os.environ.get("CI")


def track(items, label: str, min_items: int, enabled: bool | None = None):
    """Yield `items` (a sequence), advancing a bar on stderr when `wanted`."""
    items = list(items)
    if not wanted(len(items), min_items, enabled):
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(file=sys.stderr, force_terminal=True)
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(label, total=len(items))
        for item in items:
            yield item
            bar.advance(task)
