"""Reading budgets of one checked file, shared by everything read for it: the script, the files it sources,
its `bash -c` strings and heredocs, the YAML documents and aliases of a manifest. A launch file is a few KiB
and a few dozen commands; these limits are far above any real one and keep a crafted file of a few hundred
bytes (a variable doubled 30 times, an alias tree, `))))` that sends tree-sitter's error recovery quadratic)
to seconds and a bounded amount of memory.

Past a budget, moecfg stops reading the file (or, for one oversized value, leaves that value unknown) and one
MC023 info says which budget and where: what was read before is still checked, nothing after it is guessed.
"""
from __future__ import annotations

import time
from contextvars import ContextVar

PARSE_SECONDS = 2.0  # tree-sitter CPU time for the file (all its pieces): its error recovery can go quadratic
PARSED_CHARS = 8 << 20  # text handed to tree-sitter (a 256 KiB script sourced 32 times is 8 MiB)
PARSES = 2_000  # texts parsed: the script, each sourced file, `bash -c` string, manifest command
COMMANDS = 10_000  # commands and assignments read (~0.1 ms each)
LAUNCHES = 300  # framework launches derived and judged (~3 ms each)
WORDS = 100_000  # command words built (expansions and field splitting included)
MANIFEST_CHARS = 8 << 20  # heredoc bodies parsed as YAML manifests (shell/heredoc_manifest.py); beyond: data
VALUE_CHARS = 64 << 10  # one variable's value (`A="$A$A"` doubles it)

_CURRENT: ContextVar[Budget | None] = ContextVar("moecfg_read_budget", default=None)


class Budget:
    def __init__(self):
        self.parse_seconds, self.parsed, self.commands, self.launches, self.words = 0.0, 0, 0, 0, 0
        self.parses = 0
        self.manifest_chars = 0  # heredoc bodies parsed as YAML (shell/heredoc_manifest.py)
        self.spent: str | None = None  # which budget stopped the reading
        self.where = None  # the Span where it did
        self.value_capped = None  # (Span) the first value left unknown for its size
        self.reported = False

    @staticmethod
    def current() -> Budget:
        """The budget of the file being checked (a fresh one outside a check run: the API, a test)."""
        got = _CURRENT.get()
        return got if got is not None else Budget()

    def stop(self, what: str, where) -> None:
        if self.spent is None:
            self.spent, self.where = what, where

    def parse(self, parser, data: bytes, where):
        """tree-sitter's tree of `data`, or None (budget spent: the rest is not read)."""
        if self.spent:
            return None
        self.parsed += len(data)
        self.parses += 1
        if self.parses > PARSES:
            self.stop(f"{PARSES:,} shell texts parsed (sourced files, `bash -c` strings, manifest commands)", where)
            return None
        if self.parsed > PARSED_CHARS:
            self.stop(f"{PARSED_CHARS >> 20} MiB of shell text parsed (sourced files and `bash -c` strings included)",
                      where)
            return None
        start = time.process_time()  # CPU time: the same budget on a loaded CI runner
        try:
            return _bounded_parse(parser, data, PARSE_SECONDS - self.parse_seconds)
        except ValueError:  # tree-sitter: "Parsing failed" = stopped by the callback or the timeout
            parser.reset()
            self.stop(f"{PARSE_SECONDS:g} s of shell parsing (a text whose syntax errors make the parser's recovery "
                      "slow)", where)
            return None
        finally:
            self.parse_seconds += time.process_time() - start

    def relocate(self, where) -> None:
        """Positions inside a sourced file become the `source` line of the script being checked."""
        if self.spent is not None:
            self.where = where
        if self.value_capped is not None:
            self.value_capped = where

    def command(self, where) -> bool:
        self.commands += 1
        if self.commands > COMMANDS:
            self.stop(f"{COMMANDS:,} commands", where)
        return not self.spent

    def launch(self, where) -> bool:
        self.launches += 1
        if self.launches > LAUNCHES:
            self.stop(f"{LAUNCHES:,} launch commands", where)
            return False
        return True  # the launches read before another budget was spent are still judged

    def words_made(self, n: int, where) -> bool:
        self.words += n
        if self.words > WORDS:
            self.stop(f"{WORDS:,} command words", where)
        return not self.spent

    def value_ok(self, value: str | None, where) -> bool:
        if value is None or len(value) <= VALUE_CHARS:
            return True
        if self.value_capped is None:
            self.value_capped = where
        return False

    def problems(self) -> list:
        """The one MC023 info of this file's spent budget (once per file), as launch Problems."""
        if self.reported or (self.spent is None and self.value_capped is None):
            return []
        from moecfg.core import launch_rules as L
        from moecfg.sources.launch import Problem

        self.reported = True
        out = []
        if self.value_capped is not None:
            out.append(Problem(L.VALUE_UNKNOWN.code, f"a variable's value grows past {VALUE_CHARS >> 10} KiB "
                               "(moecfg's budget for one value): it is unknown from here, and so is every "
                               "argument built from it", self.value_capped))
        if self.spent is not None:
            out.append(Problem(L.VALUE_UNKNOWN.code, f"moecfg's reading budget for one file is spent ({self.spent}): "
                               "the rest of the file from here is not read and its launches are not checked; "
                               "split the file, or check the launch scripts it generates", self.where))
        return out


_PROGRESS: list[bool] = []  # [True] once parse(progress_callback=) is known to work (tree-sitter >= 0.25)


def _bounded_parse(parser, data: bytes, seconds: float):
    """tree-sitter's tree of `data`, stopped after `seconds` (ValueError): by a progress callback on CPU time
    (tree-sitter >= 0.25: only the callback form of parse() calls it), else by the parser's own timeout."""
    if _PROGRESS != [False]:
        deadline = time.process_time() + seconds
        try:
            tree = parser.parse(lambda at, _point: data[at:at + 65536],
                                progress_callback=lambda *_: time.process_time() > deadline)
            _PROGRESS[:] = [True]
            return tree
        except TypeError:  # tree-sitter 0.23 / 0.24: no progress_callback
            _PROGRESS[:] = [False]
    parser.timeout_micros = max(int(seconds * 1e6), 10_000)
    try:
        return parser.parse(data)
    finally:
        parser.timeout_micros = 0


class per_file:
    """`with per_file():` a fresh budget for the file checked inside it; `keep=True`: unless one is set already
    (the engine's entry points, inside the per-file guard of a check run)."""

    def __init__(self, keep: bool = False):
        self.keep = keep

    def __enter__(self):
        current = _CURRENT.get()
        self.token = _CURRENT.set(current if self.keep and current is not None else Budget())
        return self

    def __exit__(self, *exc):
        _CURRENT.reset(self.token)
        return False
