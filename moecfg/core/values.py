"""The typed value layer (the ground: presets read config.json numbers with it, frameworks read launch values): every value read from a launch (a flag, an environment variable, a key of a JSON flag,
a config.json size) is parsed here, once, into an int, a finite float or a checked JSON shape, or into None with
the reason. Rules and formulas receive only these values, so no text of a launch raises inside them.

- Integers are read as the framework reads them (Python's `int()`: blanks, a sign, `_`, Unicode digits), capped
  at 19 digits (a 64-bit size; Python itself refuses past 4,300 digits). A framework size has far fewer digits,
  so a longer one is unknown to moecfg (MC023), never a crash or a minute of arithmetic.
- Floats are finite (`nan`, `inf`, `1e400` are not a fraction or a size).
- JSON is size- and depth-capped; a number it holds that is not a 64-bit int or a finite float becomes an
  `OddNumber` (no arithmetic, no comparison: the rules that need a number see none).
"""
from __future__ import annotations

import math

MAX_DIGITS = 19
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
MAX_JSON = 1 << 20  # characters of a JSON flag or config.json (a real one is a few KiB)
MAX_TEXT = 64  # characters of a number as written (digits, sign, blanks, `_`)


class OddNumber:
    """A JSON number moecfg does not compute with (past 64 bits, not finite); shown as written, clipped."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text if len(self.text) <= 24 else f"{self.text[:12]}...({len(self.text)} characters)"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return isinstance(other, OddNumber) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def integer(value) -> int | None:
    """`value` (text, or an int from JSON) as the 64-bit int the framework's int() reads; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if INT64_MIN <= value <= INT64_MAX else None
    if not isinstance(value, str) or len(value) > MAX_TEXT or "\x00" in value:
        return None
    if sum(c.isdigit() for c in value) > MAX_DIGITS:
        return None
    try:
        number = int(value)
    except ValueError:
        return None
    return number if INT64_MIN <= number <= INT64_MAX else None


def at_least(value, lo: int) -> int | None:
    """An integer >= lo, else None."""
    n = integer(value)
    return n if n is not None and n >= lo else None


def finite(value) -> float | None:
    """`value` as a finite float (Python's float()), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        value = integer(value)
        return float(value) if value is not None else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, str) or len(value) > MAX_TEXT or "\x00" in value:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def parse(kind, text: str):
    """`kind(text)` through this layer (kind: int or float); raises ValueError like the framework's parser."""
    value = integer(text) if kind is int else finite(text) if kind is float else kind(text)
    if value is None:
        raise ValueError(text)
    return value


def why_not(text, lo: int | None = None) -> str:
    """Why `text` is no integer (>= lo) a framework size can be: the words for a message."""
    shown = repr(clipped(text))
    if isinstance(text, str) and sum(c.isdigit() for c in text) > MAX_DIGITS and integer(text.replace("_", "")) is None:
        return f"{shown} has more than {MAX_DIGITS} digits (no 64-bit size has)"
    n = integer(text)
    if n is None:
        return f"{shown} is not an integer"
    return f"{shown} is below {lo}"


def clipped(text, limit: int = 24) -> str:
    s = text.text if isinstance(text, OddNumber) else str(text)
    return s if len(s) <= limit else f"{s[:12]}...({len(s)} characters)"


class JsonValueError(ValueError):
    pass


def load_json(text: str):
    """json.loads with a size cap, a depth cap and numbers kept computable (OddNumber otherwise). Raises
    JsonValueError with a message that quotes no more than a few characters of `text`."""
    if len(text) > MAX_JSON:
        raise JsonValueError(f"longer than {MAX_JSON >> 10} KiB")
    import json  # only for a JSON flag or a config.json
    try:
        return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=OddNumber)
    except RecursionError:  # json recurses per nesting level: '{"a":' x 50000
        raise JsonValueError("nested too deeply") from None
    except ValueError as exc:
        raise JsonValueError(str(exc)[:200]) from None


def _int(text: str):
    return int(text) if len(text) <= MAX_DIGITS + 1 and integer(text) is not None else OddNumber(text)


def _float(text: str):
    number = float(text)
    return number if math.isfinite(number) else OddNumber(text)


_SHAPE_NAMES = {int: "an integer", str: "a string", bool: "true or false", list: "a list", dict: "an object"}


def shape_problems(data: dict, shapes: dict, flag: str) -> list[str]:
    """Keys of JSON flag `flag` whose value has a shape the framework's config class refuses (shapes: key -> type,
    or key -> nested shapes dict); each is removed from `data`, and its problem returned as words. Only what is
    refused whatever the coercion: a list or object for a scalar, a scalar for a list or object, a number past
    64 bits or not finite for an integer (pydantic's lax mode turns "3" into 3, so a string is not judged)."""
    problems = []
    for key, want in shapes.items():
        if key not in data or data[key] is None:
            continue
        value = data[key]
        if isinstance(want, dict):
            if isinstance(value, dict):
                problems += shape_problems(value, want, f"{flag} {key}")
                continue
            want = dict
        if want in (list, dict):
            wrong = not isinstance(value, want)
        else:
            wrong = isinstance(value, (list, dict)) or want is int and isinstance(value, OddNumber)
        if wrong:
            shown = clipped(value if isinstance(value, (str, OddNumber)) else repr(value), 40)
            problems.append(f"{flag}: `{key}` = {shown} is not {_SHAPE_NAMES.get(want, want.__name__)}")
            del data[key]
    return problems
