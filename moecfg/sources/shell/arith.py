"""Bash arithmetic (`$(( ... ))`) evaluated as bash does, bounded, or unknown (None) — never an exception.

The expression text arrives with its `$X` / `${X}` expansions already substituted (bash expands them before
evaluating). Bash semantics kept: 64-bit signed integers that wrap around; all operators of the bash manual's
"Shell Arithmetic" with its precedence (unary minus binds tighter than `**`, which is right-associative;
`?:`, `,`, `&&`/`||` short-circuit); constants in decimal, `0x` hex, leading-0 octal and `BASE#DIGITS` (2-64);
a bare name is a variable whose value is itself evaluated as an expression. Unknown instead of a value: a
variable the script does not set, an assignment or `++`/`--` (they change variables moecfg then cannot
follow), division by zero, a negative exponent, a shift past 63 bits, a constant past 19 digits, more than
MAX_TEXT characters or MAX_DEPTH levels of nesting (bash itself refuses 1024).
"""
from __future__ import annotations

import re

MAX_TEXT = 4096
MAX_DEPTH = 64
MAX_VAR_DEPTH = 8  # a variable whose value names a variable whose value ...
_MASK = (1 << 64) - 1

_TOKEN = re.compile(r"\s*(?:(?P<num>[0-9][0-9A-Za-z@_#]*)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|"
                    r"(?P<op>\*\*=?|<<=?|>>=?|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&^|]=|[-+*/%<>&^|!~?:,=()]))")
_BINARY = {  # operator -> (precedence, right-associative)
    ",": (1, False), "?": (3, True), "||": (4, False), "&&": (5, False), "|": (6, False), "^": (7, False),
    "&": (8, False), "==": (9, False), "!=": (9, False), "<": (10, False), ">": (10, False), "<=": (10, False),
    ">=": (10, False), "<<": (11, False), ">>": (11, False), "+": (12, False), "-": (12, False), "*": (13, False),
    "/": (13, False), "%": (13, False), "**": (14, True),
}
_ASSIGN = frozenset(("=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|=", "**=", "++", "--"))


class Unknown(Exception):
    """The value cannot be known statically (or bash itself stops with an error)."""


def _wrap(n: int) -> int:
    n &= _MASK
    return n - (1 << 64) if n >> 63 else n


def evaluate(text: str, lookup) -> int | None:
    """The value of arithmetic expression `text`; `lookup(name) -> str | None` gives a variable's value (None:
    unknown). None when unknown."""
    try:
        return _Parser(text, lookup, 0).whole()
    except (Unknown, RecursionError):
        return None


def constant(text: str) -> int:
    """A bash integer constant (10, 0x1f, 017, 2#101, 64#@_); Unknown if invalid or past 19 digits."""
    if len(text) > 70:
        raise Unknown
    base, digits = 10, text
    if "#" in text:
        b, _, digits = text.partition("#")
        if not b.isdigit() or not 2 <= int(b) <= 64 or not digits:
            raise Unknown
        base = int(b)
    elif text[:2] in ("0x", "0X"):
        base, digits = 16, text[2:]
    elif len(text) > 1 and text[0] == "0":
        base, digits = 8, text[1:]
    if base == 10 and len(digits) > 19:
        raise Unknown
    value = 0
    for ch in digits:
        d = _digit(ch, base)
        if d is None:
            raise Unknown
        value = value * base + d
        if value.bit_length() > 64:
            raise Unknown
    return _wrap(value)


def _digit(ch: str, base: int) -> int | None:
    if ch.isdigit() and ch.isascii():
        d = int(ch)
    elif "a" <= ch <= "z":
        d = ord(ch) - 87
    elif "A" <= ch <= "Z":
        d = ord(ch) - 55 if base <= 36 else ord(ch) - 29
    elif ch == "@":
        d = 62
    elif ch == "_":
        d = 63
    else:
        return None
    return d if d < base else None


class _Parser:
    def __init__(self, text: str, lookup, var_depth: int):
        if len(text) > MAX_TEXT:
            raise Unknown
        self.tokens = self._tokens(text)
        self.i, self.lookup, self.var_depth = 0, lookup, var_depth

    @staticmethod
    def _tokens(text: str) -> list[tuple[str, str]]:
        out, pos = [], 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None:
                raise Unknown
            kind = m.lastgroup or ""
            out.append((kind, m.group(kind)))
            pos = m.end()
        return out

    def whole(self) -> int:
        if not self.tokens:
            return 0  # `$(( ))` is 0 in bash
        value = self.expr(0, 0)
        if self.i != len(self.tokens):
            raise Unknown
        return value

    def peek(self) -> str | None:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise Unknown
        self.i += 1
        return self.tokens[self.i - 1]

    def expr(self, min_prec: int, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise Unknown
        left = self.unary(depth + 1)
        while True:
            op = self.peek()
            if op in _ASSIGN:
                raise Unknown
            if op not in _BINARY or _BINARY[op][0] < min_prec:
                return left
            prec, right_assoc = _BINARY[op]
            self.i += 1
            if op == "?":
                yes = self.expr(1, depth + 1)
                if self.take()[1] != ":":
                    raise Unknown
                no = self.expr(prec, depth + 1)
                left = yes if left else no
                continue
            right = self.expr(prec if right_assoc else prec + 1, depth + 1)
            left = _apply(op, left, right)

    def unary(self, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise Unknown
        kind, tok = self.take()
        if tok in ("++", "--"):
            raise Unknown
        if tok in ("-", "+", "!", "~"):
            v = self.unary(depth + 1)
            return {"-": _wrap(-v), "+": v, "!": int(v == 0), "~": _wrap(~v)}[tok]
        if tok == "(":
            v = self.expr(0, depth + 1)
            if self.take()[1] != ")":
                raise Unknown
            return v
        if kind == "num":
            return constant(tok)
        if kind == "name":
            if self.peek() in ("++", "--"):
                raise Unknown
            return self.variable(tok)
        raise Unknown

    def variable(self, name: str) -> int:
        text = self.lookup(name)
        if text is None or self.var_depth >= MAX_VAR_DEPTH:
            raise Unknown
        if not text.strip():
            return 0  # set but empty: 0 in bash
        return _Parser(text, self.lookup, self.var_depth + 1).whole()


def _apply(op: str, a: int, b: int) -> int:
    if op in ("/", "%"):
        if b == 0 or (a == -(1 << 63) and b == -1):
            raise Unknown  # bash: "division by 0"; INT64_MIN / -1 traps in C
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
        return _wrap(q) if op == "/" else _wrap(a - b * q)
    if op == "**":
        if b < 0:
            raise Unknown  # bash: "exponent less than 0"
        return _wrap(pow(a, b, 1 << 64))
    if op in ("<<", ">>"):
        if not 0 <= b <= 63:
            raise Unknown  # C leaves it undefined; bash's result depends on the CPU
        return _wrap(a << b) if op == "<<" else a >> b
    return {
        "+": lambda: _wrap(a + b), "-": lambda: _wrap(a - b), "*": lambda: _wrap(a * b),
        "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
        "==": lambda: int(a == b), "!=": lambda: int(a != b), "&": lambda: a & b, "|": lambda: a | b,
        "^": lambda: a ^ b, "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
        ",": lambda: b,
    }[op]()
