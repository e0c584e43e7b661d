"""A check run whose results come file by file, in walk order, as soon as each file (and every file before it)
is done: what streamed text output prints (issue 36: the first lines appear before the whole tree is done, also
when worker processes check a big tree).

Findings said once per run (checking/ask_once.py: "which product?", "version assumed") depend on the files after
them: the first is kept and names the others. They are held back and come once the run is done (`questions()`),
with their final wording; everything else of a file is final when the file is."""
from __future__ import annotations

from collections.abc import Iterator

from moecfg.checking import engine
from moecfg.checking.ask_once import may_be_asked_once
from moecfg.core.diagnostics import Report


class StreamedCheck:
    """`files()` yields each file's results (list of DocumentResult; held-back findings still in them, see
    `held`); after it is exhausted, `report` is the run's whole Report, as check_paths returns it."""

    def __init__(self, paths, options, settings=None, progress: bool = False, respect_gitignore: bool | None = None,
                 deadline: bool = False):
        self.report = Report()
        self.held: set[int] = set()  # id() of the findings held back until the end
        self._held: list[tuple] = []
        self._settings = settings
        self._files = engine.each_file(paths, options, settings, progress, respect_gitignore, self.report, deadline)

    def files(self) -> Iterator[list]:
        for one in self._files:
            for r in one.results:
                for d in r.diagnostics:
                    if may_be_asked_once(d):
                        self.held.add(id(d))
                        self._held.append((r, d))
            if one.results:
                yield one.results
        before = len(self.report.results)
        engine.finish(self.report, self._settings)
        if len(self.report.results) > before:  # MC016 on settings files of the tree that could not be used
            yield self.report.results[before:]

    def questions(self) -> list[tuple]:
        """The held-back findings still in the report once the run is done (the first of each question, reworded
        to name the others), in walk order."""
        return [(r, d) for r, d in self._held if any(x is d for x in r.diagnostics)]
