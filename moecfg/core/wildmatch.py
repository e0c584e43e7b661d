"""gitignore patterns matched in time linear in the path (issue 33): `.gitignore` files and `per-path-ignores`.

pathspec translates each pattern to a backtracking regex: `*a*a*a*a*a*a*a*az` against a 60-character folder name
took minutes, and `**/` repeated 69 s. Here a pattern is a list of tokens run as a set of states over the path
(Thompson's construction): each character of the path moves every live state once, so a match costs at most
len(path) x len(pattern) steps, whatever the pattern. A `.gitignore` of 150,000 names is not matched as paths x
patterns either: plain names and `*.ext` patterns are looked up in dicts, only the others are run.

Semantics (gitignore(5), git's wildmatch with WM_PATHNAME): `*`, `?` and `[...]` never match `/`; a leading
`**/`, a middle `/**/` match zero or more folders; a trailing `/**` everything inside; other `**` are `*`; a
pattern with a `/` before its last character is anchored to its folder, else it matches at any depth; a trailing
`/` matches folders only; `!` negates (in `.gitignore` files); the last matching pattern decides; a file inside
an ignored folder stays ignored.
"""
from __future__ import annotations

_LIT, _ONE, _CLASS, _STAR, _DIRS, _ALL = range(6)
_POSIX = {"alnum": str.isalnum, "alpha": str.isalpha, "digit": str.isdigit, "lower": str.islower,
          "upper": str.isupper, "space": str.isspace, "xdigit": lambda c: c in "0123456789abcdefABCDEF",
          "punct": lambda c: c.isprintable() and not c.isalnum() and not c.isspace(), "blank": lambda c: c in " \t",
          "print": str.isprintable, "graph": lambda c: c.isprintable() and c != " ",
          "cntrl": lambda c: ord(c) < 32 or ord(c) == 127}
MAX_PATTERN = 4096  # characters of one pattern (git's own limit on a path is PATH_MAX)


class PatternError(ValueError):
    """A pattern git would never match (an unclosed `[`, a range `z-a`)."""


class Glob:
    """One gitignore pattern. `match(path)`: does it match this '/'-separated path relative to its folder
    (without the trailing `/`; `is_dir` says whether the path is a folder)."""

    __slots__ = ("text", "negated", "dir_only", "tokens", "literal", "suffix")

    def __init__(self, text: str, negation: bool = True):
        self.text = text
        p = _strip_trailing_blanks(text)
        self.negated = negation and p.startswith("!")
        if self.negated:
            p = p[1:]
        elif p.startswith("\\!") or p.startswith("\\#"):
            p = p[1:]
        if len(p) > MAX_PATTERN:
            raise PatternError(f"longer than {MAX_PATTERN} characters")
        self.dir_only = p.endswith("/") and len(p) > 1
        p = p[:-1] if self.dir_only else p  # one slash (git): `x//` stays anchored and names nothing
        anchored = "/" in p
        p = p[1:] if p.startswith("/") else p
        if not p:
            raise PatternError("it names nothing")
        self.suffix = None
        if not anchored and not any(c in p for c in "*?[\\"):  # a plain name at any depth: no tokens (a
            self.tokens, self.literal = None, p  # .gitignore of 150,000 names held ~400 MB of token lists)
            return
        tokens = _tokens(p)
        if not anchored and tokens[:1] != [(_DIRS, None)]:
            tokens.insert(0, (_DIRS, None))  # `name` at any depth: `**/name`
        self.tokens = tokens
        # fast paths: a plain name at any depth, or `*.ext` at any depth
        body = tokens[1:] if tokens[:1] == [(_DIRS, None)] else None
        self.literal = "".join(v for _, v in body) if body and all(k == _LIT for k, _ in body) else None
        self.suffix = "".join(v for _, v in body[1:]) if body and body[0][0] == _STAR and len(body) > 1 and \
            all(k == _LIT for k, _ in body[1:]) and "/" not in "".join(v for _, v in body[1:]) else None

    def match(self, path: str, is_dir: bool = False) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.tokens is None:
            return path.rsplit("/", 1)[-1] == self.literal
        return _run(self.tokens, path)


def _strip_trailing_blanks(p: str) -> str:
    """Trailing spaces are dropped unless escaped with a backslash (gitignore(5))."""
    stripped = p.rstrip(" \t\r")
    if stripped != p and stripped.endswith("\\") and not stripped.endswith("\\\\"):
        return stripped[:-1] + p[len(stripped)]
    return stripped


def _tokens(p: str) -> list:
    out, i, n = [], 0, len(p)
    while i < n:
        c = p[i]
        if c == "*":
            j = i
            while j < n and p[j] == "*":
                j += 1
            at_start, at_end = i == 0 or p[i - 1] == "/", j == n or p[j] == "/"
            if j - i >= 2 and at_start and at_end:
                if j == n:
                    out.append((_ALL, None))  # `dir/**` (or `**` alone): everything inside
                else:
                    out.append((_DIRS, None))  # `**/`: zero or more folders
                    j += 1
            else:
                out.append((_STAR, None))
            i = j
        elif c == "?":
            out.append((_ONE, None))
            i += 1
        elif c == "[":
            test, i = _char_class(p, i)
            out.append((_CLASS, test))
        elif c == "\\" and i + 1 < n:
            out.append((_LIT, p[i + 1]))
            i += 2
        else:
            out.append((_LIT, c))
            i += 1
    return out


def _char_class(p: str, i: int):
    """(test, index after `]`) of the class at p[i] == '['; PatternError if it never closes."""
    j, n = i + 1, len(p)
    negate = j < n and p[j] in "!^"
    j += negate
    singles, ranges, named, first = set(), [], [], True
    while j < n and (p[j] != "]" or first):
        first = False
        if p.startswith("[:", j):
            end = p.find(":]", j + 2)
            if end < 0 or p[j + 2:end] not in _POSIX:
                raise PatternError(f"unknown character class at {p[j:j + 12]!r}")
            named.append(_POSIX[p[j + 2:end]])
            j = end + 2
            continue
        c = p[j + 1] if p[j] == "\\" and j + 1 < n else p[j]
        j += 2 if p[j] == "\\" and j + 1 < n else 1
        if j + 1 < n and p[j] == "-" and p[j + 1] != "]":
            hi = p[j + 2] if p[j + 1] == "\\" and j + 2 < n else p[j + 1]
            j += 3 if p[j + 1] == "\\" and j + 2 < n else 2
            if hi < c:
                raise PatternError(f"range {c}-{hi} is reversed")
            ranges.append((c, hi))
        else:
            singles.add(c)
    if j >= n:
        raise PatternError("`[` never closed")

    def test(ch: str) -> bool:
        got = ch in singles or any(lo <= ch <= hi for lo, hi in ranges) or any(f(ch) for f in named)
        return got != negate

    return test, j + 1


def _run(tokens: list, path: str) -> bool:
    """Thompson simulation: a state is 2*i (before token i) or 2*i+1 (inside a folder of a `**/` token i)."""
    end = 2 * len(tokens)
    states = _closure(tokens, {0})
    for ch in path:
        if not states:
            return False
        nxt: set = set()
        for s in states:
            i, inside = s >> 1, s & 1
            if inside:
                nxt.add(2 * i if ch == "/" else s)
                continue
            if s == end:
                continue
            kind, value = tokens[i]
            if kind == _LIT:
                if ch == value:
                    nxt.add(2 * (i + 1))
            elif kind in (_ONE, _CLASS):
                if ch != "/" and (kind == _ONE or value(ch)):
                    nxt.add(2 * (i + 1))
            elif kind == _STAR:
                if ch != "/":
                    nxt.add(s)
            elif kind == _ALL:
                nxt.add(s)
            elif kind == _DIRS and ch != "/":
                nxt.add(s + 1)
        states = _closure(tokens, nxt)
    return end in states


def _closure(tokens: list, states: set) -> set:
    """The states reachable without reading a character (`*`, `**` and `**/` may match nothing)."""
    todo, out = list(states), set(states)
    while todo:
        s = todo.pop()
        if s & 1 or s >> 1 >= len(tokens):
            continue
        if tokens[s >> 1][0] in (_STAR, _ALL, _DIRS):
            nxt = 2 * ((s >> 1) + 1)
            if nxt not in out:
                out.add(nxt)
                todo.append(nxt)
    return out


class IgnoreFile:
    """The patterns of one `.gitignore` file: `decide(rel_path, is_dir)` -> True (ignored), False (re-included
    by a `!` pattern) or None (no pattern matches). Plain names and `*.ext` patterns are looked up, not run."""

    __slots__ = ("by_name", "by_suffix", "suffix_lengths", "others")

    def __init__(self, lines):
        self.by_name: dict = {}  # name -> [(index, Glob)] (a name at any depth)
        self.by_suffix: dict = {}  # ".ext" -> [(index, Glob)]
        self.others: list = []  # (index, Glob), in file order
        for index, line in enumerate(lines):
            if not line.strip() or line.startswith("#"):
                continue
            try:
                glob = Glob(line)
            except PatternError:  # git never matches such a pattern
                continue
            if glob.literal is not None and "/" not in glob.literal:
                self.by_name.setdefault(glob.literal, []).append((index, glob))
            elif glob.suffix is not None:
                self.by_suffix.setdefault(glob.suffix, []).append((index, glob))
            else:
                self.others.append((index, glob))
        self.suffix_lengths = sorted({len(s) for s in self.by_suffix})

    def __bool__(self) -> bool:
        return bool(self.by_name or self.by_suffix or self.others)

    def decide(self, rel: str, is_dir: bool) -> bool | None:
        """The last pattern matching `rel` or, first, any of its folders (a file in an ignored folder stays so)."""
        parts = rel.split("/")
        for depth in range(1, len(parts) + 1):
            last_dir = depth < len(parts)
            got = self._last("/".join(parts[:depth]), parts[depth - 1], is_dir or last_dir)
            if got is not None and got.negated is False and last_dir:
                return True
            if depth == len(parts):
                return None if got is None else not got.negated
        return None

    def decide_self(self, rel: str, is_dir: bool) -> bool | None:
        """The last pattern matching `rel` itself, not its folders: for a walk that decided each folder as it entered
        it (an inner .gitignore's `!slurm*` re-includes a folder an outer `slurm*` ignores; git then reads the files
        in it against every pattern by their own path: NVIDIA/Megatron-LM@d98e8a6 .gitignore:8 with
        examples/post_training/modelopt/.gitignore:1)."""
        got = self._last(rel, rel.rsplit("/", 1)[-1], is_dir)
        return None if got is None else not got.negated

    def _last(self, path: str, name: str, is_dir: bool):
        best = (-1, None)
        for index, glob in self.by_name.get(name, ()):
            if index > best[0] and glob.match(path, is_dir):
                best = (index, glob)
        for n in self.suffix_lengths:
            if n <= len(name):
                for index, glob in self.by_suffix.get(name[-n:], ()):
                    if index > best[0] and glob.match(path, is_dir):
                        best = (index, glob)
        for index, glob in reversed(self.others):
            if index <= best[0]:
                break
            if glob.match(path, is_dir):
                best = (index, glob)
                break
        return best[1]
