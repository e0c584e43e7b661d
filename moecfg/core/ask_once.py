"""Questions asked once per run: "which Ascend product?" (MC042) is the same question for every launch of a
repository, so it is reported on the first launch that needs it, naming the other files, instead of on each."""
from __future__ import annotations

from moecfg.core.launch_rules import PRODUCT_UNKNOWN

_SHOWN_FILES = 5


def product_question(results: list) -> None:
    """Keeps the first MC042 product question of the run (files in report order) and names the rest in it."""
    asked = [(r, d) for r in results for d in r.diagnostics if d.code == "MC042" and PRODUCT_UNKNOWN in d.message]
    if len(asked) < 2:
        return
    (first, kept), rest = asked[0], asked[1:]
    for r, d in rest:
        r.diagnostics.remove(d)
    files = list(dict.fromkeys(r.file for r, _ in rest if r.file != first.file))
    shown = ", ".join(files[:_SHOWN_FILES]) + (f" and {len(files) - _SHOWN_FILES} more" if len(files) > _SHOWN_FILES
                                               else "")
    where = f" in this file{' and in ' + shown if files else ''}"
    kept.message += f" (asked once for the {len(asked)} launches with expert parallelism{where})"
