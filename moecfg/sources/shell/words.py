"""Shell words: quote removal, `$X` / `${X:-w}` / `$((...))` expansion from the variables in effect, field
splitting of unquoted expansions, each word with its source map into the file (textmap.py). A value the script
does not set is unknown (None), never guessed."""
from __future__ import annotations

import re

from moecfg.sources.shell import arith as shell_arith
from moecfg.sources.launch import EnvEntry
from moecfg.sources.shell.values import _UNKNOWN, Built, Var  # noqa: F401  (re-exported)
from moecfg.sources.textmap import SourceMap

_IFS = " \t\n"
_ESCAPED = {"dquote": '$`"\\\n', "heredoc": "$`\\\n"}  # what a backslash escapes inside "..." / a heredoc


class Variables(dict):
    """name -> Var, with the exported ones kept as EnvEntries (a launch copies them: O(1) Python work)."""

    def __init__(self, items=()):
        super().__init__()
        self.exported: dict[str, EnvEntry] = {}
        self.allexport = False  # `set -a`
        for name, var in dict(items).items():
            self[name] = var

    def __setitem__(self, name: str, var: Var) -> None:
        super().__setitem__(name, var)
        if var.exported and var.is_set:
            self.exported[name] = EnvEntry(name, var.value, var.span)
        else:
            self.exported.pop(name, None)

    def restore(self, saved: dict) -> None:
        self.clear()
        self.exported = {}
        for name, var in saved.items():
            self[name] = var


def _width(text: str | None) -> int:
    return len(_UNKNOWN) if text is None else len(text)


class _W:
    """A word being built: value (None if unknown), map into the file, splittable positions (unquoted $X).
    `script` keeps unknown pieces as an unknown `${...}` reference, so a `bash -c` string with an unknown
    part is still read (only the inner words that use the part are unknown)."""

    __slots__ = ("parts", "map", "known", "split", "expanded")

    def __init__(self):
        self.parts, self.map, self.known, self.split, self.expanded = [], SourceMap(), True, None, False

    def add_partial(self, script: str, smap: SourceMap, splittable: bool = False) -> None:
        """An unknown value known in parts: the word is unknown, a `bash -c` script still reads the known parts;
        unquoted (`$CMD` as a command), its blanks split it into words as bash splits it."""
        self.known, self.expanded = False, True
        if splittable and any(c in _IFS for c in script):
            self.split = (self.split or []) + [self.map.length + i for i, c in enumerate(script) if c in _IFS]
        self.parts.append(script)
        self.map.extend(smap)

    def add(self, text: str | None, smap: SourceMap, splittable: bool = False, expanded: bool = False) -> None:
        self.expanded = self.expanded or expanded or text is None
        if text is None:
            self.known = False
            text = _UNKNOWN
        elif splittable and any(c in _IFS for c in text):
            self.split = (self.split or []) + list(range(self.map.length, self.map.length + len(text)))
        self.parts.append(text)
        self.map.extend(smap if smap.length == len(text) else smap.whole(len(text)))

    @property
    def value(self) -> str | None:
        return "".join(self.parts) if self.known else None

    @property
    def script(self) -> str:
        return "".join(self.parts)


class Words:
    """Word expansion for the statement walker (needs `self.c`: the parsed chunk, `self.r`: the reader,
    `self.vars`: the Variables in effect)."""

    def word(self, node, split: bool = True) -> list:
        """The words one argument node expands to (several when an unquoted $X holds spaces)."""
        a, b = self.c.node_range(node)
        if not self.r.budget.words_made(1, None):  # past the file's budget (sources/budget.py): unknown
            lo, hi, _ = self.c.locate(a, b)
            self.r.budget.where = self.r.budget.where or self.r.span(lo, hi)
            return [Built(None, SourceMap(), self.r.span(lo, hi), False)]
        if node.type in ("word", "number", "raw_string") and self.c.text.find("\\", a, b) < 0:
            return [self.plain(a, b, 1 if node.type == "raw_string" else 0)]  # the common case, no escapes
        if split and self.c.text.find("[", a, b) >= 0:
            got = self.array_words(node, a, b)
            if got is not None:
                return got
        w = _W()
        self.pieces(node, w, quoted=False)
        lo, hi, exact = self.c.locate(a, b)
        span = self.r.span(lo, hi)
        exact = exact and not w.expanded and all(s[4] for s in w.map.segs)
        if not split or not w.split:
            return [Built(w.value, w.map, span, exact, w.script)]
        words = _split(w, self.r)
        return words if self.r.budget.words_made(len(words) - 1, span) else [Built(None, SourceMap(), span, False)]

    def array_words(self, node, a: int, b: int) -> list | None:
        """`"${A[@]}"` and friends as command words; a quoted `[@]` inside a longer word is unknown (one word per
        element in bash, with the surrounding text glued to the first and last)."""
        from moecfg.sources.shell import arrays as shell_arrays
        got = shell_arrays.whole_word(self, node)
        if got is None and node.type in ("string", "concatenation") and _quoted_all(node, self):
            lo, hi, _ = self.c.locate(a, b)
            got = [Built(None, SourceMap(), self.r.span(lo, hi), False)]
        return got

    def heredoc_body(self, body, quoted: bool) -> _W:
        """A heredoc body as the shell feeds it: expanded (`$X`, `\\$`) unless its delimiter is quoted."""
        a, b = self.c.node_range(body)
        w, pos = _W(), a
        for child in [] if quoted else body.named_children:
            ca, cb = _start(self, child)
            if child.type == "heredoc_content":
                continue
            if ca > pos:
                self.literal(pos, ca, w, "heredoc")
            self.pieces(child, w, quoted=True)
            pos = cb
        if b > pos:
            if quoted:
                w.add(self.c.text[pos:b], self.c.map_of(pos, b))
            else:
                self.literal(pos, b, w, "heredoc")
        return w

    def plain(self, a: int, b: int, quote: int) -> Built:
        """A literal word (`quote` 1: a '...' string): value, map and span straight from the text."""
        text, smap = self.c.text[a + quote:b - quote], self.c.map_of(a + quote, b - quote)
        lo, hi, exact = self.c.locate(a, b)
        return Built(text, smap, self.r.span(lo, hi), exact, text)

    def pieces(self, node, w: _W, quoted: bool) -> None:
        t = node.type
        a, b = self.c.node_range(node)
        if t in ("word", "number", "command_name"):
            self.literal(a, b, w, "unquoted")
        elif t == "raw_string":
            w.add(self.c.text[a + 1:b - 1], self.c.map_of(a + 1, b - 1))
        elif t in ("string", "translated_string"):
            self.string(node, w)
        elif t == "ansi_c_string":
            self.ansi_c(a, b, w)
        elif t == "concatenation":
            for child in node.children:
                self.pieces(child, w, quoted)
        elif t in ("simple_expansion", "expansion"):
            a, b = _start(self, node)
            text = self.expansion(node)
            part = self.partial(node) if text is None else None
            if part is not None:  # a bash -c script's words keep where they were written (PRETRAIN_ARGS=(...))
                exact = part.map.length == len(part.script)
                w.add_partial(part.script, part.map if exact else self.c.map_of(a, b).whole(len(part.script)),
                              splittable=not quoted)
                return
            held = self.script_map(node, text) if text is not None else None
            w.add(text, held or self.c.map_of(a, b).whole(_width(text)), splittable=not quoted, expanded=True)
        elif t == "arithmetic_expansion":
            value = _arith(node, self)
            text = None if value is None else str(value)
            w.add(text, self.c.map_of(a, b).whole(_width(text)), expanded=True)
        elif t == "command_substitution" and self._script_folder(node):
            text = self._script_folder(node)  # "." or "./..": `source` resolves it against the script's folder
            w.add(text, self.c.map_of(a, b).whole(len(text)), expanded=True)
        elif t == "command_substitution" and _seq(self.c.node_text(node)) is not None:
            text = _seq(self.c.node_text(node))  # `$(seq 16 8 256)`: a list of numbers (cuda-graph batch sizes)
            w.add(text, self.c.map_of(a, b).whole(_width(text)), splittable=not quoted, expanded=True)
        elif node.is_named:
            w.add(None, self.c.map_of(a, b).whole(len(_UNKNOWN)))  # command substitution, brace expansion...
        else:
            self.literal(a, b, w, "unquoted")

    def _script_folder(self, node) -> str | None:
        """`$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)` in the script moecfg was given (sources/shell/sourced.py)."""
        if self.r.include is None or self.r.depth != 0:
            return None
        from moecfg.sources.shell.sourced import script_folder

        return script_folder(self.c.node_text(node))

    def literal(self, a: int, b: int, w: _W, mode: str) -> None:
        """Literal text with backslash escapes (unquoted: any char; in "...": only $ ` " \\ newline; in a
        heredoc body: $ ` \\ newline)."""
        text, i, run = self.c.text, a, a
        if text.find("\\", a, b) < 0:  # no escapes: one literal run
            w.add(text[a:b], self.c.map_of(a, b))
            return
        while i < b:
            if text[i] == "\\" and i + 1 < b and (mode == "unquoted" or text[i + 1] in _ESCAPED[mode]):
                if i > run:
                    w.add(text[run:i], self.c.map_of(run, i))
                if text[i + 1] != "\n":
                    w.add(text[i + 1], self.c.map_of(i, i + 2).whole(1))
                i += 2
                run = i
            else:
                i += 1
        if b > run:
            w.add(text[run:b], self.c.map_of(run, b))

    def string(self, node, w: _W) -> None:
        a, b = self.c.node_range(node)
        pos = a + 1 + (node.type == "translated_string")
        end = b - 1 if b - a >= 2 and self.c.text[b - 1] == '"' else b
        for child in node.named_children:
            ca, cb = _start(self, child)
            if child.type == "string_content":
                continue
            if ca > pos:
                self.literal(pos, ca, w, "dquote")
            self.pieces(child, w, quoted=True)
            pos = cb
        if end > pos:
            self.literal(pos, end, w, "dquote")

    def ansi_c(self, a: int, b: int, w: _W) -> None:
        body = self.c.text[a + 2:b - 1]
        if "\\" not in body:
            w.add(body, self.c.map_of(a + 2, b - 1))
            return
        value = _ansi_c_value(body)
        w.add(value, self.c.map_of(a, b).whole(_width(value)), expanded=True)

    def partial(self, node) -> Built | None:
        """`$X` / `${X}` / `${A[@]}` whose value is unknown but known in parts: its text (unknown pieces as an
        unknown reference) and map (None: nothing known)."""
        kids = [c for c in node.children if c.type not in ("${", "}", "$")]
        if len(kids) == 1 and kids[0].type == "variable_name":
            var = self.lookup(self.c.node_text(kids[0]))
            return var.partial if var is not None and var.value is None else None
        from moecfg.sources.shell.arrays import joined_script
        return joined_script(self, node)

    def script_map(self, node, text: str) -> SourceMap | None:
        """Where a script held in a variable was written (`$CMD` / `${CMD}` of a multi-line literal or of a heredoc
        `read -d ''` read), or None."""
        kids = [c for c in node.children if c.type not in ("${", "}", "$")]
        var = self.lookup(self.c.node_text(kids[0])) if len(kids) == 1 and kids[0].type == "variable_name" else None
        held = var.value_map if var is not None and var.value == text else None
        return held if held is not None and held.length == len(text) else None

    def lookup(self, name: str) -> Var | None:
        return self.vars.get(name)

    def expansion(self, node) -> str | None:
        """$X, ${X}, ${X:-w}, ${X-w}, ${X:=w}, ${X:+w}, ${X:?m}; any other form is unknown."""
        kids = [c for c in node.children if c.type not in ("${", "}", "$")]
        if kids and (kids[0].type == "subscript" or kids[0].type == "#" and len(kids) > 1):
            from moecfg.sources.shell.arrays import scalar
            return scalar(self, node)[1]
        if not kids or kids[0].type not in ("variable_name", "special_variable_name"):
            return None
        var = self.lookup(self.c.node_text(kids[0]))
        if len(kids) == 1:
            return None if var is None else var.value
        op = kids[1].type
        if op not in (":-", "-", ":=", "=", ":+", "+", ":?", "?") or len(kids) > 3:
            return None
        word = None
        if len(kids) == 3:
            w = _W()
            self.pieces(kids[2], w, quoted=True)
            word = w.value
        elif len(kids) == 2:
            word = ""
        return _operator(var, op, word)


_SEQ = re.compile(r"^\$\(\s*seq((?:\s+-?\d{1,6}){1,3})\s*\)$")
_SEQ_MAX = 1024  # numbers; a longer list stays unknown


def _seq(text: str) -> str | None:
    """The output of `$(seq LAST)`, `$(seq FIRST LAST)`, `$(seq FIRST STEP LAST)` with literal integers (coreutils
    seq: one number per line, FIRST and STEP default to 1), newline-separated; None for any other form."""
    m = _SEQ.match(text)
    if m is None:
        return None
    nums = [int(x) for x in m.group(1).split()]
    first, step, last = (1, 1, nums[0]) if len(nums) == 1 else (nums[0], 1, nums[1]) if len(nums) == 2 else nums
    if step == 0:
        return None
    values = range(first, last + (1 if step > 0 else -1), step)
    return "\n".join(str(v) for v in values) if len(values) <= _SEQ_MAX else None


def _start(walk, node) -> tuple[int, int]:
    """A node's range without the blanks tree-sitter-bash puts into a `${` token (`"a ${X} ${Y}"`: the second
    expansion node starts at the blank, which is literal text of the string)."""
    a, b = walk.c.node_range(node)
    while a < b and walk.c.text[a] in " \t\n":
        a += 1
    return a, b


def _quoted_all(node, walk) -> bool:
    """A `"...${A[@]}..."` piece inside `node` (a string or a concatenation of strings)."""
    strings = [node] if node.type == "string" else [c for c in node.children if c.type == "string"]
    for s in strings:
        for c in s.named_children:
            if c.type == "expansion" and "[@]" in walk.c.node_text(c):
                return True
    return False


def _operator(var: Var | None, op: str, word: str | None) -> str | None:
    if var is None or var.value is None and var.is_set:
        return None  # set outside the script, or to an unknown value
    colon = op.startswith(":")
    empty = not var.is_set or (colon and var.value == "")
    if op.lstrip(":") in ("-", "="):
        return word if empty else var.value
    if op.lstrip(":") == "+":
        return "" if empty else word
    return None if empty else var.value


def _ansi_c_value(body: str) -> str | None:
    """The value of `$'...'` (bash's ESC `\\e` included); None when Python's decoder refuses it. The decoder's
    DeprecationWarning for an escape it does not know (`\\q`) is no concern of the user's: silenced."""
    import warnings

    body = body.replace("\\e", "\\x1b").replace("\\E", "\\x1b")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return None


def _split(w: _W, reader) -> list:
    """Field splitting of unquoted expansions (only at whitespace that came from an expansion). A value known only
    in parts (`CMD="torchrun $ARGS pretrain_gpt.py ..."`, run as `$CMD`) splits the same way: a field holding an
    unknown part is an unknown word, the others keep their text and place."""
    value, cuts, out, start = w.script, set(w.split), [], None
    for i, ch in enumerate(value + " "):
        sep = i == len(value) or (ch in _IFS and i in cuts)
        if sep and start is not None:
            m = w.map.slice(start, i)
            lo, hi, exact = m.locate(0, m.length)
            field = value[start:i]
            known = w.known or _UNKNOWN not in field
            out.append(Built(field if known else None, m, reader.span(lo, hi), exact and known, field))
            start = None
        elif not sep and start is None:
            start = i
    return out


_ARITH_PARTS = ("simple_expansion", "expansion", "arithmetic_expansion", "command_substitution", "string",
                "raw_string", "ansi_c_string", "process_substitution")


def _arith(node, walk: Words, depth: int = 0) -> int | None:
    """$(( ... )) as bash evaluates it (arith.py): its `$X` / `${X}` / nested `$((..))` pieces expanded
    first, then the expression; None (unknown) for anything it cannot know."""
    a, b = walk.c.node_range(node)
    text = walk.c.text
    if depth > 16 or b - a > shell_arith.MAX_TEXT or not text.startswith("$((", a) or not text.startswith("))", b - 2):
        return None
    out, pos, stack = [], a + 3, list(reversed(node.children))
    while stack:  # the expansions inside, in order (iterative: a deeply nested expression cannot recurse)
        child = stack.pop()
        ca, cb = walk.c.node_range(child)
        if child.type not in _ARITH_PARTS:
            stack.extend(reversed(child.children))
            continue
        if child.type == "arithmetic_expansion":
            inner = _arith(child, walk, depth + 1)
            value = None if inner is None else str(inner)
        else:
            value = walk.expansion(child) if child.type in ("simple_expansion", "expansion") else None
        if value is None or ca < pos:
            return None
        out += [text[pos:ca], value]
        pos = cb
    out.append(text[pos:b - 2])
    return shell_arith.evaluate("".join(out), _lookup(walk))


def _lookup(walk: Words):
    def value(name: str) -> str | None:
        var = walk.lookup(name)
        return None if var is None or not var.is_set else var.value
    return value
