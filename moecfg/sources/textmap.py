"""Source maps: where each character of a decoded text (a YAML scalar's value, an unquoted shell word, a
`bash -c` script) came from in the file.

A `SourceMap` is an ordered list of segments (dst_lo, dst_hi, src_lo, src_hi, exact) over file character
offsets, the shape of sqlfluff's sliced templated file: inside an exact segment an offset maps one to one;
a non-exact segment (an escape, a line fold, an expanded `$VAR`) maps any offset to its whole source range.
Maps compose by slicing: a shell word's map is built from slices of its script's map, so a word inside a
`bash -c` block scalar of a Kubernetes manifest still points at its own characters in the file.

`yaml_scalar_map` re-scans a scalar's raw text in step with the value PyYAML decoded (as shuck does) and
falls back to one non-exact segment for the whole scalar whenever its own decoding disagrees.
"""
from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right

from moecfg.core.record import record


@record(frozen=True, slots=True)
class Span:
    """A region of the source text (1-based lines and columns), where a diagnostic points."""

    line: int  # 1-based
    column: int
    end_line: int
    end_column: int


@record(frozen=True, slots=True)
class Elsewhere(Span):
    """A value written in another file (a compose `env_file:` line): the diagnostic points at the line of the
    checked file that names that file (the base Span); a fix edits `at` in `file` (checking/engine.py)."""

    file: str = ""  # the other file, named the way the checked file is (its folder joined)
    at: Span | None = None


_BLOCK = 1 << 16  # characters per block of the line index


class LineIndex:
    """Character offset <-> 1-based line/column (columns in code points, like PyYAML's marks). `first_line`: the
    text starts after that many lines of its file (a Markdown code block: positions are the file's, without a
    copy of the block padded with blank lines).

    Memory and time follow what is asked, not the number of lines: the newlines of each 64 KiB block are counted
    up front (str.count, C speed), and a block's line starts are built (as machine integers) only when a position
    inside it is asked. A list of every line start of a 40 MB file of blank lines held 1.9 GB; all of them as an
    array still took 3 s to build."""

    __slots__ = ("text", "first", "_before", "_blocks")

    def __init__(self, text: str, first_line: int = 0):
        self.text, self.first = text, first_line
        before, seen = array("q", [0]), 0  # newlines before each block
        for lo in range(0, len(text), _BLOCK):
            seen += text.count("\n", lo, lo + _BLOCK)
            before.append(seen)
        self._before, self._blocks = before, {}

    def _ends(self, k: int) -> array:
        """The offsets just after each newline of block k."""
        got = self._blocks.get(k)
        if got is None:
            from itertools import accumulate, count
            from operator import add

            lo = k * _BLOCK
            parts = self.text[lo:lo + _BLOCK].split("\n")
            # the j-th newline of the block ends at lo + (lengths of parts 0..j) + (j + 1)
            got = self._blocks[k] = array("q", map(add, accumulate(map(len, parts[:-1])), count(lo + 1)))
        return got

    def _start(self, index: int) -> int:
        """Where the line of 0-based `index` starts."""
        if index <= 0:
            return 0
        k = bisect_left(self._before, index) - 1  # the block holding the index-th newline
        return self._ends(k)[index - self._before[k] - 1]

    def position(self, offset: int) -> tuple[int, int]:
        blocks = len(self._before) - 1
        if blocks == 0 or offset < 0:
            return 1 + self.first, offset + 1
        k = min(offset // _BLOCK, blocks - 1)
        index = self._before[k] + bisect_right(self._ends(k), offset)
        return index + 1 + self.first, offset - self._start(index) + 1

    def offset(self, line: int, column: int) -> int:
        return self._start(min(max(line - self.first, 1), self._before[-1] + 1) - 1) + column - 1

    def span(self, lo: int, hi: int) -> Span:
        return Span(*self.position(lo), *self.position(max(hi, lo)))


class SourceMap:
    """Segments over one decoded text, each (dst_lo, dst_hi, src_lo, src_hi, exact); dst ranges are contiguous."""

    __slots__ = ("segs", "_los", "_inexact")

    def __init__(self):
        self.segs: list[tuple[int, int, int, int, bool]] = []
        self._los: list[int] | None = None
        self._inexact: list[int] | None = None

    @classmethod
    def identity(cls, length: int, base: int = 0) -> SourceMap:
        m = cls()
        m.add(base, base + length, length, True)
        return m

    @property
    def length(self) -> int:
        return self.segs[-1][1] if self.segs else 0

    def add(self, src_lo: int, src_hi: int, length: int, exact: bool) -> None:
        """Append `length` decoded characters that came from file range [src_lo, src_hi)."""
        if length <= 0:
            return
        exact = exact and src_hi - src_lo == length
        d = self.length
        last = self.segs[-1] if self.segs else None
        if exact and last and last[4] and last[3] == src_lo:  # merge adjacent literal runs
            self.segs[-1] = (last[0], d + length, last[2], src_hi, True)
        else:
            self.segs.append((d, d + length, src_lo, src_hi, exact))
        self._los = self._inexact = None

    def extend(self, other: SourceMap) -> None:
        for s in other.segs:
            self.add(s[2], s[3], s[1] - s[0], s[4])

    def _index(self):
        if self._los is None:
            self._los = [s[0] for s in self.segs]
            acc, self._inexact = 0, [0]
            for s in self.segs:
                acc += not s[4]
                self._inexact.append(acc)
        return self._los

    def _seg(self, offset: int) -> int:
        return max(bisect_right(self._index(), offset) - 1, 0)

    def locate(self, lo: int, hi: int) -> tuple[int, int, bool]:
        """File range and exactness of decoded range [lo, hi)."""
        if not self.segs:
            return 0, 0, False
        if len(self.segs) == 1 and self.segs[0][4] and hi > lo:  # the common case: one literal run
            s0 = self.segs[0][2]
            return s0 + lo, s0 + hi, True
        if hi <= lo:  # an empty range: a point (or the whole non-exact segment it sits in)
            s = self.segs[self._seg(lo)]
            p = s[2] + (lo - s[0]) if s[4] else s[2]
            return (p, p, True) if s[4] else (s[2], s[3], False)
        i, j = self._seg(lo), self._seg(hi - 1)
        a, b = self.segs[i], self.segs[j]
        start = a[2] + (lo - a[0]) if a[4] else a[2]
        end = b[2] + (hi - b[0]) if b[4] else b[3]
        exact = self._inexact[j + 1] == self._inexact[i]
        return start, max(end, start), exact

    def slice(self, lo: int, hi: int) -> SourceMap:
        """The map of decoded range [lo, hi), rebased to 0 (composition: a word of a script)."""
        out = SourceMap()
        if hi <= lo or not self.segs:
            return out
        if len(self.segs) == 1 and self.segs[0][4]:
            s0 = self.segs[0][2]
            out.segs.append((0, hi - lo, s0 + lo, s0 + hi, True))
            return out
        for k in range(self._seg(lo), len(self.segs)):
            d0, d1, s0, s1, ex = self.segs[k]
            if d0 >= hi:
                break
            a, b = max(d0, lo), min(d1, hi)
            if ex:
                out.add(s0 + a - d0, s0 + b - d0, b - a, True)
            else:
                out.add(s0, s1, b - a, False)
        return out

    def whole(self, length: int) -> SourceMap:
        """This map's file range as one non-exact segment of `length` characters (a value replaced whole)."""
        lo, hi, _ = self.locate(0, self.length)
        out = SourceMap()
        out.add(lo, hi, length, False)
        return out


class Decoded:
    """A decoded text and its map to the file."""

    __slots__ = ("text", "map")

    def __init__(self, text: str, smap: SourceMap):
        self.text, self.map = text, smap


# --- YAML scalars -------------------------------------------------------------------------------------

_PROPS = re.compile(r"(?:[&!][^\s]*\s+)*")  # anchors and tags before a scalar's text
_BLOCK_HEADER = re.compile(r"[|>]([1-9+-]{0,2})[ \t]*(?:#[^\n]*)?\r?\n?")
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028",
            "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}


def yaml_scalar_map(text: str, lines: LineIndex, span: Span, value: str) -> SourceMap:
    """Map of scalar `value` (as PyYAML decoded it) whose node spans `span` in `text`."""
    lo = lines.offset(span.line, span.column)
    hi = lines.offset(span.end_line, span.end_column)
    m = _PROPS.match(text, lo, hi)
    start = m.end() if m else lo
    try:
        smap = _decode_scalar(text, start, hi, value)
    except (IndexError, ValueError):
        smap = None
    if smap is None:
        smap = SourceMap()
        smap.add(lo, hi, len(value), False)
    return smap


def _decode_scalar(text: str, lo: int, hi: int, value: str) -> SourceMap | None:
    if lo >= hi:
        return SourceMap() if value == "" else None
    first = text[lo]
    if first in "|>":
        for indent in _block_indents(text, lo, hi):
            out, decoded = _block(text, lo, hi, first == ">", indent)
            smap = out if decoded == value else _fix_tail(out, decoded, value)
            if smap is not None:
                return smap
        return None
    elif first in "'\"":
        out, decoded = _flow(text, lo + 1, hi - 1, first)
    else:
        out, decoded = _flow(text, lo, hi, "")
    return out if decoded == value else _fix_tail(out, decoded, value)


def _fix_tail(smap: SourceMap, decoded: str, value: str) -> SourceMap | None:
    """Block chomping: the decoded body differs from the value only by trailing line breaks."""
    if decoded.rstrip("\n") != value.rstrip("\n"):
        return None
    if len(value) <= len(decoded):
        return smap.slice(0, len(value))
    extra = len(value) - len(decoded)
    end = smap.locate(0, smap.length)[1] if smap.segs else 0
    smap.add(end, end, extra, False)
    return smap


def _flow(text: str, lo: int, hi: int, quote: str) -> tuple[SourceMap, str]:
    """Plain, single- or double-quoted scalar body [lo, hi): literal runs exact; escapes and folds not."""
    out, parts, i = SourceMap(), [], lo
    while i < hi:
        c = text[i]
        if c in " \t\r\n":
            j = i
            while j < hi and text[j] in " \t\r\n":
                j += 1
            breaks = text.count("\n", i, j)
            if breaks == 0:
                out.add(i, j, j - i, True)
                parts.append(text[i:j])
            else:  # a line fold: trailing and leading blanks dropped, n breaks -> n-1 newlines or one space
                piece = "\n" * (breaks - 1) or " "
                out.add(i, j, len(piece), False)
                parts.append(piece)
            i = j
        elif quote == "'" and c == "'" and text.startswith("''", i):
            out.add(i, i + 2, 1, False)
            parts.append("'")
            i += 2
        elif quote == '"' and c == "\\":
            i = _escape(text, i, hi, out, parts)
        else:
            j = i + 1
            while j < hi and text[j] not in " \t\r\n'\\":
                j += 1
            out.add(i, j, j - i, True)
            parts.append(text[i:j])
            i = j
    return out, "".join(parts)


def _escape(text: str, i: int, hi: int, out: SourceMap, parts: list) -> int:
    e = text[i + 1]
    if e in "\r\n":  # escaped line break: joins the lines, drops the next line's indentation
        j = i + 1
        while j < hi and text[j] in "\r\n":
            j += 1
            if text[j - 1] == "\n":
                break
        while j < hi and text[j] in " \t":
            j += 1
        out.add(i, j, 0, False)
        return j
    if e in _HEX:
        n = _HEX[e]
        ch = chr(int(text[i + 2:i + 2 + n], 16))
        out.add(i, i + 2 + n, 1, False)
        parts.append(ch)
        return i + 2 + n
    out.add(i, i + 2, 1, False)
    parts.append(_ESCAPES[e])  # KeyError -> caller falls back (PyYAML rejects unknown escapes anyway)
    return i + 2


def _block_indents(text: str, lo: int, hi: int):
    """Candidate content indentations: auto-detected, or with an explicit indicator (`|2`) the indicator
    added to each column where the enclosing collection may start on the header line (PyYAML:
    scanner.scan_block_scalar, indent = max(collection indent + 1, 1) + N - 1); the value comparison picks."""
    header = _BLOCK_HEADER.match(text, lo, hi)
    digits = [c for c in (header.group(1) if header else "") if c.isdigit()]
    lines = _block_lines(text, header.end() if header else hi, hi)
    if not digits:
        yield _block_indent(text, lines)
        return
    n = int(digits[0])
    start = text.rfind("\n", 0, lo) + 1
    bases = {-1} | {i - start for i in range(start, lo) if i == start or text[i - 1] in " -"}
    for base in sorted(bases):
        yield max(base + 1, 1) + n - 1


def _block(text: str, lo: int, hi: int, folded: bool, indent: int) -> tuple[SourceMap, str]:
    """Literal `|` / folded `>` body: each line's content after the indentation is an exact run; a line break
    is exact in `|` and where `>` keeps it, a folded break (-> space, or dropped before blank lines) is not."""
    header = _BLOCK_HEADER.match(text, lo, hi)
    lines = _block_lines(text, header.end() if header else hi, hi)
    kinds = []
    for start, cend, _ in lines:
        line = text[start + indent:cend] if cend - start > indent else ""
        kinds.append(None if not line.strip(" \t") else ("more" if line[0] in " \t" else "text"))
    out, parts = SourceMap(), []
    next_text = _next_nonblank(kinds)
    for k, (start, cend, bend) in enumerate(lines):
        content = min(start + indent, cend)
        if cend > content:
            out.add(content, cend, cend - content, True)
            parts.append(text[content:cend])
        if bend == cend:
            continue
        piece = "\n"
        if folded and kinds[k] == "text" and next_text[k] is not None and kinds[next_text[k]] == "text":
            piece = " " if next_text[k] == k + 1 else ""
        out.add(cend, bend, len(piece), piece == "\n" and bend - cend == 1)
        parts.append(piece)
    return out, "".join(parts)


def _block_lines(text: str, i: int, hi: int) -> list[tuple[int, int, int]]:
    """(start, content end, line break end) of each line in [i, hi)."""
    out = []
    while i < hi:
        nl = text.find("\n", i, hi)
        end = hi if nl < 0 else nl + 1
        cend = nl if nl >= 0 else end
        if cend > i and text[cend - 1] == "\r":
            cend -= 1
        out.append((i, cend, end))
        i = end
    return out


def _next_nonblank(kinds: list) -> list:
    """For each line, the index of the next non-blank line after it (None at the end)."""
    out, nxt = [None] * len(kinds), None
    for k in range(len(kinds) - 1, -1, -1):
        out[k] = nxt
        if kinds[k] is not None:
            nxt = k
    return out


def _block_indent(text: str, lines) -> int:
    """Auto-detected: the indentation of the first non-blank line."""
    for start, cend, _ in lines:
        line = text[start:cend]
        if line.strip(" "):
            return len(line) - len(line.lstrip(" "))
    return 0
