"""`if [ $MODEL_SIZE = A3B ]; then ... elif [ ${PP} -gt 1 ]; then ... else ... fi` decided, for a script read with
the arguments it was called with (called.py): bash runs one branch, and with the values known moecfg knows which.

Only a test of one comparison is decided: `[ A = B ]`, `[ A == B ]`, `[ A != B ]`, `[[ A == B ]]` (B without glob
characters), `-eq -ne -gt -ge -lt -le` on integers, each side one word whose value is known, and two of them joined
by `&&` / `||`. Any other condition (a command, `-z`, a glob) leaves the `if` undecided: its branches are merged as before (reader.py).
"""
from __future__ import annotations

_INT_OPS = {"-eq": int.__eq__, "-ne": int.__ne__, "-gt": int.__gt__, "-ge": int.__ge__, "-lt": int.__lt__,
            "-le": int.__le__}
_GLOB = frozenset("*?[")


def taken(walk, node) -> list | None:
    """The statement nodes bash runs for the `if_statement` `node` ([] when no branch runs), or None when a
    condition before the taken branch is not decided."""
    for cond, body in _clauses(node):
        if cond is None:  # else
            return body
        verdict = decide(walk, cond)
        if verdict is None:
            return None
        if verdict:
            return body
    return []


def _clauses(node) -> list[tuple[object | None, list]]:
    out = [_clause(node)]
    for child in node.children:
        if child.type == "elif_clause":
            out.append(_clause(child))
        elif child.type == "else_clause":
            out.append((None, [c for c in child.children if c.is_named]))
    return out


def _clause(node) -> tuple[object | None, list]:
    conditions, body, then = [], [], False
    for child in node.children:
        if child.type == "then":
            then = True
        elif child.type in ("elif_clause", "else_clause", "fi"):
            break
        elif child.is_named and child.type != "comment":
            (body if then else conditions).append(child)
    # `if a; b; then`: the last command decides; more than one: not decided (a marker no test matches)
    return (conditions[0] if len(conditions) == 1 else node), body


def decide(walk, cond) -> bool | None:
    """True / False for a decided test, None otherwise."""
    if cond.type == "list" and len(cond.children) == 3 and cond.children[1].type in ("&&", "||"):
        left = decide(walk, cond.children[0])  # `[ $SP = true ] && [ $TP -gt 1 ]`: bash's short circuit
        if left is None or left == (cond.children[1].type == "||"):
            return left
        return decide(walk, cond.children[2])
    if cond.type != "test_command":
        return None
    inner = [c for c in cond.children if c.is_named]
    if len(inner) != 1 or inner[0].type != "binary_expression" or len(inner[0].children) != 3:
        return None
    left, op, right = inner[0].children
    double = cond.children[0].type == "[["
    a, b, o = _value(walk, left), _value(walk, right, pattern=double), walk.c.node_text(op)
    if a is None or b is None:
        return None
    if o in ("=", "==") or o == "!=":
        if not double and (a == "" or b == ""):
            return None  # `[ = x ]`: bash's error, not a comparison
        return (a == b) == (o != "!=")
    if o in _INT_OPS:
        try:
            return _INT_OPS[o](int(a), int(b))
        except ValueError:
            return None
    return None


def _value(walk, node, pattern: bool = False) -> str | None:
    if node.type in ("extglob_pattern", "regex"):
        text = walk.c.node_text(node)
        return None if _GLOB & set(text) else text
    words = walk.word(node)
    if len(words) != 1 or words[0].value is None:
        return None
    value = words[0].value
    if pattern and node.type not in ("string", "raw_string") and _GLOB & set(value):
        return None
    return value
