"""Shell scripts -> Launches, with tree-sitter-bash (imported here only, when a shell text is read).

Variables are tracked in order (`A=B`, `export`, `declare -x`, `unset`, `A=B cmd`, `env A=B cmd`); a value
the script does not set (or sets in only some branches of an `if`/`case`/loop) is unknown (None), never
guessed. Words keep a source map into the file (textmap.py), so a word of a `bash -c` string inside a YAML
block scalar still has its own line and column.

Also read: bash arrays (arrays.py), wrappers before the program (wrappers.py), `source FILE` through the
engine's hook (sourced.py), a heredoc that is the script a command runs (`sbatch <<EOF`, `bash <<EOF`), and
a heredoc `read -r -d '' CMD` keeps in a variable (heredoc_read.py), and a heredoc applied to a cluster
(`kubectl apply -f - <<EOF`, `cat <<EOF | kubectl apply -f -`): its body read as the YAML it is
(heredoc_manifest.py).
Out of scope: heredoc bodies that are YAML/JSON configs written for a launch (`cat > cfg.yaml <<EOF`): they
are data, not commands, and are skipped.
"""
from __future__ import annotations

import re
from bisect import bisect_left

from moecfg.core import launch_rules as L
from moecfg.core.record import replace
from moecfg.sources.shell import arrays as shell_arrays, comments as shell_comments, heredoc_read, \
    repair as shell_repair, sourced
from moecfg.sources.budget import Budget
from moecfg.sources.launch import EnvEntry, Launch, OpenEnv, Problem
from moecfg.sources.shell.values import Built
from moecfg.sources.shell.words import _UNKNOWN, _W, Var, Variables, Words
from moecfg.sources.textmap import Decoded, LineIndex, SourceMap
from moecfg.sources.shell.wrappers import Stripper
from moecfg.sources.textmap import Span

_PARSER = None
_MAX_RECOVERIES = 50  # re-parses after an unterminated quote swallowed the rest of a script
_SHELLS = {"sh", "bash", "dash", "zsh", "ash", "ksh"}
_REDIRECTS = {"file_redirect", "herestring_redirect", "heredoc_redirect", "comment"}
_HEREDOC_RUNNERS = _SHELLS | {"sbatch"}  # commands that run a script given on stdin (`sbatch <<EOF`)
_ESCAPED_BLANK = re.compile(r"[ \t]+(\\[ \t])[ \t]*(?=\n|$)")  # a last word `\ `: one escaped blank
_OPAQUE = set("Anilu")  # declare flags whose value moecfg does not model
_BRANCHY = {"if_statement", "case_statement", "while_statement", "for_statement", "c_style_for_statement"}


def _parser():
    global _PARSER
    if _PARSER is None:
        import tree_sitter

        _PARSER = tree_sitter.Parser(tree_sitter.Language(_bash_language()))
    return _PARSER


def _bash_language():
    """tree-sitter-bash's grammar. Its package `__init__` imports importlib.resources (pathlib, tempfile, shutil,
    random: ~8 ms of a launch check's start-up) for a highlight query moecfg never reads, so the compiled
    `_binding` module is loaded on its own; the ordinary import when that layout is not there."""
    import importlib.machinery
    import importlib.util
    import sys

    binding = sys.modules.get("tree_sitter_bash._binding")
    if binding is None:
        package = importlib.util.find_spec("tree_sitter_bash")  # finds the package without running it
        folder = package.submodule_search_locations if package else None
        for suffix in importlib.machinery.EXTENSION_SUFFIXES if folder else ():
            spec = importlib.util.spec_from_file_location("tree_sitter_bash._binding", f"{folder[0]}/_binding{suffix}")
            if spec is not None and spec.origin and _exists(spec.origin):
                binding = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(binding)
                break
    if binding is None:
        import tree_sitter_bash

        return tree_sitter_bash.language()
    return binding.language()


def _exists(path: str) -> bool:
    import os

    return os.path.isfile(path)


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

    def __init__(self, lines: LineIndex, problems: list, context: str = "shell", make_launch=None, include=None):
        self.lines, self.problems, self.context = lines, problems, context
        self.include = include  # sourced.Includes: reads `source FILE` (None: no file, sourced values unknown)
        self.make_launch = make_launch or (lambda argv, env: Launch(tuple(argv), env, context))
        self.launches: list[Launch] = []
        self.capture: list | None = None  # set: collect each command's words instead of running it
        self.array_budget = shell_arrays.WORD_BUDGET
        self.budget = Budget.current()  # the file's reading budgets (sources/budget.py), shared with sourced files
        self.depth = 0
        self.placeholders: list[tuple[str, Span]] = []  # documentation placeholders read as unknown
        self.sourced: list[tuple[str, Span]] = []  # `source FILE` paths so far (Launch.sourced)
        # heredoc bodies fed to a command as data (`kubectl apply -f - <<EOF`, `cat > cfg.yaml <<EOF`): their
        # (first line, last line, command), so a launch written inside one is listed with that reason (coverage)
        self.data_heredocs: list[tuple[int, int, str]] = []
        self.unread: list = []  # sources.launch.Unread from the manifests read in heredocs (heredoc_manifest.py)
        # heredocs a function `cat`s (its name, the body as fed, the data entry): read when the script pipes the
        # function into `kubectl apply -f -` (heredoc_manifest.function_applied)
        self.function_heredocs: list = []
        # reads a heredoc body applied to a cluster (sources/manifests/heredoc.read), given by the caller: the shell
        # reader imports no manifest reader (they import it); None: such heredocs stay data
        self.manifests = None
        # a script run with positional arguments (`sh x.sh a b`, called.py): its `if` tests decided (conditions.py);
        # `calls`: the hook that reads such a script where `source` is not followed (a Markdown block)
        self.decide_tests = False
        self.calls = None
        # `if` / `case` branches setting variables to literal values (branches.py): collected when a list (a file's
        # read), and the branch a re-read takes at each
        self.forks: list | None = None
        self.forced: dict = {}

    def span(self, lo: int, hi: int):
        return self.lines.span(lo, hi)

    # --- entry ----------------------------------------------------------------------------------------
    def read(self, script: Decoded, env: dict[str, Var], depth: int = 0, allexport: bool = False) -> Variables:
        """Read `script` with variables `env` in effect; returns the variables at its end. After an
        unterminated quote (which swallows the rest of the text) reading resumes on the next line; rows
        tree-sitter cannot parse are blanked and the rest re-read (repair.py)."""
        self.depth = depth
        script = Decoded(shell_comments.blank_comments(script.text), script.map)  # same length: the map fits
        script, found = shell_repair.placeholders(script)
        self.placeholders.extend((p, self.span(*script.map.locate(o, o + 1)[:2])) for p, o in found)
        script = shell_repair.literal_dollars(script)
        script = Decoded(shell_repair.final_continuation(script.text), script.map)
        verdict = shell_repair.BashVerdict(script.text)
        budget = [_MAX_BLANKS]  # re-parses left for the whole script, across the chunks after open quotes
        base, variables = 0, Variables(env)
        variables.allexport = allexport
        for _ in range(_MAX_RECOVERIES):
            chunk = _Chunk(script.text[base:], script.map, base)
            original, where = chunk, self.span(*chunk.locate(0, 0)[:2])
            chunk, tree, errors, blanked = _parse_around_errors(
                chunk, budget, lambda data, where=where: self.budget.parse(_parser(), data, where))
            if tree is None:  # the reading budget is spent (sources/budget.py says so once)
                break
            self._report(original, errors, blanked, verdict, script.text)
            bad_rows = {e.row for e in errors} | blanked
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
        if depth == 0 and self.function_heredocs:
            self.function_manifests(script.text)
        return variables

    def function_manifests(self, text: str) -> None:
        """Each function's `cat <<EOF` body: read as a manifest when the script pipes the function into
        `kubectl apply -f -`, data otherwise."""
        from moecfg.sources.shell import heredoc_manifest as HM

        pending, self.function_heredocs = self.function_heredocs, []
        applied: dict = {}
        for name, header, dec, exported, entry in pending:
            if name not in applied:
                applied[name] = HM.function_applied(name, text)
            if "$" in dec.text and applied[name] == "envsubst":  # filled from the environment of the call: unknown
                applied[name] = None
            if not (applied[name] and self.manifests(self, header, dec, exported)):
                self.data_heredocs.append(entry)

    def _report(self, chunk: _Chunk, errors: list, blanked: set, verdict, text: str) -> None:
        """MC020 only when the unreadable part holds a launch and bash refuses the script too (without bash:
        only an unterminated quote, which tree-sitter and bash read alike)."""
        quote = next((e for e in errors if e.open_quote is not None), None)
        starts = [e.start for e in errors] + [_row_start(chunk.text, r) for r in blanked]
        first = _command_start(chunk.text, min(starts)) if starts else len(chunk.text)
        region = chunk.text[first:]  # bash stops at the error: the command it is in and all after never run
        if not errors and not blanked or not shell_repair.LAUNCHER.search(region):
            return
        accepts = verdict.accepts
        if accepts or (accepts is None and quote is None):
            return
        shown = quote or next((e for e in errors if e.missing), None)
        where = _line_range(text, verdict.line, chunk)
        if shown is not None or where is None and errors:
            shown = shown or errors[0]
            what, fix, a, b = shown.what, shown.fix, shown.start, shown.end
        elif where is not None:
            (a, b), what, fix = where, "bash refuses this script here (`bash -n`)", "fix the syntax of this line"
        else:
            return
        lo, hi, _ = chunk.locate(a, b)
        self.problems.append(Problem(L.SHELL_SYNTAX.code, f"shell syntax: {what}; {fix} (moecfg reads "
                                     "the commands around it)", self.span(lo, hi)))


def _command_start(text: str, offset: int) -> int:
    """Start of the line holding `offset`, moved up over the lines it continues (`\\` at their end)."""
    start = text.rfind("\n", 0, offset) + 1
    while start > 0 and text[:start - 1].rstrip(" \t").endswith("\\"):
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _row_start(text: str, row: int) -> int:
    start = 0
    for _ in range(row):
        start = text.find("\n", start) + 1
        if start == 0:
            return len(text)
    return start


def _line_range(text: str, line: int | None, chunk: _Chunk) -> tuple[int, int] | None:
    """Chunk offsets of bash's error line (1-based in the whole script), when it lies in this chunk."""
    if not line:
        return None
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return None
    end = text.find("\n", start)
    a, b = start - chunk.base, (len(text) if end < 0 else end) - chunk.base
    return (a, max(a, b)) if 0 <= a <= len(chunk.text) else None


_MAX_BLANKS = 30  # re-parses of one script while blanking rows tree-sitter cannot parse
_REPARSE_BYTES = 4 << 20  # and at most this much text re-parsed per chunk (a 2.5 MB installer: once, not 30 times)


def _parse_around_errors(chunk: _Chunk, budget: list[int], parse):
    """(chunk, tree, errors, blanked rows): while tree-sitter reports errors that are not an unterminated quote,
    blank the rows of the innermost errors and parse again, so the commands around them are read. `parse(data)`:
    the reader's budgeted parse; tree None when the budget is spent."""
    blanked: set[int] = set()
    reparsed = 0
    while True:
        tree = parse(chunk.data)
        if tree is None:
            return chunk, None, [], blanked
        errors = [_Error(e, chunk) for e in _errors(tree.root_node)]
        if not errors or any(e.open_quote is not None for e in errors):
            return chunk, tree, errors, blanked
        rows = _innermost_rows(tree.root_node, blanked)
        reparsed += len(chunk.data)
        if not rows or budget[0] <= 0 or reparsed > _REPARSE_BYTES:
            return chunk, tree, errors, blanked
        budget[0] -= 1
        blanked |= rows
        chunk = _Chunk(shell_repair.blank_rows(chunk.text, rows), chunk.smap, chunk.base)


def _innermost_rows(root, blanked: set[int]) -> set[int]:
    """For each error that holds no other error (the token tree-sitter could not fit, not the statement around
    it), its first row not blanked yet: a whole-file error is blanked row by row from its start."""
    rows = set()
    stack = [root]
    while stack:
        n = stack.pop()
        inner = [c for c in n.children if c.has_error or c.type == "ERROR" or c.is_missing]
        if inner:
            stack.extend(inner)
        elif n.type == "ERROR" or n.is_missing:
            free = next((r for r in range(n.start_point[0], n.end_point[0] + 1) if r not in blanked), None)
            if free is not None:
                rows.add(free)
    return rows


class _Error:
    """A syntax error: what it is and where (chunk chars); `open_quote`: where an unterminated quote opens."""

    def __init__(self, node, chunk: _Chunk):
        origin = node.parent if node.is_missing and node.parent is not None else node
        a, b = chunk.node_range(origin)
        self.row = node.start_point[0]
        self.missing = node.is_missing
        self.open_quote = _open_quote(chunk.text, a, b) if b >= len(chunk.text.rstrip()) else None
        if self.open_quote is not None:
            q = chunk.text[self.open_quote]
            kind = {"'": "single quote", '"': "double quote"}.get(q, "backquote")
            self.what = f"unterminated {kind}: the shell reads to the end of the script looking for the closing {q} " \
                        "and refuses to run it"
            self.fix = f"close the {kind}"
            self.start, self.end = self.open_quote, self.open_quote + 1
            self.row = chunk.text.count("\n", 0, self.open_quote)
            return
        line_end = chunk.text.find("\n", a, b)
        self.start, self.end = a, b if line_end < 0 else line_end
        text = chunk.text[self.start:self.end].strip()
        if node.is_missing:
            self.what, self.fix = f"missing `{node.type}` to end `{text[:30]}`", f"add the `{node.type}`"
        else:
            self.what, self.fix = f"the shell cannot parse `{text[:30]}`", "fix the syntax here"


def _join(a, b) -> tuple[int, int, int, int]:
    return a.line, a.column, b.end_line, b.end_column


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


class _Walk(Words):
    """Statements in order; variables change as the shell would change them."""

    def __init__(self, reader: ShellReader, chunk: _Chunk, variables: dict, bad_rows: set):
        self.r, self.c, self.vars, self.bad_rows = reader, chunk, variables, bad_rows
        self.heredoc = None  # (body node, quoted) of the heredoc fed to the command being read
        self.heredoc_header = ""  # the command's text before that body (`cat <<EOF | kubectl apply -f -`)
        self.function = None  # the name of the function whose body is being read

    def statements(self, node) -> None:
        stack = [node]
        while stack and not self.r.budget.spent:
            n = stack.pop()
            t = n.type
            if t == "ERROR" or t == "heredoc_body" or t == "comment":
                continue
            if t == "command":
                self.command(n)
            elif t in ("variable_assignment", "variable_assignments"):
                if self.r.budget.command(self.node_span(n)):  # statements count as commands (sources/budget.py)
                    self.assignments(n, exported=None)
            elif t == "declaration_command":
                if self.r.budget.command(self.node_span(n)):
                    self.declaration(n)
            elif t == "unset_command":
                self.unset(n)
            elif t in _BRANCHY:
                self.branches(n)
            elif t == "function_definition":
                name = n.child_by_field_name("name")
                outer, self.function = self.function, self.c.node_text(name) if name is not None else None
                try:
                    self.scoped(n)
                finally:
                    self.function = outer
            elif t == "subshell":
                self.scoped(n)
            elif t in ("command_substitution", "process_substitution"):
                continue
            elif t == "redirected_statement" and n.named_children and n.named_children[0].type == "command":
                self.redirected(n)
            else:
                stack.extend(reversed(n.named_children))

    def redirected(self, node) -> None:
        """A command with redirects: a heredoc may be the script it runs (`sbatch <<EOF`)."""
        redirect = next((c for c in node.named_children if c.type == "heredoc_redirect"), None)
        body = next((c for c in redirect.named_children if c.type == "heredoc_body"), None) if redirect else None
        start = next((c for c in redirect.named_children if c.type == "heredoc_start"), None) if redirect else None
        if body is not None and start is not None:
            self.heredoc = (body, any(q in self.c.node_text(start) for q in "'\"\\"))  # <<'EOF': not expanded
            self.heredoc_header = self.c.text[self.c.node_range(node)[0]:self.c.node_range(body)[0]]
        try:
            self.command(node.named_children[0])
        finally:
            self.heredoc = None

    # --- control flow: values set in only some paths become unknown --------------------------------------
    def scoped(self, node) -> None:
        saved = dict(self.vars)
        for child in node.named_children:
            self.statements(child)
        self.vars.restore(saved)

    def branches(self, node) -> None:
        if self.r.decide_tests and node.type == "if_statement":
            from moecfg.sources.shell.conditions import taken
            chosen = taken(self, node)
            if chosen is not None:  # bash runs this branch only
                for child in chosen:
                    self.statements(child)
                return
        if node.type in ("if_statement", "case_statement") and (self.r.forced or self.r.forks is not None):
            from moecfg.sources.shell import branches as shell_branches  # a file's launches may have alternatives
            chosen = shell_branches.forced(self, node, self.r.forced) if self.r.forced else None
            if chosen is not None:  # a re-read taking one branch (branches.py): its values stand
                for child in chosen.statements:
                    self.statements(child)
                return
            found = shell_branches.fork(self, node) if self.r.forks is not None else None
            if found is not None:
                self.r.forks.append(found)
        before = dict(self.vars)
        if node.type in ("for_statement", "c_style_for_statement"):
            var = node.child_by_field_name("variable")
            if var is not None:
                self.vars[self.c.node_text(var)] = Var(None, self.node_span(var))
        for child in node.named_children:
            self.statements(child)
        for name, v in list(self.vars.items()):
            if before.get(name) is not v:
                self.vars[name] = shell_arrays.merge_branch(before.get(name), v)

    # --- assignments ------------------------------------------------------------------------------------
    def node_span(self, node):
        lo, hi, _ = self.c.locate(*self.c.node_range(node))
        return self.r.span(lo, hi)

    def assignment(self, node) -> tuple[str, Var] | None:
        name_node = node.child_by_field_name("name")
        if name_node is not None and name_node.type == "subscript":  # A[3]=x: the array is no longer known
            base = name_node.child_by_field_name("name")
            name = self.c.node_text(base) if base is not None else ""
            old = self.vars.get(name)
            return (name, Var(None, self.node_span(node), bool(old and old.exported))) if name else None
        if name_node is None or name_node.type != "variable_name":
            return None
        name = self.c.node_text(name_node)
        value_node = node.child_by_field_name("value")
        old = self.vars.get(name)
        exported = bool(old and old.exported)
        append = any(c.type == "+=" for c in node.children)
        if value_node is not None and value_node.type == "array":
            items = shell_arrays.elements(self, value_node)
            if append and items is not None:
                prior = shell_arrays.items_of(self, name) if old is not None else None
                big = prior is None or len(prior) + len(items) > shell_arrays.MAX_ELEMENTS
                items = None if big else prior + items
            return name, shell_arrays.array_var(items, self.node_span(node), exported)
        value, partial = "", None
        if value_node is not None:
            words = self.word(value_node, split=False)
            value = words[0].value if words else ""
            known_part = words and value is None and (words[0].script or "").replace(_UNKNOWN, "")
            partial = words[0] if known_part else None  # known in parts: for bash -c "$X"
        if append:
            value = None if value is None or old is None or old.value is None else old.value + value
            if value is None or old.items is not None:  # A+=x on an array appends to element 0
                return name, Var(None, self.node_span(node), exported)
        if not self.r.budget.value_ok(value, self.node_span(node)):  # `A="$A$A"` x 30: unknown past the budget
            value, partial = None, None
        if partial is not None and not self.r.budget.value_ok(partial.script, self.node_span(node)):
            partial = None  # known in parts, and the parts double too: unknown as a whole
        held = words[0].map if value_node is not None and words and value and "\n" in value else None
        return name, Var(value, self.node_span(node), exported=exported, partial=partial, value_map=held)

    def assignments(self, node, exported: bool | None) -> None:
        items = node.named_children if node.type == "variable_assignments" else [node]
        for item in items:
            got = self.assignment(item)
            if got:
                name, var = got
                auto = var.exported or self.vars.allexport
                self.vars[name] = replace(var, exported=auto if exported is None else exported)

    def declaration(self, node) -> None:
        keyword = node.children[0].type if node.children else ""
        flags = "".join(self.c.node_text(c)[1:] for c in node.named_children
                        if c.type == "word" and self.c.node_text(c).startswith("-"))
        exported = keyword == "export" or "x" in flags
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assignments(child, exported or None)
                if set(flags) & _OPAQUE:  # -A assoc, -n nameref, -i integer, -l/-u case: value not read
                    name = child.child_by_field_name("name")
                    if name is not None and name.type == "variable_name":
                        self.forget(self.c.node_text(name), self.node_span(child))
            elif child.type == "variable_name":
                name = self.c.node_text(child)
                old = self.vars.get(name)
                if exported:
                    self.vars[name] = replace(old, exported=True) if old else Var(None, self.node_span(child), True)
                elif "a" in flags and (old is None or keyword == "local"):  # local -a A: a new empty array
                    self.vars[name] = shell_arrays.array_var((), self.node_span(child))
                elif set(flags) & _OPAQUE or keyword == "local" and old is not None:
                    self.forget(name, self.node_span(child))

    def forget(self, name: str, span) -> None:
        old = self.vars.get(name)
        self.vars[name] = Var(None, span, bool(old and old.exported))

    def unset(self, node) -> None:
        kids = node.named_children
        for i, child in enumerate(kids):
            text = self.c.node_text(child).strip("'\"")
            nxt = kids[i + 1] if i + 1 < len(kids) else None
            if "[" in text or nxt is not None and nxt.start_byte == child.end_byte:  # unset 'A[1]': one element
                self.forget(text.split("[", 1)[0], self.node_span(child))
            elif child.type in ("variable_name", "word") and (i == 0 or kids[i - 1].end_byte != child.start_byte):
                self.vars[text] = Var("", self.node_span(child), is_set=False)

    # --- commands ---------------------------------------------------------------------------------------
    def command(self, node) -> None:
        if any(r in self.bad_rows for r in range(node.start_point[0], node.end_point[0] + 1)):
            return
        if not self.r.budget.command(self.node_span(node)):
            return
        prefix: dict[str, EnvEntry] = {}
        argv: list = []
        saved: dict = {}  # `A=1 B=$A cmd`: B sees A, the command's own words do not
        for child in node.named_children:
            t = child.type
            if self.r.budget.spent:  # a command of 100,000 words: not read past the file's budget
                return
            if t == "variable_assignment" and not argv:
                got = self.assignment(child)
                if got:
                    prefix[got[0]] = EnvEntry(got[0], got[1].value, got[1].span)
                    saved.setdefault(got[0], self.vars.get(got[0]))
                    self.vars[got[0]] = got[1]
                continue
            self.unset_prefix(saved)
            if t == "command_name":
                argv.extend(self.word(child.named_children[0] if child.named_children else child))
            elif t not in _REDIRECTS:
                argv.extend(self.word(child))
        self.unset_prefix(saved)
        blank = self.escaped_blank_after(node) if argv else None
        if blank is not None:
            argv.append(blank)
        if self.r.capture is not None:
            self.r.capture.append(argv)
            return
        if argv and argv[0].value == "set":
            self.set_options([w.value or "" for w in argv[1:]])
        if argv and argv[0].value in shell_arrays.READERS:
            for name in shell_arrays.names_read(argv):
                self.forget(name, argv[0].span)
            got = heredoc_read.assigned(self, argv, prefix) if argv[0].value == "read" else None
            if got:  # `read -r -d '' CMD <<'EOF'`: the body is CMD's value
                self.vars[got[0]] = got[1]
                self.heredoc = None
        _Command(self, argv, prefix).run()
        if self.heredoc is not None:  # the body was not the script the command runs: data
            span = self.node_span(self.heredoc[0])
            shown = argv[0].value.rsplit("/", 1)[-1] if argv and argv[0].value else "a command"
            entry = (span.line, span.end_line, shown[:40])
            if not self.manifest(argv, entry):
                self.r.data_heredocs.append(entry)

    def manifest(self, argv: list, entry: tuple) -> bool:
        """A heredoc applied to a cluster, read as the YAML it is (heredoc_manifest.py); a function's `cat <<EOF`
        waits for the end of the script (is the function piped into `kubectl apply -f -`?)."""
        from moecfg.sources.shell import heredoc_manifest as HM

        command = argv[0].value if argv else None
        if self.r.manifests is None or not HM.feeds(command):
            return False
        header = self.heredoc_header
        applied = HM.applies(header)
        if not applied and not (self.function and command.rsplit("/", 1)[-1] == "cat" and len(argv) == 1
                                and "|" not in header and ">" not in header.replace("<<", "")):
            return False
        w = self.heredoc_body(*self.heredoc)
        dec = Decoded(w.script, w.map)
        if len(dec.text) != dec.map.length:
            return False
        if applied:
            return self.r.manifests(self.r, header, dec, self.vars.exported)
        if not self.heredoc[1] and w.expanded:  # expanded when the function runs, with the values of that moment
            return False
        self.r.function_heredocs.append((self.function, header, dec, dict(self.vars.exported), entry))
        return True

    def escaped_blank_after(self, node):
        """`cmd -g gb300 \\ ` with a blank after the backslash: bash's last word is that blank and the newline ends the
        command (NVIDIA-NeMo/Megatron-Bridge@067f987 scripts/performance/README.md:78); tree-sitter drops the word."""
        a, b = self.c.node_range(node)
        m = _ESCAPED_BLANK.match(self.c.text, b)
        if m is None:
            return None
        w = _W()
        self.literal(m.start(1), m.end(1), w, "unquoted")
        lo, hi, exact = self.c.locate(m.start(1), m.end(1))
        return Built(w.value, w.map, self.r.span(lo, hi), exact, w.script)

    def unset_prefix(self, saved: dict) -> None:
        for name, old in saved.items():
            if old is None:
                self.vars.pop(name, None)
                self.vars.exported.pop(name, None)
            else:
                self.vars[name] = old
        saved.clear()

    def set_options(self, args: list[str]) -> None:
        """`set -a` / `set -o allexport` (and `+a`): later assignments are exported."""
        for i, arg in enumerate(args):
            on = arg[:1] == "-"
            if arg[:1] in "-+" and arg[1:2] != "o" and "a" in arg[1:]:
                self.vars.allexport = on
            elif arg in ("-o", "+o") and i + 1 < len(args) and args[i + 1] == "allexport":
                self.vars.allexport = on

    def source(self, argv: list) -> None:
        """`source FILE` / `. FILE`: its assignments and exports, read through the engine's hook; a file that
        cannot be read makes every variable it could set unknown from here on (MC023 says so)."""
        span = Span(*_join(argv[0].span, argv[min(len(argv), 2) - 1].span))
        path = argv[1].value if len(argv) > 1 else None
        if len(argv) > 1 and (path or argv[1].script):
            self.r.sourced.append((path or argv[1].script, span))
        names = sourced.installed_script_names(argv[1].script or "") if len(argv) == 2 else None
        if names is not None:  # a venv's activate, CANN's set_env.sh: only their own names change
            for name in [n for n in self.vars if sourced.may_set(names, n)]:
                self.vars[name] = Var(None, span, self.vars[name].exported)
            return
        got = self.r.include.enter(path) if self.r.include is not None and path else None
        if got is None:
            for name, var in list(self.vars.items()):
                self.vars[name] = Var(None, span, var.exported)
            self.r.problems.append(Problem(L.VALUE_UNKNOWN.code, f"`{argv[0].value} {path or '...'}`: the sourced file "
                                           "is not read (a path known only at run time, missing, outside the script's "
                                           "folder, or already being read), so every variable after it is unknown; "
                                           "set the values in this script or keep the file next to it", span,
                                           about_launch=True))
            return
        key, text = got
        fresh = self.r.budget.spent is None and self.r.budget.value_capped is None
        try:
            sub = ShellReader(LineIndex(text), [], self.r.context, include=self.r.include)
            sub.array_budget, sub.budget = self.r.array_budget, self.r.budget
            result = sub.read(Decoded(text, SourceMap.identity(len(text))), dict(self.vars), self.r.depth + 1,
                              self.vars.allexport)
        finally:
            self.r.include.leave(key)
            if fresh:  # a budget spent inside the sourced file is reported at this `source` line of the script
                self.r.budget.relocate(span)
        self.r.array_budget = sub.array_budget
        self.r.sourced.extend(sub.sourced)
        for name, var in result.items():
            if self.vars.get(name) is not var:
                self.vars[name] = shell_arrays.respan(var, span)
        self.vars.allexport = result.allexport

    def environment(self, prefix: dict[str, EnvEntry], clear: bool = False) -> dict[str, EnvEntry]:
        env = {} if clear else dict(self.vars.exported)
        env.update(prefix)
        return env

    # --- words ------------------------------------------------------------------------------------------


_SCRIPT_OPTS = re.compile(r"^-[a-zA-Z]*c[a-zA-Z]*$")


def _shell_after_unknown_prefix(argv: list) -> int | None:
    """Where `bash -c` starts after a launcher held in an unknown variable and its options (`$SRUN_CMD
    --nodes=2 bash -c "..."`): the first shell word followed by a `-c` option, or None."""
    for j in range(1, len(argv) - 2):
        if (argv[j].value or "").rsplit("/", 1)[-1] in _SHELLS and _SCRIPT_OPTS.match(argv[j + 1].value or ""):
            return j
    return None


def _ray_job_shell(argv: list) -> int | None:
    """`ray job submit [options] -- bash -c "script"`: where the entrypoint's shell starts (Ray runs the words after
    `--` as the job's command), or None. Only a shell entrypoint: a `python ...` one stays the launch it is."""
    words = [w.value for w in argv[:64]]
    if words[1:3] != ["job", "submit"] or "--" not in words:
        return None
    j = words.index("--") + 1
    if j + 1 < len(argv) and (words[j] or "").rsplit("/", 1)[-1] in _SHELLS and _SCRIPT_OPTS.match(words[j + 1] or ""):
        return j
    return None


class _Command:
    """One simple command: strip wrappers (wrappers.py), recurse into `sh -c`, read `source`, emit a Launch."""

    def __init__(self, walk: _Walk, argv: list, prefix: dict):
        self.walk, self.argv = walk, argv
        self.wrap = Stripper(dict(prefix))
        self.prefix = self.wrap.prefix

    def run(self) -> None:
        first = len(self.walk.r.launches)
        self.launch(self.wrap.strip(self.argv))
        if self.wrap.image is not None:  # `docker run IMAGE ...`: every launch read inside runs in that image
            for launch in self.walk.r.launches[first:]:
                launch.image = launch.image or self.wrap.image

    def launch(self, argv: list) -> None:
        if not argv:
            return
        name = argv[0].value.rsplit("/", 1)[-1] if argv[0].value else None
        if name in _SHELLS and self.inline_script(argv) or name in _HEREDOC_RUNNERS and self.heredoc_script(argv):
            return
        if name in _SHELLS and len(argv) > 2 and len(self.argv) == len(argv):
            from moecfg.sources.shell.called import read_called
            if read_called(self, argv):  # `sh run_mcore_qwen3.sh dlc A3B ...`: the script with its arguments
                return
        shell_at = _shell_after_unknown_prefix(argv) if name is None else _ray_job_shell(argv) if name == "ray" else None
        if shell_at is not None and self.inline_script(argv[shell_at:]):
            return  # `$SRUN_CMD --nodes=2 bash -c "$CMD"`: a launcher prefix held in a variable, then its script
        if name == "eval" and len(argv) > 1 and self.eval_script(argv[1:]):
            return
        if name in ("source", ".") and len(self.argv) == len(argv):
            self.walk.source(argv)
        env = self.walk.environment(self.prefix, self.wrap.clear)
        if self.wrap.passed:  # docker run -e NAME: the host's NAME, when the script knows it
            host = self.walk.environment({}, False)
            env.update({n: host[n] for n in self.wrap.passed if n in host and n not in env})
        for removed in self.wrap.removed:
            env.pop(removed, None)
        if self.wrap.env_file is not None:  # any name the file sets is in the container: unknown, never a default
            word, name = self.wrap.env_file
            env = OpenEnv(env, word.span, f"`docker run --env-file {name}` (not read)")
        launch = self.walk.r.make_launch([b.word() for b in argv], env)
        launch.sourced = tuple(self.walk.r.sourced)
        self.walk.r.launches.append(launch)

    def inline_script(self, argv: list) -> bool:
        """`bash -c 'script'`: read the script with this command's environment (depth-limited)."""
        i, has_c = 1, False
        while i < len(argv) and argv[i].value and argv[i].value[:1] in "-+" and argv[i].value != "--":
            has_c = has_c or bool(_SCRIPT_OPTS.match(argv[i].value))
            i += 1 + (argv[i].value in ("-o", "+o", "-O", "+O"))
        if has_c and i < len(argv) - 1 and argv[i].value == "--":  # `bash -c -- 'script'`: `--` ends the options
            i += 1
        if not has_c or i >= len(argv):
            return False
        script = argv[i]
        return self.read_inner(script.value if script.value is not None else script.script, script.map)

    def eval_script(self, args: list) -> bool:
        """`eval "$CMD"` / `eval $CMD`: bash joins the arguments with blanks and runs the result as a script."""
        parts, smap = [], SourceMap()
        for i, w in enumerate(args):
            text = w.value if w.value is not None else w.script
            if text is None or w.map.length != len(text):
                return False
            if i:
                parts.append(" ")
                smap.extend(w.map.slice(0, min(1, w.map.length)).whole(1))
            parts.append(text)
            smap.extend(w.map)
        return self.read_inner("".join(parts), smap)

    def heredoc_script(self, argv: list) -> bool:
        """`sbatch <<EOF` / `bash <<EOF` (no script operand): the body, expanded by this shell unless the
        delimiter is quoted, is the script that runs."""
        heredoc = self.walk.heredoc
        shell = argv[0].value.rsplit("/", 1)[-1] in _SHELLS
        if heredoc is None or shell and any(not (w.value or "-").startswith("-") or w.value == "-c" for w in argv[1:]):
            return False
        w = self.walk.heredoc_body(*heredoc)
        if not self.read_inner(w.script, w.map):
            return False
        self.walk.heredoc = None  # read as the script it is
        return True

    def read_inner(self, text: str | None, smap) -> bool:
        if text is None or len(text) != smap.length or self.walk.r.depth >= 4:
            return False
        env = {n: Var(e.value, e.span, exported=True) for n, e in self.walk.environment(self.prefix,
                                                                                       self.wrap.clear).items()}
        reader = self.walk.r
        depth = reader.depth
        reader.read(Decoded(text, smap), env, depth + 1)
        reader.depth = depth
        return True
