"""Bash indexed arrays: `A=(w ...)`, `A+=(w ...)`, `declare -a` / `local -a`, and their expansions
`"${A[@]}"` / `${A[@]}` / `${A[*]}` / `${A[n]}` / `${#A[@]}`.

An array is kept as the tuple of its elements, each a `Built` word with its own source map, so a flag
written inside `MOE_ARGS=(...)` keeps its exact line and column when `"${MOE_ARGS[@]}"` puts it in a
command. An element the script cannot know is a `Built` with value None (an unknown word); an array
extended in only some branches keeps the elements it had before plus one unknown word ("maybe more").
Any other form (`A[3]=x`, `declare -A`, `${A[@]:1}`, `${!A[@]}`, `[k]=v` elements) makes the array or the
word unknown, never guessed.
"""
from __future__ import annotations

import re

from moecfg.core.record import replace
from moecfg.sources.shell.values import _UNKNOWN, Built, Var
from moecfg.sources.textmap import SourceMap

_SUBSCRIPTED = re.compile(r"\[[^\]]{0,256}\]\+?=")  # ([k]=v): an element with an explicit index
MAX_ELEMENTS = 10_000  # an array this long is not a launch's argument list; beyond it the array is unknown
WORD_BUDGET = 1_000_000  # words all `${A[@]}` of one script may produce; beyond it each is one unknown word


def array_var(items: tuple | None, span, exported: bool = False) -> Var:
    """A Var holding `items` (None: an unknown array); `$A` is element 0."""
    if items is None:
        return Var(None, span, exported)
    value = "" if not items else items[0].value
    return Var(value, span, exported, items=items)


def elements(walk, node) -> tuple | None:
    """The elements of an `( ... )` array node, each word expanded as the shell does (unquoted
    expansions split); None for an associative or indexed `[k]=v` form."""
    out: list = []
    for child in node.named_children:
        if child.type == "comment":
            continue
        if child.type == "concatenation" and _SUBSCRIPTED.match(walk.c.node_text(child)):
            return None  # ([k]=v ...): associative or sparse, not read
        out.extend(walk.word(child))
        if len(out) > MAX_ELEMENTS:
            return None
    return tuple(out)


def ref(walk, node) -> tuple[str, str, str] | None:
    """(form, name, index) of an `${A[...]}` expansion: form "all" (`${A[@]}` / `${A[*]}`), "count"
    (`${#A[@]}`), "one" (`${A[n]}`); None for any other form (slices, `${!A[@]}`, operators)."""
    if node.type != "expansion":
        return None
    kids = [c for c in node.children if c.type not in ("${", "}")]
    count = bool(kids) and kids[0].type == "#"
    if count:
        kids = kids[1:]
    if len(kids) != 1 or kids[0].type != "subscript":
        return None
    sub = kids[0]
    name = sub.child_by_field_name("name")
    index = sub.child_by_field_name("index")
    if name is None or index is None or name.type != "variable_name":
        return None
    text = walk.c.node_text(index)
    if text in ("@", "*"):
        return ("count" if count else "all"), walk.c.node_text(name), text
    if count or not text.isdigit():
        return None
    return "one", walk.c.node_text(name), text


def items_of(walk, name: str) -> tuple | None:
    var = walk.lookup(name)
    if var is None:
        return None
    if var.items is not None:
        return var.items
    if var.value is None:
        return None
    return () if not var.is_set else (Built(var.value, SourceMap(), var.span, False),)  # a scalar is element 0


def scalar(walk, node) -> tuple[bool, str | None]:
    """(handled, value) of an array expansion in a one-word context (inside "...", an assignment)."""
    got = ref(walk, node)
    if got is None:
        kids = [c for c in node.children if c.type not in ("${", "}", "$", "#", "!")]
        return bool(kids) and kids[0].type == "subscript", None
    form, name, index = got
    items = items_of(walk, name)
    if items is None or form != "one" and any(b.value is None for b in items):
        return True, None
    if form == "count":
        return True, str(len(items))
    if form == "one":
        i = _index(index)
        if i is None:  # `${A[²]}`, `${A[99999999999999999999]}`: bash's own arithmetic, not followed here
            return True, None
        return True, (items[i].value if 0 <= i < len(items) else "")
    return True, " ".join(b.value for b in items)


def joined_script(walk, node) -> Built | None:
    """`${A[@]}` / `${A[*]}` in one word with some elements unknown: the elements joined by blanks, each unknown
    one as an unknown reference, each with its own map (so a `bash -c "... ${A[@]}"` script still reads the
    known ones, at their places in the array assignment)."""
    got = ref(walk, node)
    items = items_of(walk, got[1]) if got is not None and got[0] == "all" else None
    if not items or len(items) > walk.r.array_budget:
        return None
    walk.r.array_budget -= len(items)
    from moecfg.sources.budget import VALUE_CHARS

    pieces = [b.value if b.value is not None else b.script or _UNKNOWN for b in items]
    if sum(map(len, pieces)) + len(pieces) > VALUE_CHARS:  # `B="${A[*]}${A[*]}"; A=("$B" "$B")` doubles it
        walk.r.budget.value_ok(" " * (VALUE_CHARS + 1), walk.node_span(node))  # the MC023 of a value's budget
        return None
    here = walk.c.map_of(*walk.c.node_range(node))
    parts, smap = [], SourceMap()
    for i, (b, piece) in enumerate(zip(items, pieces)):
        if i:
            parts.append(" ")
            smap.extend(here.whole(1))
        parts.append(piece)
        smap.extend(b.map if b.map.length == len(piece) else here.whole(len(piece)))
    return Built(None, smap, walk.node_span(node), False, "".join(parts))


def whole_word(walk, node) -> list | None:
    """The words of an argument that is exactly `${A[@]}`, `${A[*]}` or `"${A[@]}"`: each element keeps its own
    position; unquoted, elements are split at blanks (as bash does). None: not such an argument."""
    quoted = node.type == "string"
    if quoted:
        kids = node.named_children
        if len(kids) != 1 or walk.c.node_text(node) != '"' + walk.c.node_text(kids[0]) + '"':
            return None
        node = kids[0]
    got = ref(walk, node)
    if got is None or got[0] != "all" or quoted and got[2] == "*":
        return None
    items = items_of(walk, got[1])
    if items is None or len(items) > walk.r.array_budget:
        return [Built(None, SourceMap(), walk.node_span(node), False)]
    walk.r.array_budget -= len(items)
    if quoted:
        return list(items)
    out: list = []
    for b in items:
        out.extend(split_built(b, walk.r) if b.value and any(c in " \t\n" for c in b.value) else [b] if b.value != ""
                   else [])
    return out


def split_built(b: Built, reader) -> list:
    """An element with blanks, expanded unquoted: one word per blank-separated piece, each with its own map."""
    out, start, value = [], None, b.value
    for i, ch in enumerate(value + " "):
        blank = ch in " \t\n"
        if blank and start is not None:
            if b.map.length == len(value):
                m = b.map.slice(start, i)
                lo, hi, exact = m.locate(0, m.length)
                out.append(Built(value[start:i], m, reader.span(lo, hi), exact and b.exact))
            else:
                out.append(Built(value[start:i], b.map, b.span, False))
            start = None
        elif not blank and start is None:
            start = i
    return out


def merge_branch(before: Var | None, after: Var) -> Var:
    """After an `if` / `case` / loop: an array only appended to keeps its earlier elements plus one unknown
    word (it may hold more); anything else is unknown."""
    if before is not None and before.items is not None and after.items is not None \
            and len(after.items) > len(before.items) and all(x is y for x, y in zip(before.items, after.items)):
        more = Built(None, SourceMap(), after.span, False)
        return array_var(before.items + (more,), after.span, after.exported)
    return replace(after, value=None, items=None, partial=None)


def respan(var: Var, span) -> Var:
    """A variable set by a sourced file: its positions are in that file, so point at the `source` command."""
    items = None if var.items is None else tuple(Built(b.value, SourceMap(), span, False) for b in var.items)
    return replace(var, span=span, items=items, partial=None)


# Builtins that set variables from input at run time: (options taking a value, the option naming an array,
# the default name when none is given). `read -a A`, `mapfile -t A < f`, `printf -v X ...`: unknown afterwards.
READERS = {
    "read": ("-a -d -i -n -N -p -t -u", "-a", "REPLY"),
    "mapfile": ("-d -n -O -s -u -C -c", "", "MAPFILE"),
    "readarray": ("-d -n -O -s -u -C -c", "", "MAPFILE"),
    "printf": ("", "-v", ""),
}


def names_read(argv: list) -> list[str]:
    """The variables `read` / `mapfile` / `printf -v` set (only their names are known, never their values)."""
    values, named, default = READERS[argv[0].value]
    out, i, values = [], 1, values.split()
    while i < len(argv) and (argv[i].value or "").startswith("-") and argv[i].value != "--":
        if argv[i].value == named and i + 1 < len(argv):
            out.append(argv[i + 1].value)
        i += 2 if argv[i].value in values or argv[i].value == named else 1
    rest = [w.value for w in argv[i + (i < len(argv) and argv[i].value == "--"):]]
    if argv[0].value == "printf":
        return [n for n in out if n]
    names = rest if argv[0].value == "read" else rest[:1]
    return [n for n in out + names if n] or [default]


def _index(text: str) -> int | None:
    """An array index of plain ASCII digits, at most 9 of them (an index past that is no launch's)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else None
