"""`if` / `case` branches that only set variables to literal values, read one branch at a time.

A script that picks its settings in a branch (`case "$MODEL_SIZE" in 35B-A3B) RECIPE=qwen35_vl_35b_a3b_sft_config ;;
...`, NVIDIA-NeMo/Megatron-Bridge@067f987 examples/models/qwen/qwen35_vl/slurm_sft.sh:64-101) leaves the variable
unknown after the branch (reader.py: a value set in only some paths is never guessed). Each branch is still a way the
script runs: the file is read again once per branch, with only that branch taken, and a launch whose words differ
gets the branch's launch as an alternative (`Launch.alternatives`, labelled with the branch). The launch itself is
unchanged: a framework that wants the alternatives reads them; the others see what they saw before.

Only a branch made of literal assignments (and `echo` / `printf` / `:`) is read this way; a branch ending in `exit` or
`return` is no way the script goes on. One `if` / `case` per file (the first that matters to a launch), at most
MAX_BRANCHES branches; the file's own read is never changed. The re-reads cost a read each: they are made when a
framework asks for a launch's alternatives (`of(launch)`), not for every script with an `if`.
"""
from __future__ import annotations

MAX_BRANCHES = 16
_LITERAL = {"word", "number", "raw_string"}
_HARMLESS = {"echo", "printf", ":"}
_LEAVE = {"exit", "return"}


class Branch:
    """`label`: `case "$MODEL_SIZE" in 35B-A3B)`, `if [ "$X" = a ]`, `else`; `statements`: the tree-sitter nodes it
    runs. (Plain classes: a script read imports no dataclasses.)"""

    __slots__ = ("label", "statements")

    def __init__(self, label: str, statements: tuple):
        self.label, self.statements = label, statements


class Fork:
    """`key`: (line, column) of the `if` / `case`, the same node in every read of the file; `branches`: the branches
    after which the script goes on."""

    __slots__ = ("key", "branches")

    def __init__(self, key: tuple[int, int], branches: tuple):
        self.key, self.branches = key, branches


def key(walk, node) -> tuple[int, int]:
    span = walk.node_span(node)
    return span.line, span.column


def fork(walk, node) -> Fork | None:
    """The branches of an `if` / `case` that set some variable to different literal values, or None."""
    branches = _case(walk, node) if node.type == "case_statement" else _if(walk, node)
    if branches is None:
        return None
    going_on, values = [], []
    for b in branches:
        got = _assignments(walk, b.statements)
        if got is None:
            return None
        if got is not False:
            going_on.append(b)
            values.append(got)
    if not 2 <= len(going_on) <= MAX_BRANCHES:
        return None
    names = set().union(*values)
    if not any(len({v.get(n) for v in values}) > 1 for n in names):
        return None
    return Fork(key(walk, node), tuple(going_on))


def _text(walk, node) -> str:
    return " ".join(walk.c.node_text(node).split())[:80]


def _case(walk, node) -> list[Branch] | None:
    subject = node.child_by_field_name("value")
    out, default = [], False
    for item in node.named_children:
        if item.type != "case_item":
            continue
        patterns = [item.children[i] for i in range(item.child_count) if item.field_name_for_child(i) == "value"]
        default = default or any(walk.c.node_text(p) == "*" for p in patterns)
        body = tuple(c for c in item.named_children if c not in patterns)
        label = f"case {_text(walk, subject) if subject is not None else '?'} in " \
                f"{'|'.join(_text(walk, p) for p in patterns)})"
        out.append(Branch(label, body))
    if not default:  # no pattern may match: the variables keep their values
        out.append(Branch(f"case {_text(walk, subject) if subject is not None else '?'}: no pattern matches", ()))
    return out


def _if(walk, node) -> list[Branch] | None:
    out, has_else = [], False
    for clause in [node] + [c for c in node.named_children if c.type in ("elif_clause", "else_clause")]:
        conditions = [clause.children[i] for i in range(clause.child_count)
                      if clause.field_name_for_child(i) == "condition" and clause.children[i].is_named]
        if clause.type == "elif_clause":  # its condition is its first named child (no field name)
            conditions = clause.named_children[:1]
        body = tuple(c for c in clause.named_children
                     if c not in conditions and c.type not in ("elif_clause", "else_clause"))
        if clause.type == "else_clause":
            has_else = True
            out.append(Branch("else", body))
        else:
            cond = " ".join(_text(walk, c) for c in conditions)
            out.append(Branch(f"{'if' if clause is node else 'elif'} {cond}", body))
    if not has_else:
        out.append(Branch("no `if` branch taken", ()))
    return out


def _assignments(walk, statements) -> dict | bool | None:
    """name -> literal value of a branch that goes on; False: it leaves (`exit`); None: it does something else."""
    values: dict[str, str] = {}
    for n in statements:
        if n.type == "comment":
            continue
        if n.type == "variable_assignment":
            name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
            literal = _literal(walk, value)
            if name is None or name.type != "variable_name" or literal is None:
                return None
            values[walk.c.node_text(name)] = literal
            continue
        if n.type == "command":
            program = n.child_by_field_name("name")
            word = walk.c.node_text(program) if program is not None else ""
            if word in _LEAVE:
                return False
            if word in _HARMLESS:
                continue
        return None
    return values


def _literal(walk, value) -> str | None:
    if value is None:
        return ""
    if value.type in _LITERAL:
        text = walk.c.node_text(value)
        return text[1:-1] if value.type == "raw_string" else None if "\\" in text or "$" in text else text
    if value.type == "string" and all(c.type == "string_content" for c in value.named_children):
        text = walk.c.node_text(value)[1:-1]
        return None if "\\" in text or "`" in text else text
    return None


def _place(launch) -> tuple:
    """The same command in two reads of the file: the same place, the same words (a copy of the launch too)."""
    return launch.span, tuple(w.value for w in launch.argv)


def alternatives(base: list, read_with, forks: list[Fork]) -> dict:
    """Re-read the file once per branch of the first fork a launch after it depends on (a launch past it with a word
    not known statically that a branch makes known); `read_with(forced)` reads the file with {fork key: branch
    index} and returns its launches. Returns {_place(launch): ((label, that branch's launch), ...)} for each launch
    whose words differ in some branch."""
    out: dict = {}
    for f in forks:
        after = [launch for launch in base if (launch.span.line, launch.span.column) > f.key
                 and any(w.value is None for w in launch.argv)]
        if not after:
            continue
        for i, branch in enumerate(f.branches):
            launches = read_with({f.key: i})
            # the branches' own commands are read in one read only: match by place, not by order
            by_place = {} if launches is None else {(x.span, len(x.argv)): x for x in launches}
            for mine in after:
                theirs = by_place.get((mine.span, len(mine.argv)))
                if theirs is not None and [w.value for w in mine.argv] != [w.value for w in theirs.argv]:
                    label = f"{branch.label} (line {f.key[0]})"
                    out[_place(mine)] = out.get(_place(mine), ()) + ((label, theirs),)
        if out:  # one fork per file: the first the launches depend on
            return out
    return out


class Pending:
    """`Launch.alternatives` before anyone asked: the file is re-read once, for all its launches, on first use.
    Pendings compare equal (two reads of the same text give equal launches)."""

    __slots__ = ("compute", "found")

    def __init__(self, compute):
        self.compute, self.found = compute, None

    def results(self) -> dict:
        if self.found is None:
            self.found = self.compute()
        return self.found

    def __eq__(self, other) -> bool:
        return isinstance(other, Pending)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "Pending()"


def pending(base: list, read_with, forks: list[Fork]) -> None:
    """Each launch of the file gets one shared Pending."""
    marker = Pending(lambda: alternatives(base, read_with, forks))
    for launch in base:
        launch.alternatives = marker


def of(launch) -> tuple:
    """The launch's alternatives: (branch label, launch) pairs, computed on first use (a copy of a launch finds its
    original's by place and words)."""
    got = launch.alternatives
    if isinstance(got, Pending):
        launch.alternatives = got.results().get(_place(launch), ())
    return launch.alternatives


def forced(walk, node, chosen: dict) -> Branch | None:
    """The branch a re-read takes at this `if` / `case`, or None."""
    index = chosen.get(key(walk, node))
    if index is None:
        return None
    f = fork(walk, node)
    return f.branches[index] if f is not None and index < len(f.branches) else None
