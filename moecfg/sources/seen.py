"""Launches seen in raw text: the recognition table (framework_words.LAUNCHERS) matched line by line, no parse.

This is how a run knows what it did not read: a line that looks like a launch of some engine or trainer and is
not covered by a launch a framework recognised is "seen but not read" (the check orchestration decides that; this
module only finds the lines). A `.py` file is sniffed here and nowhere else: read, one regex, never parsed or run.
"""
from __future__ import annotations

import functools
import re

from moecfg.sources import framework_words as W

# any indentation: the Markdown reader (markdown-it-py) keeps a fence of a nested list item indented more than 3
# spaces (jd-opensource/xllm@87e8d6ed docs/en/features/disagg_pd.md:41, read with --markdown, silent without)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.M)
_PY_SKIPPED = re.compile(r"^[ \t]*(?:#|from[ \t]|import[ \t])")  # a comment or an import names, it does not launch
_SHELL_COMMENT = re.compile(r"^[ \t]*#")


def surface_of(name: str, text: str) -> str | None:
    """Which surface of the table a file is: shell, yaml, markdown, py (None: none of them)."""
    low = name.lower()
    if low.endswith((".yaml", ".yml")):
        return W.YAML
    if low.endswith((".md", ".mdx", ".markdown", ".rst")):
        return W.MARKDOWN
    if low.endswith(".py"):
        return W.PY
    if low.endswith((".sh", ".bash")) or text.startswith("#!") and "sh" in text[:80].split("\n", 1)[0]:
        return W.SHELL
    return None


def _candidates(text: str, surface: str) -> tuple:
    """The launchers of this surface one of whose words the text holds (a few `in` tests per file)."""
    return tuple(i for i, launcher in enumerate(W.LAUNCHERS)
                 if surface in launcher.surfaces and any(w in text for w in launcher.words))


@functools.cache
def _compiled(index: int) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, re.M) for p in W.LAUNCHERS[index].patterns)


class Seen:
    """A command that looks like a launch of `launcher`: its first line, and the lines a pattern matched (a launch
    a framework read covers one of these)."""

    __slots__ = ("line", "launcher", "matched")

    def __init__(self, line: int, launcher: W.Launcher, matched: tuple = ()):
        self.line, self.launcher, self.matched = line, launcher, matched or (line,)

    def __repr__(self):
        return f"Seen({self.line}, {self.launcher.name!r})"


def seen(text: str, surface: str | None) -> list[Seen]:
    """Every launch of `text`, one per command (lines joined by a trailing `\\` are one command, reported at its
    first line; the first launcher of the table matching any of its lines names it), in line order. Only the lines
    holding one of the candidate launchers' words are searched with their patterns."""
    if surface is None:
        return []
    candidates = _candidates(text, surface)
    if not candidates:
        return []
    fences = _Blocks(_fenced(text)) if surface == W.MARKDOWN else None
    required: dict[int, bool] = {}
    found: dict[int, int] = {}  # command start offset -> table index of its launcher
    matched: dict[int, list[int]] = {}  # command start offset -> offsets of the lines a pattern matched
    searched, last = 0, None  # last: (line start, its command's start, lines joined) of the last line kept
    for start in _lines_with(text, candidates):
        end = text.find("\n", start)
        line = text[start:end if end >= 0 else len(text)]
        if len(line) > MAX_LINE:  # minified data, not a command someone wrote: the patterns never see it
            continue
        searched += len(line)
        if searched > MAX_SEARCHED:
            break
        index = _first_match(line, candidates, text, required)
        if index is None or not _counts(surface, line, fences, start, W.LAUNCHERS[index]):
            continue
        last = _joined(text, start, last)
        command = last[1]
        found[command] = min(index, found.get(command, index))
        matched.setdefault(command, []).append(start)
    out: list[Seen] = []
    line_no, counted_to = 1, 0
    for command in sorted(found):
        line_no += text.count("\n", counted_to, command)
        counted_to = command
        lines = tuple(line_no + text.count("\n", command, at) for at in matched[command])
        out.append(Seen(line_no, W.LAUNCHERS[found[command]], lines))
    return out


MAX_LINE = 4096  # characters: the longest line the patterns are tried on (bounds their cost on any file)
# characters of candidate lines the patterns search in one file: each costs at most ~2 us on hostile text (a line of
# `"python ` × 500: every quote may start a command), so one file's sniffing stays under ~2 s; launches past it
# are not listed (real files hold far less: 27 kB at most in the measurement corpus, ms-swift's parameter docs)
MAX_SEARCHED = 1_000_000
_MAX_JOINED = 400  # lines: a longer run of continuations is not one command worth walking back through


def _joined(text: str, start: int, last: tuple | None) -> tuple[int, int, int]:
    """(start, its command's start, lines joined): from the last line kept when it is the line just above and
    continued (100,000 lines ending in `\\` cost one step each, not _MAX_JOINED each: 40 s before)."""
    if last is not None and start > 0 and text.rfind("\n", 0, start - 1) + 1 == last[0] \
            and text[last[0]:start - 1].rstrip().endswith("\\"):
        command, joined = last[1], last[2] + 1
        if joined > _MAX_JOINED:  # as the walk back: at most _MAX_JOINED lines up
            command, joined = text.find("\n", command) + 1, joined - 1
        return start, command, joined
    command = _command_start(text, start)
    return start, command, text.count("\n", command, start)


def _command_start(text: str, start: int) -> int:
    """The offset of the first line of the command the line at `start` belongs to (continuations: `\\` at the end)."""
    for _ in range(_MAX_JOINED):
        if start == 0:
            break
        previous = text.rfind("\n", 0, start - 1) + 1
        if not text[previous:start - 1].rstrip().endswith("\\"):
            break
        start = previous
    return start


def _first_match(line: str, candidates: tuple, text: str, required: dict) -> int | None:
    """The table index of the first launcher matching this line."""
    for i in candidates:
        launcher = W.LAUNCHERS[i]
        if not any(w in line for w in launcher.words) or not any(p.search(line) for p in _compiled(i)):
            continue
        if launcher.requires and not required.setdefault(i, bool(re.search(launcher.requires, text))):
            continue
        return i
    return None


def _lines_with(text: str, candidates: tuple) -> list[int]:
    """The start offsets of the lines holding a word of these launchers, sorted."""
    starts = set()
    for word in {w for i in candidates for w in W.LAUNCHERS[i].words}:
        at = text.find(word)
        while at >= 0:  # one hit a line, then on from the next line: each character is scanned once a word (a
            starts.add(text.rfind("\n", 0, at) + 1)  # 44 MB line of `vllm serve` ran for minutes: rfind per hit)
            end = text.find("\n", at)
            at = text.find(word, end) if end >= 0 else -1
    return sorted(starts)


# `=` only inside a word (`--tp=8`, `NAME=x`): a Python assignment (`args = task.split('swift sft')[1]`,
# ms-swift@3602360a5 swift/ui/llm_train/runtime.py:551) or comparison is code, not an argument
_PY_ARGUMENTS = re.compile(r"--|(?:^|[\s'\"])-m\b|\w=(?!=)|\.py\b")


def _counts(surface: str, line: str, fences, offset: int, launcher) -> bool:
    if surface == W.SHELL or surface == W.YAML:
        return not _SHELL_COMMENT.match(line)
    if surface == W.PY:  # an import or a comment names a module, it does not launch it; a launch a Python file
        # builds has arguments (`elif 'swift rlhf' in task:` compares a name, ms-swift@3602360a5 swift/ui/llm_train/
        # runtime.py:554), unless the entry is a Python call itself (slime's execute_train)
        return not _PY_SKIPPED.match(line) and (launcher.surfaces == {W.PY} or bool(_PY_ARGUMENTS.search(line)))
    if surface == W.MARKDOWN:  # a code block's comment or Python import is no launch either (Megatron-Bridge@067f987df
        # docs/training/mixed-precision.md:125 `from megatron.bridge.recipes.llama import ...`)
        return not _PY_SKIPPED.match(line) and fences.holds(offset)
    return True


class _Blocks:
    """Code block bodies (offsets, possibly overlapping: reStructuredText and Markdown): is an offset in one? A
    binary search (a scan of every block for every line cost 5.8 s for 20,000 blocks)."""

    __slots__ = ("starts", "reach")

    def __init__(self, blocks: list[tuple[int, int]]):
        blocks = sorted(blocks)
        self.starts = [a for a, _ in blocks]
        self.reach, furthest = [], 0  # the furthest end of the blocks starting at or before each one
        for _, b in blocks:
            furthest = max(furthest, b)
            self.reach.append(furthest)

    def holds(self, offset: int) -> bool:
        import bisect

        i = bisect.bisect_right(self.starts, offset) - 1
        return i >= 0 and offset < self.reach[i]


# `(?![ \t])`: the indent is all the line's leading blanks (else `([ \t]*)` and `.*` split a line of blanks in
# every way: quadratic)
_RST_BLOCK = re.compile(r"^([ \t]*)(?![ \t])(?:\.\.[ \t]+(?:code-block|code|sourcecode)::.*|.*::)[ \t]*$", re.M)


def _rst_blocks(text: str) -> list[tuple[int, int]]:
    """Offsets of reStructuredText literal blocks (`::`, `.. code-block::`): the lines indented below them."""
    out, covered = [], 0
    for m in _RST_BLOCK.finditer(text):
        if m.start() < covered:  # inside the block above: its lines are in that block already (a staircase of
            continue  # 4,000 nested `::` lines walked 8 million lines: 14 s)
        indent, at, end = len(m.group(1).expandtabs()), m.end() + 1, m.end() + 1
        while at < len(text):
            nl = text.find("\n", at)
            nl = len(text) if nl < 0 else nl
            line = text[at:nl]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            at = end = nl + 1
        if end > m.end() + 1:
            out.append((m.end() + 1, end))
            covered = end
    return out


def _fenced(text: str) -> list[tuple[int, int]]:
    """Offsets of the bodies of code blocks (Markdown ``` / ~~~ fences, reStructuredText literal blocks): prose
    outside them is never a launch."""
    if "::" in text:
        rst = _rst_blocks(text)
        if rst:
            return rst + _fenced_markdown(text)
    return _fenced_markdown(text)


def _fenced_markdown(text: str) -> list[tuple[int, int]]:
    out, opened = [], None
    for m in _FENCE.finditer(text):
        if opened is None:
            opened = (text.find("\n", m.end()) + 1 or len(text), m.group(1)[0])
        elif m.group(1)[0] == opened[1]:
            out.append((opened[0], m.start()))
            opened = None
    if opened is not None:
        out.append((opened[0], len(text)))
    return out

