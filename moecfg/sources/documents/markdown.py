"""Launch commands in documentation: fenced code blocks of Markdown (`*.md`, `*.mdx`) and reStructuredText
code-block directives (`*.rst`), read as the shell scripts and YAML files they show.

What is read (precision first: prose is never read, a block that holds no launch never yields a finding):
- ```` ```bash ````, `sh`, `shell`, `zsh`, `console` / `shell-session` (only the lines after a `$ ` prompt and
  their `\\` continuations; the rest is output), MyST ```` ```{code-block} bash ````; rST `.. code-block:: bash`.
- ```` ```yaml ```` blocks holding a launch (a Kubernetes object, a compose file, a recipe): the YAML readers.
  A moecfg document shown in the docs is an example, not a deployment: not read here.
- Placeholders users replace (`<node_ip>`, `<your-model-path>`) are unknown values, like an unset `$VAR`.

Which blocks read as one script: the shell blocks of one section, in order (the `export` lines of one block are
in effect for the launch in the next, as when a reader runs a tutorial step by step in one terminal). A heading
starts a new section, and so does a tab or other `:::` / ```` ```{directive} ```` container (vllm-ascend's "Node 0"
/ "Node 1" tabs are different machines).

Findings: a block whose text holds no launch word (`vllm`, `sglang`, `dynamo.`, `torchrun`, `msrun`, `pretrain_`)
is read only for its variables: its problems are dropped. A shell syntax error is never reported in documentation
(blocks mix commands with their output, Python and `...` elisions); the commands around it are still read. Every
position is the Markdown file's own line and column.
"""
from __future__ import annotations

import bisect
import re

from moecfg.core import launch_rules as L
from moecfg.core.record import record
from moecfg.sources import framework_words
from moecfg.sources.documents import fences
from moecfg.sources.launch import LaunchFile
from moecfg.sources.textmap import Decoded, SourceMap

SUFFIXES = (".md", ".mdx", ".markdown", ".rst")
SHELL_LANGS = frozenset({"bash", "sh", "shell", "zsh", "ksh", "console", "shell-session", "shellsession",
                         "sh-session", "terminal"})
_PROMPTED = frozenset({"console", "shell-session", "shellsession", "sh-session", "terminal"})
YAML_LANGS = frozenset({"yaml", "yml"})
TOML_LANGS = frozenset({"toml"})  # prime-rl config fragments (recipes/prime_rl.py)
MAX_TOML_BLOCKS = 200
MAX_BLOCKS = 2000  # per file: a document with more code blocks than this is not a tutorial (bounds hostile input)
MAX_YAML_BLOCKS = 200  # each YAML block is parsed with its own line offset
_MAX_DEPTH = 8  # nested directive fences / indented bodies parsed again (bounds hostile input)
_CONTAINER = re.compile(r"[ \t]*:{3,}")  # MyST colon fences (tab-set, tab-item, note): not CommonMark
_PROMPT = re.compile(r"^([ \t]*(?:\([\w.-]+\)[ \t]*)?[\w.@:~/-]*\$[ \t])")  # `$ `, `(venv) $ `, `user@host:~$ `
_CODE_DIRECTIVES = ("code-block", "code", "sourcecode", "code-cell")
_LAUNCH_WORD = framework_words.MARKDOWN_LAUNCH
# `<node_ip>`, `<1_OR_2>`, an elided value `'{...}'` or a bare `...`: what the reader replaces
_PLACEHOLDER = re.compile(r"<[A-Za-z0-9_][A-Za-z0-9_.:/ -]{0,80}>|'[^'\n]{0,80}\.\.\.[^'\n]{0,80}'"
                          r"|\"[^\"\n]{0,80}\.\.\.[^\"\n]{0,80}\"|(?<!\S)\.\.\.(?!\S)")
_RST_DIRECTIVE = re.compile(r"^([ \t]*)\.\.[ \t]+(?:code-block|code|sourcecode)::[ \t]*(\S*)[ \t]*$")
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>_:.])\1{2,}[ \t]*$")


@record(slots=True)
class Block:
    """One code block: its language, the section it belongs to, and its lines as file ranges [lo, hi)."""

    lang: str
    section: int
    lines: list[tuple[int, int]]  # content lines (without their newline), indentation included
    indent: int  # the fence's indentation, stripped from each content line


def is_markdown(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


def _line_ranges(text: str):
    """(lo, hi) of each line, without its newline (nor a CR before it)."""
    lo, n = 0, len(text)
    while lo <= n:
        nl = text.find("\n", lo)
        hi = n if nl < 0 else nl
        yield lo, hi - 1 if hi > lo and text[hi - 1] == "\r" else hi
        if nl < 0:
            return
        lo = nl + 1


def blocks(text: str, rst: bool = False) -> list[Block]:
    return _rst_blocks(text) if rst else _md_blocks(text)


def _lang(info: str) -> str:
    """`bash title="x"` -> bash; MyST `{code-block} bash` -> bash; Pandoc `{.bash}` -> bash."""
    if info.startswith("{"):
        inner, _, rest = info[1:].partition("}")
        if inner.startswith("."):
            return inner[1:].split()[0].lower() if inner[1:].split() else ""
        return rest.split()[0].lower() if inner.strip() in _CODE_DIRECTIVES and rest.split() else ""
    return info.split()[0].lower() if info.split() else ""


def _md_blocks(text: str) -> list[Block]:
    """The code blocks of a Markdown text, from markdown-it's block tokens (sources/documents/fences.py); their
    line maps give each block's file lines. What CommonMark reads as a container of more Markdown is parsed again:
    a MyST directive fence (```` ````{tab-item} ````) and an indented block (MkDocs `=== "tab"` / `!!! note`
    bodies hold fences indented by 4)."""
    ranges = list(_line_ranges(text))
    out: list[Block] = []
    breaks: list[int] = []  # lines that start a new section: headings, directive fences, `:::` containers
    _walk(text, ranges, 0, len(ranges), 0, out, breaks, 0)
    breaks.sort()
    for block in out:
        block.section = bisect.bisect_right(breaks, block.section)  # section held the fence's line until now
    return out


def _walk(text: str, ranges: list, first: int, end: int, dedent: int, out: list, breaks: list, depth: int) -> None:
    """Lines [first, end) of the file (each without up to `dedent` leading blanks) parsed as Markdown."""
    lines = [_dedented(text, *ranges[i], dedent) for i in range(first, end)]
    for tok in fences.tokens("\n".join(lines).replace("\r", " ")):
        if tok.map is None:
            continue
        a, b = tok.map[0] + first, tok.map[1] + first
        if tok.type == "heading_open":
            breaks.append(a)
        elif tok.type == "paragraph_open":  # MyST colon fences (`:::{tab-item}`): CommonMark reads a paragraph
            breaks.extend(i for i in range(a, b) if _CONTAINER.match(text, *ranges[i]))
        elif tok.type == "fence":
            _fence(text, ranges, tok, a, b, end, out, breaks, depth)
        elif tok.type == "code_block" and depth < _MAX_DEPTH:
            body = [text[lo:hi] for lo, hi in ranges[a:b] if text[lo:hi].strip()]
            inner = min((len(x) - len(x.lstrip(" \t")) for x in body), default=0)
            _walk(text, ranges, a, b, inner, out, breaks, depth + 1)


def _fence(text: str, ranges: list, tok, a: int, b: int, end: int, out: list, breaks: list, depth: int) -> None:
    opener = text[ranges[a][0]:ranges[a][1]]
    indent = len(opener) - len(opener.lstrip(" \t"))
    if not opener.lstrip(" \t").startswith(tok.markup):  # inside a block quote: its lines carry `>`
        return
    closed = b - 1 > a and _closes(text[ranges[b - 1][0]:ranges[b - 1][1]], tok.markup[0], len(tok.markup))
    stop = b - 1 if closed else b if tok.level else end  # unclosed: CommonMark runs it to its container's end
    info = tok.info.strip()
    if info.startswith("{") and info[1:].partition("}")[0].strip() not in _CODE_DIRECTIVES:
        breaks.extend((a, stop))  # a MyST directive ({tab-item}, {note}): its body is Markdown
        if depth < _MAX_DEPTH:
            _walk(text, ranges, a + 1, stop, indent, out, breaks, depth + 1)
        return
    lang = _lang(info)
    block = Block(lang, a, list(ranges[a + 1:stop]), indent)
    read = lang in SHELL_LANGS or lang in YAML_LANGS or lang in TOML_LANGS
    if (read or (not info and _starts_launch(text, block))) and len(out) < MAX_BLOCKS:
        out.append(block)


def _starts_launch(text: str, block: Block) -> bool:
    """An untagged fence is read as shell when one of its lines starts a launch (first word, after `VAR=value`
    assignments and a `$ ` prompt, a launcher's program: rtp-llm's guides write them so)."""
    pattern = framework_words.LINE_LAUNCH
    return any(pattern.match(text, lo, hi) for lo, hi in block.lines)


def _dedented(text: str, lo: int, hi: int, dedent: int) -> str:
    line = text[lo:hi]
    strip = min(dedent, len(line) - len(line.lstrip(" \t")))
    return line[strip:]


def _closes(line: str, char: str, size: int) -> bool:
    stripped = line.strip()
    return bool(stripped) and set(stripped) == {char} and len(stripped) >= size


def _rst_blocks(text: str) -> list[Block]:
    out: list[Block] = []
    section, current, prev_blank = 0, None, True
    for lo, hi in _line_ranges(text):
        line = text[lo:hi]
        if current is not None:
            block, base = current
            indent = len(line) - len(line.lstrip())
            if not line.strip():
                block.lines.append((lo, hi))
                continue
            if indent > base:
                if not block.lines and line.lstrip().startswith(":"):  # directive options (:caption:)
                    continue
                block.indent = min(block.indent, indent) if block.lines and block.indent else indent
                block.lines.append((lo, hi))
                continue
            out.append(block)
            current = None
        m = _RST_DIRECTIVE.match(line)
        if m:
            lang = m.group(2).lower()
            if (lang in SHELL_LANGS or lang in YAML_LANGS or lang in TOML_LANGS) and len(out) < MAX_BLOCKS:
                current = (Block(lang, section, [], 0), len(m.group(1)))
            continue
        if _RST_UNDERLINE.match(line) and not prev_blank:
            section += 1
        prev_blank = not line.strip()
    if current is not None:
        out.append(current[0])
    return out


def script_of(text: str, block: Block) -> Decoded:
    """A shell block as a script: indentation stripped, `$ ` prompts blanked (console blocks keep only prompted
    lines and their continuations), placeholders `<...>` turned into unset variables; mapped to the file."""
    parts, smap = [], SourceMap()
    prompted = block.lang in _PROMPTED and any(_PROMPT.match(text[lo:hi]) for lo, hi in block.lines)
    continued = False
    for lo, hi in block.lines:
        strip = min(block.indent, len(text[lo:hi]) - len(text[lo:hi].lstrip(" \t")))
        lo += strip
        line = text[lo:hi]
        if prompted:
            m = _PROMPT.match(line)
            if m:
                line = " " * len(m.group(1)) + line[m.end():]
            elif not continued:
                line = ""
            continued = bool(line) and line.rstrip().endswith("\\")
        line = _PLACEHOLDER.sub(_unset, line)
        parts.append(line + "\n")
        smap.add(lo, lo + len(line), len(line), True)
        smap.add(hi, hi + 1, 1, True)
    return Decoded("".join(parts), smap)


def _unset(m: re.Match) -> str:
    """`<node_ip>` -> `${______}`: a reference of the same length to a variable no script sets (unknown)."""
    n = len(m.group())
    if n < 3:
        return m.group()
    return "$" + "_" * (n - 1) if n < 5 else "${" + "_" * (n - 3) + "}"


def has_launch_word(text: str, block: Block) -> bool:
    return any(_LAUNCH_WORD.search(text, lo, hi) for lo, hi in block.lines)


def read_markdown(text: str, name: str = "") -> LaunchFile:
    """Every shell and YAML code block of a Markdown / rST document, as launches positioned in the file."""
    from moecfg.sources.shell import reader as shell
    from moecfg.sources.manifests.launch import line_index

    out = LaunchFile()
    lines = line_index(text)
    found = blocks(text, rst=name.lower().endswith(".rst"))
    variables: dict = {}  # name -> Var at the end of the section's previous shell block
    sourced: list = []  # and the files it sourced (`source .../Ascend/cann/set_env.sh` in a block of its own)
    section, yaml_blocks, toml_blocks = None, 0, 0
    from moecfg.sources.shell.sourced import Includes
    from moecfg.sources.manifests.heredoc import read as manifest_heredoc
    calls = Includes.for_script(name) if name else None
    for block in found:
        if block.lang in TOML_LANGS:
            if toml_blocks < MAX_TOML_BLOCKS:
                toml_blocks += 1
                _read_toml_block(text, block, out)
            continue
        if block.lang in YAML_LANGS:
            if yaml_blocks < MAX_YAML_BLOCKS and (has_launch_word(text, block) or _k8s_like(text, block)):
                yaml_blocks += 1
                _read_yaml_block(text, block, out)
            continue
        if block.section != section:
            variables, sourced, section = {}, [], block.section
        problems: list = []
        reader = shell.ShellReader(lines, problems, "shell")
        reader.sourced = sourced
        reader.calls = calls  # `sh run_x.sh ARGS`: the script beside the document, read with its arguments
        reader.manifests = manifest_heredoc  # `cat <<EOF | kubectl apply -f -`: the body read as the YAML it is
        variables = reader.read(script_of(text, block), variables)
        out.launches.extend(reader.launches)
        out.unread.extend(reader.unread)
        if has_launch_word(text, block):  # syntax: docs mix output, Python and elisions into shell blocks
            out.problems.extend(p for p in problems if p.code != L.SHELL_SYNTAX.code)
    if not out.launches and not out.problems:
        out.skipped = "documentation without a shell or YAML code block holding a launch"
    return out


def directive_text(text: str, name: str = "") -> str:
    """The text `# moecfg: disable=...` directives are looked for in: only the lines of code blocks that hold a
    launch, the rest blank (same lines), so prose and example YAML in the docs never carry a directive."""
    keep = [(lo, hi) for b in blocks(text, rst=name.lower().endswith(".rst")) if has_launch_word(text, b)
            for lo, hi in b.lines]
    out, pos = [], 0
    for lo, hi in keep:
        out.append(re.sub(r"[^\n]", "", text[pos:lo]))
        out.append(text[lo:hi])
        pos = hi
    out.append(re.sub(r"[^\n]", "", text[pos:]))
    return "".join(out)


def _k8s_like(text: str, block: Block) -> bool:
    return any(text.startswith("apiVersion:", lo + block.indent) for lo, _ in block.lines[:50])


def _read_toml_block(text: str, block: Block, out: LaunchFile) -> None:
    """A prime-rl config fragment (```toml with an [inference.vllm] / [trainer.model] ... table): its launch, positioned
    in the file; a block TOML cannot read (an elided `...`) is an illustration, not reported."""
    from moecfg.sources.recipes.prime_rl import BROKEN, read_toml

    if not block.lines:
        return
    first = block.lines[0][0]
    body = text[first:block.lines[-1][1]]
    lf = read_toml(body, first_line=text.count("\n", 0, first), block=True)
    if lf is not None and lf.launches and lf.launches[0].argv[1].value != BROKEN:
        out.launches.extend(lf.launches)


def _read_yaml_block(text: str, block: Block, out: LaunchFile) -> None:
    """The block parsed as YAML from its first line on (parse_stream(first_line=)): every position is the file's
    own, without a copy padded with a blank line per line before it (a 20 MB Markdown file: 71 s, 1.8 GB)."""
    from moecfg.sources.manifests.documents import read_yaml_document
    from moecfg.sources.manifests.yaml_source import YamlProblem, parse_stream

    if not block.lines:
        return
    first = block.lines[0][0]
    line_no = text.count("\n", 0, first)
    body = text[first:block.lines[-1][1]]
    try:
        docs = parse_stream(body, first_line=line_no)
    except (YamlProblem, RecursionError):
        return  # a YAML snippet with `...` elisions is an illustration, not a file: nothing to report
    for doc in docs:
        lf = read_yaml_document(doc, body) if isinstance(doc.data, dict) else None
        if lf is not None and lf.launches:
            out.launches.extend(lf.launches)
            out.problems.extend(lf.problems)


__all__ = ["SUFFIXES", "is_markdown", "read_markdown", "blocks", "script_of", "directive_text"]
