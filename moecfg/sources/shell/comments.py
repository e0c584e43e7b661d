"""Comment-only lines blanked before the parse: tree-sitter-bash keeps ~240 bytes per comment node while parsing
(8 MB of `#` lines: 2 GB), blank lines cost it nothing. Every character becomes a blank and newlines stay, so
offsets, source maps and positions are unchanged. Suppression directives (`# moecfg: disable=...`) are read from
the file's own text (checking/policy.py), never from the parsed one.

A `#` line is blanked only where bash reads it as a comment: at the start of a line at the top level of the
script, outside any quote, `$( )`, backquote or `${ }`, not inside a heredoc body and not after a `\\`
continuation. One pass: a regex jumps from one character that changes the state to the next. When unsure (an
unterminated quote, `<<` in arithmetic read as a heredoc), the rest stays as written: never blanking is safe.
"""
from __future__ import annotations

import re

# the next line that is neither blank nor a comment: it ends a run of them (a search, not a repeated group, whose
# backtracking stack would grow by a frame per line: 1.5 GB for 4 million `#` lines)
_RUN_END = re.compile(r"^[ \t\r]*[^# \t\r\n]", re.M)
# the characters that change the state, per context: top level and `( )`/`$( )`, backquotes, "...", ${ }
_COMMAND = re.compile(r"[\\'\"`$#()<\n]")
_NEXT = {"": _COMMAND, "(": _COMMAND, "`": _COMMAND, "a": re.compile(r"[\\'\"`$()\n]"),
         '"': re.compile(r"[\\\"`$]"), "{": re.compile(r"[\\'\"`$}\n]")}
_WORD_START = set(" \t\n;&|()<>")  # a `#` after one of these starts a comment (bash: at the start of a word)
# `<<` (not `<<<`), optional `-`, blanks, then the delimiter word with its quotes
_HEREDOC = re.compile(r"<<(-?)[ \t]*((?:[^\s;&|<>()'\"\\]|\\.|'[^']*'|\"[^\"]*\")+)")


def blank_comments(text: str) -> str:
    """`text` with every comment-only line at the top level of the script blanked (same length)."""
    if "#" not in text:
        return text
    runs = _comment_runs(text)
    if not runs:
        return text
    parts, pos = [], 0
    for a, b in runs:
        parts.append(text[pos:a])
        parts.append(_blanks(text[a:b]))
        pos = b
    parts.append(text[pos:])
    return "".join(parts)


def _blanks(run: str) -> str:
    """Each character of `run` but newlines as a blank. str.translate builds the copy as it goes (re.sub would
    keep a piece per line: 1.5 GB for 4 million `#` lines)."""
    return run.translate({ord(c): " " for c in set(run) if c != "\n"})


def _comment_runs(text: str) -> list[tuple[int, int]]:
    """[start, end) of each run of blank and comment-only lines at the top level that holds a `#`."""
    runs: list[tuple[int, int]] = []
    stack: list[str] = []  # open contexts: "(" `( )`/`$( )`, "a" `(( ))`/`$(( ))`, "`", '"', "{" `${ }`
    pending: list[tuple[str, bool]] = []  # heredocs opened on this line: (delimiter, tabs stripped)
    n, i = len(text), _line_start(text, 0, runs)
    while i < n:
        ctx = stack[-1] if stack else ""
        m = _NEXT[ctx].search(text, i)
        if m is None:
            break
        i, c = m.start(), m.group()
        if c == "\\":
            i += 2
        elif c == "\n":
            i += 1
            if pending:
                i = _skip_bodies(text, i, pending)
                pending = []
            if not stack:
                i = _line_start(text, i, runs)
        elif ctx == '"':
            i = _in_double_quotes(text, i, c, stack)
        elif c == "'" and ctx == "{" and stack[-2:-1] == ['"']:
            i += 1  # "${a:-'x'}": the quotes are text
        elif c == "'":
            i = _single_quote(text, i)
        elif c == '"':
            stack.append('"')
            i += 1
        elif c == "#":
            i = _comment(text, i, ctx)
        elif c == "<":
            i = _heredoc(text, i, pending)
        else:
            i = _nesting(text, i, c, ctx, stack)
    return runs


def _line_start(text: str, i: int, runs: list) -> int:
    """At a line start at the top level: the blank and comment-only lines from here are one run."""
    m = _RUN_END.search(text, i)
    end = len(text) if m is None else m.start()
    if end > i and "#" in text[i:end]:
        runs.append((i, end))
    return end


def _in_double_quotes(text: str, i: int, c: str, stack: list) -> int:
    if c == '"':
        stack.pop()
        return i + 1
    return _nesting(text, i, c, '"', stack)


def _single_quote(text: str, i: int) -> int:
    if i > 0 and text[i - 1] == "$":
        return _ansi_end(text, i + 1)
    j = text.find("'", i + 1)
    return len(text) if j < 0 else j + 1


def _ansi_end(text: str, i: int) -> int:
    """Past the `'` closing a $'...' string, whose backslashes escape (`$'it\\'s'`)."""
    while True:
        j = text.find("'", i)
        if j < 0:
            return len(text)
        k = j
        while k > i and text[k - 1] == "\\":
            k -= 1
        if (j - k) % 2 == 0:
            return j + 1
        i = j + 1


def _comment(text: str, i: int, ctx: str) -> int:
    if ctx == "{" or (i > 0 and text[i - 1] not in _WORD_START):
        return i + 1  # ${#a}, ${a#x}, a#b: text
    j = text.find("\n", i)
    return len(text) if j < 0 else j  # the newline is read next (heredocs, line start)


def _heredoc(text: str, i: int, pending: list) -> int:
    if text.startswith("<<<", i):
        return i + 3
    m = _HEREDOC.match(text, i)
    if m is None:
        return i + 1
    word = re.sub(r"\\(.)|['\"]", lambda g: g.group(1) or "", m.group(2))
    pending.append((word, m.group(1) == "-"))
    return m.end()


def _skip_bodies(text: str, i: int, pending: list) -> int:
    """Past the bodies of the heredocs opened on the line just ended (bash: a line equal to the delimiter)."""
    for word, tabs in pending:
        end = re.compile(("^\t*" if tabs else "^") + re.escape(word) + "$", re.M).search(text, i)
        if end is None:
            return len(text)  # an unterminated body runs to the end
        i = end.end() + 1
    return i


def _nesting(text: str, i: int, c: str, ctx: str, stack: list) -> int:
    """`$(`, `${`, `(`, `)`, backquotes and `}` open and close contexts."""
    if c == "$":
        nxt = text[i + 1:i + 2]
        if nxt == "(":
            return _open_paren(text, i + 1, stack)
        if nxt == "{":
            stack.append("{")
            return i + 2
        return i + 1
    if c == "`":
        if ctx == "`":
            stack.pop()
        else:
            stack.append("`")
        return i + 1
    if c == "(":
        return _open_paren(text, i, stack)
    if c == ")" and ctx == "a" and text.startswith("))", i):
        stack.pop()
        return i + 2
    if c in ")}" and stack and stack[-1] == ("(" if c == ")" else "{"):
        stack.pop()
    return i + 1


def _open_paren(text: str, i: int, stack: list) -> int:
    """`(` at `i`: `((` opens arithmetic (its `<<` is a shift, not a heredoc), else a subshell or `$( )`."""
    if text.startswith("((", i):
        stack.append("a")
        return i + 2
    stack.append("(")
    return i + 1
