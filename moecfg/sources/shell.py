"""Shell scripts -> Launches, with tree-sitter-bash (imported here only, when a shell text is read).

Variables are tracked in order (`A=B`, `export`, `declare -x`, `unset`, `A=B cmd`, `env A=B cmd`); a value
the script does not set (or sets in only some branches of an `if`/`case`/loop) is unknown (None), never
guessed. Words keep a source map into the file (textmap.py), so a word of a `bash -c` string inside a YAML
block scalar still has its own line and column.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, replace

from moecfg.core import launch_rules as L
from moecfg.sources.launch import EnvEntry, Launch, Problem, Word
from moecfg.sources.textmap import Decoded, LineIndex, SourceMap

_PARSER = None
_MAX_RECOVERIES = 50  # re-parses after an unterminated quote swallowed the rest of a script
_SHELLS = {"sh", "bash", "dash", "zsh", "ash", "ksh"}
_WRAPPERS = {"exec", "nohup", "time", "env"}
_REDIRECTS = {"file_redirect", "herestring_redirect", "heredoc_redirect", "comment"}
_BRANCHY = {"if_statement", "case_statement", "while_statement", "for_statement", "c_style_for_statement"}
_IFS = " \t\n"
_UNKNOWN = "${__moecfg_unknown__}"  # stands for an unknown piece inside a `bash -c` script


def _parser():
    global _PARSER
    if _PARSER is None:
        import tree_sitter
        import tree_sitter_bash
        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _PARSER


@dataclass(frozen=True, slots=True)
class Var:
    value: str | None  # None: unknown
    span: object  # Span of the assignment (or env entry)
    exported: bool = False
    is_set: bool = True


class Variables(dict):
    """name -> Var, with the exported ones kept as EnvEntries (a launch copies them: O(1) Python work)."""

    def __init__(self, items=()):
        super().__init__()
        self.exported: dict[str, EnvEntry] = {}
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


class _Chunk:
    """One parsed text: char <-> tree-sitter byte offsets, and the map from its chars to the file."""

    def __init__(self, text: str, smap: SourceMap, base: int):
        self.text, self.smap, self.base = text, smap, base  # text = script.text[base:]
        self.data = text.encode("utf-8", "surrogatepass")
        self.starts: list[int] = []
        self.cum = [0]
        if len(self.data) != len(text):
            extra = 0
            for m in re.finditer(r"[^\x00-\x7f]", text):
                n = len(m.group().encode("utf-8", "surrogatepass")) - 1
                self.starts.append(m.start() + extra)
                extra += n
                self.cum.append(extra)

    def char(self, b: int) -> int:
        return b - self.cum[bisect_left(self.starts, b)] if self.starts else b

    def node_range(self, node) -> tuple[int, int]:
        return self.char(node.start_byte), self.char(node.end_byte)

    def node_text(self, node) -> str:
        a, b = self.node_range(node)
        return self.text[a:b]

    def map_of(self, a: int, b: int) -> SourceMap:
        return self.smap.slice(self.base + a, self.base + b)

    def locate(self, a: int, b: int) -> tuple[int, int, bool]:
        return self.smap.locate(self.base + a, self.base + b)


class ShellReader:
    """Reads one script (a whole file or a `bash -c` string) into launches; problems go to `problems`."""

    def __init__(self, lines: LineIndex, problems: list, context: str = "shell", make_launch=None):
        self.lines, self.problems, self.context = lines, problems, context
        self.make_launch = make_launch or (lambda argv, env: Launch(tuple(argv), env, context))
        self.launches: list[Launch] = []
        self.capture: list | None = None  # set: collect each command's words instead of running it
        self.depth = 0

    def span(self, lo: int, hi: int):
        return self.lines.span(lo, hi)

    # --- entry ----------------------------------------------------------------------------------------
    def read(self, script: Decoded, env: dict[str, Var], depth: int = 0) -> dict[str, Var]:
        """Read `script` with variables `env` in effect; returns the variables at its end. After an
        unterminated quote (which swallows the rest of the text) reading resumes on the next line."""
        self.depth = depth
        base, variables = 0, Variables(env)
        for _ in range(_MAX_RECOVERIES):
            chunk = _Chunk(script.text[base:], script.map, base)
            tree = _parser().parse(chunk.data)
            errors = [_Error(e, chunk) for e in _errors(tree.root_node)]
            self._report(chunk, errors)
            bad_rows = {e.row for e in errors}
            try:
                _Walk(self, chunk, variables, bad_rows).statements(tree.root_node)
            except RecursionError:  # constructs nested thousands deep: report instead of crashing
                self.problems.append(Problem(L.SHELL_SYNTAX.code, "shell script nested too deeply to read "
                                             "(thousands of levels); the rest of it is not checked",
                                             self.span(*chunk.locate(0, 0)[:2])))
                break
            quote = next((e for e in errors if e.open_quote is not None), None)
            nl = chunk.text.find("\n", quote.open_quote) if quote else -1
            if nl < 0:
                break
            base += nl + 1
        return variables

    def _report(self, chunk: _Chunk, errors: list) -> None:
        rows = set()
        for e in errors:
            if e.row in rows or len(rows) >= 5:
                continue
            rows.add(e.row)
            lo, hi, _ = chunk.locate(e.start, e.end)
            self.problems.append(Problem(L.SHELL_SYNTAX.code, f"shell syntax: {e.what}: the shell cannot run "
                                         "this command; the commands after it are still read", self.span(lo, hi)))


class _Error:
    """A syntax error: what it is and where (chunk chars); `open_quote`: where an unterminated quote opens."""

    def __init__(self, node, chunk: _Chunk):
        origin = node.parent if node.is_missing and node.parent is not None else node
        a, b = chunk.node_range(origin)
        self.row = node.start_point[0]
        self.open_quote = _open_quote(chunk.text, a, b) if b >= len(chunk.text.rstrip()) else None
        if self.open_quote is not None:
            q = chunk.text[self.open_quote]
            self.what = {"'": "unterminated single quote", '"': "unterminated double quote"}.get(q, "unterminated "
                                                                                                  "backquote")
            self.start, self.end = self.open_quote, self.open_quote + 1
            self.row = chunk.text.count("\n", 0, self.open_quote)
            return
        line_end = chunk.text.find("\n", a, b)
        self.start, self.end = a, b if line_end < 0 else line_end
        text = chunk.text[self.start:self.end].strip()
        self.what = f"missing `{node.type}`" if node.is_missing else f"unexpected `{text[:30]}`"


def _open_quote(text: str, a: int, b: int) -> int | None:
    """Offset of the quote in [a, b) that is never closed (backslash escapes honoured outside '...')."""
    i = a
    while i < b:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"`":
            j = i + 1
            while j < b and text[j] != c:
                j += 2 if c != "'" and text[j] == "\\" else 1
            if j >= b:
                return i
            i = j
        i += 1
    return None


def _errors(root) -> list:
    if not root.has_error:
        return []
    out, stack = [], [root]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            out.append(n)
            continue
        if n.has_error:
            stack.extend(reversed(n.children))
    return sorted(out, key=lambda n: n.start_byte)


class _Walk:
    """Statements in order; variables change as the shell would change them."""

    def __init__(self, reader: ShellReader, chunk: _Chunk, variables: dict, bad_rows: set):
        self.r, self.c, self.vars, self.bad_rows = reader, chunk, variables, bad_rows

    def statements(self, node) -> None:
        stack = [node]
        while stack:
            n = stack.pop()
            t = n.type
            if t == "ERROR" or t == "heredoc_body" or t == "comment":
                continue
            if t == "command":
                self.command(n)
            elif t in ("variable_assignment", "variable_assignments"):
                self.assignments(n, exported=None)
            elif t == "declaration_command":
                self.declaration(n)
            elif t == "unset_command":
                self.unset(n)
            elif t in _BRANCHY:
                self.branches(n)
            elif t in ("function_definition", "subshell"):
                self.scoped(n)
            elif t in ("command_substitution", "process_substitution"):
                continue
            else:
                stack.extend(reversed(n.named_children))

    # --- control flow: values set in only some paths become unknown --------------------------------------
    def scoped(self, node) -> None:
        saved = dict(self.vars)
        for child in node.named_children:
            self.statements(child)
        self.vars.restore(saved)

    def branches(self, node) -> None:
        before = dict(self.vars)
        if node.type in ("for_statement", "c_style_for_statement"):
            var = node.child_by_field_name("variable")
            if var is not None:
                self.vars[self.c.node_text(var)] = Var(None, self.node_span(var))
        for child in node.named_children:
            self.statements(child)
        for name, v in list(self.vars.items()):
            if before.get(name) is not v:
                self.vars[name] = replace(v, value=None)

    # --- assignments ------------------------------------------------------------------------------------
    def node_span(self, node):
        lo, hi, _ = self.c.locate(*self.c.node_range(node))
        return self.r.span(lo, hi)

    def assignment(self, node) -> tuple[str, Var] | None:
        name_node = node.child_by_field_name("name")
        if name_node is None or name_node.type != "variable_name":
            return None
        name = self.c.node_text(name_node)
        value_node = node.child_by_field_name("value")
        if value_node is None:
            value = ""
        elif value_node.type == "array":
            value = None
        else:
            words = self.word(value_node, split=False)
            value = words[0].value if words else ""
        old = self.vars.get(name)
        if any(c.type == "+=" for c in node.children):
            value = None if value is None or old is None or old.value is None else old.value + value
        return name, Var(value, self.node_span(node), exported=bool(old and old.exported))

    def assignments(self, node, exported: bool | None) -> None:
        items = node.named_children if node.type == "variable_assignments" else [node]
        for item in items:
            got = self.assignment(item)
            if got:
                name, var = got
                self.vars[name] = replace(var, exported=var.exported if exported is None else exported)

    def declaration(self, node) -> None:
        keyword = node.children[0].type if node.children else ""
        exported = keyword == "export" or any(
            c.type == "word" and self.c.node_text(c).startswith("-") and "x" in self.c.node_text(c)
            for c in node.named_children)
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assignments(child, exported or None)
            elif child.type == "variable_name" and exported:
                name = self.c.node_text(child)
                old = self.vars.get(name)
                self.vars[name] = replace(old, exported=True) if old else Var(None, self.node_span(child), True)

    def unset(self, node) -> None:
        for child in node.named_children:
            if child.type in ("variable_name", "word"):
                self.vars[self.c.node_text(child)] = Var("", self.node_span(child), is_set=False)

    # --- commands ---------------------------------------------------------------------------------------
    def command(self, node) -> None:
        if any(r in self.bad_rows for r in range(node.start_point[0], node.end_point[0] + 1)):
            return
        prefix: dict[str, EnvEntry] = {}
        argv: list = []
        for child in node.named_children:
            t = child.type
            if t == "variable_assignment" and not argv:
                got = self.assignment(child)
                if got:
                    prefix[got[0]] = EnvEntry(got[0], got[1].value, got[1].span)
            elif t == "command_name":
                argv.extend(self.word(child.named_children[0] if child.named_children else child))
            elif t not in _REDIRECTS:
                argv.extend(self.word(child))
        if self.r.capture is not None:
            self.r.capture.append(argv)
            return
        _Command(self, argv, prefix).run()

    def environment(self, prefix: dict[str, EnvEntry], clear: bool = False) -> dict[str, EnvEntry]:
        env = {} if clear else dict(self.vars.exported)
        env.update(prefix)
        return env

    # --- words ------------------------------------------------------------------------------------------
    def word(self, node, split: bool = True) -> list:
        """The words one argument node expands to (several when an unquoted $X holds spaces)."""
        w = _W()
        self.pieces(node, w, quoted=False)
        a, b = self.c.node_range(node)
        lo, hi, exact = self.c.locate(a, b)
        span = self.r.span(lo, hi)
        exact = exact and not w.expanded and all(s[4] for s in w.map.segs)
        if not split or not w.split or not w.known:
            return [_Built(w.value, w.map, span, exact, w.script)]
        return _split(w, self.r)

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
            text = self.expansion(node)
            w.add(text, self.c.map_of(a, b).whole(_width(text)), splittable=not quoted, expanded=True)
        elif t == "arithmetic_expansion":
            value = _arith(node, self)
            text = None if value is None else str(value)
            w.add(text, self.c.map_of(a, b).whole(_width(text)), expanded=True)
        elif node.is_named:
            w.add(None, self.c.map_of(a, b).whole(len(_UNKNOWN)))  # command substitution, brace expansion...
        else:
            self.literal(a, b, w, "unquoted")

    def literal(self, a: int, b: int, w: _W, mode: str) -> None:
        """Literal text with backslash escapes (unquoted: any char; in "...": only $ ` " \\ newline)."""
        text, i, run = self.c.text, a, a
        if text.find("\\", a, b) < 0:  # no escapes: one literal run
            w.add(text[a:b], self.c.map_of(a, b))
            return
        while i < b:
            if text[i] == "\\" and i + 1 < b and (mode == "unquoted" or text[i + 1] in '$`"\\\n'):
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
            ca, cb = self.c.node_range(child)
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
        try:
            value = body.encode("latin-1", "backslashreplace").decode("unicode_escape")
        except (UnicodeDecodeError, UnicodeEncodeError):
            value = None
        w.add(value, self.c.map_of(a, b).whole(_width(value)), expanded=True)

    def lookup(self, name: str) -> Var | None:
        return self.vars.get(name)

    def expansion(self, node) -> str | None:
        """$X, ${X}, ${X:-w}, ${X-w}, ${X:=w}, ${X:+w}, ${X:?m}; any other form is unknown."""
        kids = [c for c in node.children if c.type not in ("${", "}", "$")]
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


@dataclass(frozen=True, slots=True)
class _Built:
    value: str | None
    map: SourceMap
    span: object
    exact: bool
    script: str | None = None  # the text with unknown pieces as an unknown reference (for `bash -c`)

    def word(self) -> Word:
        return Word(self.value, self.span, self.exact)


def _split(w: _W, reader: ShellReader) -> list:
    """Field splitting of unquoted expansions (only at whitespace that came from an expansion)."""
    value, cuts, out, start = w.value, set(w.split), [], None
    for i, ch in enumerate(value + " "):
        sep = i == len(value) or (ch in _IFS and i in cuts)
        if sep and start is not None:
            m = w.map.slice(start, i)
            lo, hi, exact = m.locate(0, m.length)
            out.append(_Built(value[start:i], m, reader.span(lo, hi), exact))
            start = None
        elif not sep and start is None:
            start = i
    return out


_SCRIPT_OPTS = re.compile(r"^-[a-zA-Z]*c[a-zA-Z]*$")


class _Command:
    """One simple command: strip wrappers (exec, env, nohup, time), recurse into `sh -c`, emit a Launch."""

    def __init__(self, walk: _Walk, argv: list, prefix: dict):
        self.walk, self.argv, self.prefix, self.clear = walk, argv, dict(prefix), False

    def run(self) -> None:
        argv = self.strip(self.argv)
        if not argv:
            return
        if argv[0].value and argv[0].value.rsplit("/", 1)[-1] in _SHELLS and self.inline_script(argv):
            return
        env = self.walk.environment(self.prefix, self.clear)
        self.walk.r.launches.append(self.walk.r.make_launch([b.word() for b in argv], env))

    def strip(self, argv: list) -> list:
        while argv and argv[0].value:
            name = argv[0].value.rsplit("/", 1)[-1]
            if name not in _WRAPPERS:
                break
            argv = argv[1:]
            if name == "env":
                argv = self.env_args(argv)
            else:
                while argv and argv[0].value and argv[0].value.startswith("-") and name in ("exec", "time"):
                    argv = argv[1 + (argv[0].value == "-a"):]
        return argv

    def env_args(self, argv: list) -> list:
        while argv and argv[0].value is not None:
            text = argv[0].value
            if text in ("-i", "-", "--ignore-environment"):
                self.clear = True
            elif text in ("-u", "--unset", "-C", "--chdir"):
                argv = argv[1:]
            elif text.startswith("-"):
                pass
            elif "=" in text and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", text):
                name, _, value = text.partition("=")
                self.prefix[name] = EnvEntry(name, value, argv[0].span)
            else:
                break
            argv = argv[1:]
        return argv

    def inline_script(self, argv: list) -> bool:
        """`bash -c 'script'`: read the script with this command's environment (depth-limited)."""
        i, has_c = 1, False
        while i < len(argv) and argv[i].value and argv[i].value[:1] in "-+" and argv[i].value != "--":
            has_c = has_c or bool(_SCRIPT_OPTS.match(argv[i].value))
            i += 1 + (argv[i].value in ("-o", "+o", "-O", "+O"))
        if not has_c or i >= len(argv) or self.walk.r.depth >= 4:
            return False
        script = argv[i]
        text = script.value if script.value is not None else script.script
        if text is None or len(text) != script.map.length:
            return False
        env = {n: Var(e.value, e.span, exported=True) for n, e in self.walk.environment(self.prefix,
                                                                                       self.clear).items()}
        reader = self.walk.r
        depth = reader.depth
        reader.read(Decoded(text, script.map), env, depth + 1)
        reader.depth = depth
        return True


def _arith(node, walk: _Walk) -> int | None:
    """$(( ... )) over integer literals and known variables: + - * / %; anything else is unknown."""
    body = [c for c in node.named_children]
    if len(body) != 1:
        return None
    try:
        return _eval(body[0], walk, 0)
    except (ValueError, ZeroDivisionError, RecursionError):
        return None


def _eval(n, walk: _Walk, depth: int) -> int:
    if depth > 50:
        raise ValueError
    t = n.type
    if t == "number":
        return int(walk.c.node_text(n), 0)
    if t in ("variable_name", "simple_expansion", "expansion"):
        text = walk.expansion(n) if t != "variable_name" else (walk.lookup(walk.c.node_text(n)) or Var(None, 0)).value
        if text is None:
            raise ValueError
        return int(text.strip() or "0", 0)
    if t == "parenthesized_expression":
        return _eval(n.named_children[0], walk, depth + 1)
    if t == "unary_expression" and len(n.children) == 2 and n.children[0].type in "-+":
        v = _eval(n.children[1], walk, depth + 1)
        return -v if n.children[0].type == "-" else v
    if t == "binary_expression" and len(n.children) == 3:
        a, b = _eval(n.children[0], walk, depth + 1), _eval(n.children[2], walk, depth + 1)
        op = n.children[1].type
        if op == "/":
            return int(a / b)
        if op == "%":
            return a - b * int(a / b)
        return {"+": a + b, "-": a - b, "*": a * b}[op]
    raise ValueError
