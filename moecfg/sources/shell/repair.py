"""What bash accepts, tree-sitter-bash sometimes does not (`"so"$)`, a function named `unsetenv`, a line
continuation on the last line): the reader repairs what it can before parsing, reads the commands around what it
cannot, and reports a syntax error only when bash itself refuses the script and the broken part holds a launch.

Documentation placeholders (`--host <host_ip>`, `HCCL_IF_IP=<node_ip>`) are values to fill in, not redirects: they
become unknown values (an unset variable) and one MC023 info names them.
"""
from __future__ import annotations

import os
import re
from contextvars import ContextVar

from moecfg.sources import framework_words
from moecfg.sources.textmap import Decoded, SourceMap

LAUNCHER = framework_words.SHELL_LAUNCH  # a launch moecfg recognises, as text
# `<host_ip>` as a word of its own (after a blank, `=`, a quote or `:`), never `<<EOF`, `<(cmd)` or `<in >out`.
_PLACEHOLDER = re.compile(r"(?<=[\s=\"':])<([A-Za-z][\w.:/-]*)>(?=[\s\"';]|$)", re.M)
UNKNOWN_NAME = "_moecfg_placeholder_"
BASH_TIMEOUT = 5.0  # seconds; `bash -n` parses only, a script that takes longer is not judged
BASH_MAX_CHARS = 1 << 20  # a longer script (an installer with MBs of manifests in heredocs: `bash -n` takes 1.4 s
                          # on 2.5 MB) is judged as without bash: only an unterminated quote is reported


def placeholders(script: Decoded) -> tuple[Decoded, list[tuple[str, int]]]:
    """`script` with every placeholder outside single quotes replaced by `${_moecfg_placeholder_}` (unset: an
    unknown value), mapped back to the placeholder's text; and (placeholder, offset) of each."""
    quoted = _single_quoted(script.text)
    found = [m for m in _PLACEHOLDER.finditer(script.text) if not _inside(quoted, m.start())]
    if not found:
        return script, []
    parts, smap, pos = [], SourceMap(), 0
    for m in found:
        parts.append(script.text[pos:m.start()])
        smap.extend(script.map.slice(pos, m.start()))
        value = "${" + UNKNOWN_NAME + "}"
        parts.append(value)
        smap.extend(script.map.slice(m.start(), m.end()).whole(len(value)))
        pos = m.end()
    parts.append(script.text[pos:])
    smap.extend(script.map.slice(pos, len(script.text)))
    return Decoded("".join(parts), smap), [(m.group(), m.start()) for m in found]


# `$` before a character that starts no expansion is literal text to bash (`$PREFILL_NODE0$:5757` keeps `$:`);
# tree-sitter-bash makes it an ERROR outside double quotes and the whole command would be lost. `$[` is bash's old
# arithmetic: not here.
_LITERAL_DOLLAR = re.compile(r"(?<!\\)\$(?=[:%,=/.+^~\]}])")


def literal_dollars(script: Decoded) -> Decoded:
    """`script` with each unquoted literal `$` written `'$'`, which bash and tree-sitter read alike as the one
    character `$` inside the same word (`\\$` would end the word for tree-sitter after an expansion); the three
    characters map back to the original `$`."""
    found = [m.start() for m in _LITERAL_DOLLAR.finditer(script.text)]
    if not found:
        return script
    found = _unquoted(script.text, found)
    if not found:
        return script
    parts, smap, pos = [], SourceMap(), 0
    for o in found:
        parts.append(script.text[pos:o])
        smap.extend(script.map.slice(pos, o))
        parts.append("'$'")
        smap.extend(script.map.slice(o, o + 1).whole(3))
        pos = o + 1
    parts.append(script.text[pos:])
    smap.extend(script.map.slice(pos, len(script.text)))
    return Decoded("".join(parts), smap)


def _unquoted(text: str, offsets: list[int]) -> list[int]:
    """The offsets (sorted) that lie outside quotes and comments, in one pass over the text."""
    out, want, i, n, dq = [], iter(offsets), 0, len(text), False
    nxt = next(want, None)
    while i < n and nxt is not None:
        if i == nxt:
            if not dq:
                out.append(i)
            nxt = next(want, None)
            i += 1
            continue
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            dq = not dq
            i += 1
        elif c == "'" and not dq:
            j = text.find("'", i + 1)
            i = n if j < 0 else j + 1
        elif c == "#" and not dq and (i == 0 or text[i - 1] in " \t\n;"):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            i += 1
        while nxt is not None and nxt < i:  # skipped over inside a quote or comment
            nxt = next(want, None)
    return out


def placeholder_note(found: list):
    """One MC023 info naming the documentation placeholders (`<host_ip>`) a script leaves to fill in, said only
    beside a launch a framework recognises (a verl `torchrun` script's usage line names `<nproc_per_node>`)."""
    from moecfg.core import launch_rules as L
    from moecfg.sources.launch import Problem

    names = list(dict.fromkeys(p for p, _ in found))
    shown = ", ".join(f"`{n}`" for n in names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return Problem(L.VALUE_UNKNOWN.code, f"documentation placeholder{'s' if len(names) > 1 else ''} {shown}: "
                   "values to fill in before running; moecfg reads them as unknown", found[0][1], about_launch=True)


def _single_quoted(text: str) -> list[tuple[int, int]]:
    """[start, end) of each '...' string outside double quotes and comments (a placeholder there is literal)."""
    out, i, dq, n = [], 0, False, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            i += 2
            continue
        if c == '"':
            dq = not dq
        elif c == "'" and not dq:
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            out.append((i, j + 1))
            i = j
        elif c == "#" and not dq and (i == 0 or text[i - 1] in " \t\n;"):
            j = text.find("\n", i)
            i = n if j < 0 else j
        i += 1
    return out


def _inside(ranges: list[tuple[int, int]], offset: int) -> bool:
    return any(a <= offset < b for a, b in ranges)


def final_continuation(text: str) -> str:
    """A `\\` ending the last line continues into nothing: bash drops it; tree-sitter fails the whole command.
    Same length (a blank instead), so the source map still fits."""
    stripped = text.rstrip()
    if stripped.endswith("\\") and not stripped.endswith("\\\\"):
        i = len(stripped) - 1
        return text[:i] + " " + text[i + 1:]
    return text


def blank_rows(text: str, rows: set[int]) -> str:
    """`text` with the given 0-based rows replaced by blanks of the same length (offsets keep their place)."""
    lines = text.split("\n")
    for r in rows:
        if r < len(lines):
            lines[r] = re.sub(r"[^\n]", " ", lines[r])
    return "\n".join(lines)


# `bash -n` may be asked about a script tree-sitter cannot parse; preflight turns that off (it starts nothing
# but the device tools and, when the launch passes, the command itself).
ASK_BASH: ContextVar[bool] = ContextVar("moecfg_ask_bash", default=True)


class BashVerdict:
    """`bash -n` on one script, run at most once and only when asked (a script tree-sitter could not parse).
    accepts: True / False, or None when bash is not installed or does not answer in time."""

    def __init__(self, text: str):
        self.text, self._accepts, self.line = text, None, None
        self._asked = False

    @property
    def accepts(self) -> bool | None:
        if not self._asked:
            self._asked = True
            self._accepts, self.line = _bash_n(self.text)
        return self._accepts


def _bash_n(text: str) -> tuple[bool | None, int | None]:
    if not ASK_BASH.get() or len(text) > BASH_MAX_CHARS:
        return None, None
    import shutil  # only when a script needs repairing (shutil imports bz2, lzma, zlib: start-up)

    bash = shutil.which("bash")
    if bash is None:
        return None, None
    import subprocess

    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "")}
    try:
        done = subprocess.run([bash, "--norc", "--noprofile", "-n"], input=text.encode("utf-8", "surrogatepass"),
                              capture_output=True, timeout=BASH_TIMEOUT, env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return None, None
    if done.returncode == 0:
        return True, None
    m = re.search(rb"line (\d+):", done.stderr)
    return False, int(m.group(1)) if m else None
