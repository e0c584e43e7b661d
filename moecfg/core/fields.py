"""Structural validation of a document against a table of field specs.

One table per kind (and per op) describes every key: type, default, choices and doc. The same table
drives this fast validator (used by `moecfg check`, no pydantic import on that path) and the pydantic
model generated for JSON Schema export, so the two cannot drift.
"""
from __future__ import annotations

import math

from moecfg.core.record import record
from moecfg.core.diagnostics import Finding, clip, shown

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
SUGGEST_LIMIT = 50  # did-you-mean hints for the first unknown keys only (difflib per key on 1 MB of keys: 13 s)
_MISSING = object()


@record(frozen=True, slots=True)
class FieldSpec:
    """One field of a document: name, type, default, allowed values and help."""

    name: str
    type: str  # int | bool | str | float | enum | version | mapping | int_list | env_int
    doc: str = ""
    default: object = None
    required: bool = False
    choices: tuple = ()  # enum: canonical values
    aliases: tuple = ()  # enum: (alias, canonical) pairs, matched case-insensitively
    fields: tuple = ()  # mapping: sub-fields
    open: bool = False  # mapping: unknown sub-keys are reported by the kind, not as errors
    nullable: bool = False  # `key:` (null) means the default
    length: int = 0  # int_list: exact length


def _type_name(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {shown(value)}"
    if isinstance(value, float):
        return f"float {value!r}"
    if isinstance(value, str):
        return f"string {shown(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _hint(value, expected: str) -> str:
    if expected == "an integer":
        if isinstance(value, float) and value.is_integer():
            return f"; write {int(value)} without the decimal point"
        if isinstance(value, str) and _digits(value.strip().lstrip("-")):
            return f"; remove the quotes: {clip(value.strip())}"
        if isinstance(value, bool):
            return " (YAML 1.1 reads yes/no/on/off/true/false as booleans)"
    if expected == "a boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
        return f"; remove the quotes: {value.lower()}"
    return ""


def _finite(value) -> float | None:
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _digits(text: str) -> bool:
    """ASCII digits only: '²'.isdigit() is True but int('²') fails."""
    return text.isascii() and text.isdigit()


def suggest(name: str, candidates) -> str:
    """' (did you mean `x`?)' for a close match, else ''."""
    import difflib

    if len(name) > 100:  # no field name is this long; difflib is quadratic in it
        return ""
    norm = {c.lower().replace("-", "_"): c for c in candidates}
    match = difflib.get_close_matches(name.lower().replace("-", "_"), list(norm), n=1, cutoff=0.6)
    return f" (did you mean `{norm[match[0]]}`?)" if match else ""


class Validator:
    def __init__(self, wrong_type: str, missing: str, unknown: str, invalid: str, too_large: str):
        self.codes = dict(wrong_type=wrong_type, missing=missing, unknown=unknown, invalid=invalid,
                          too_large=too_large)

    def validate(self, data: dict, fields: tuple, path: tuple = (), raw: dict | None = None):
        """Returns (values with defaults, findings, broken). `broken` = a field could not be read."""
        raw = raw or {}
        specs = {f.name: f for f in fields}
        values, findings, broken = {}, [], False
        unknown = 0
        for key in data:
            if key not in specs:
                unknown += 1
                hint = suggest(str(key), specs) if unknown <= SUGGEST_LIMIT else ""
                findings.append(Finding(self.codes["unknown"], path + (key,),
                                        f"unknown key `{clip(key)}`{hint}", at_key=True))
        for spec in fields:
            value = data.get(spec.name, _MISSING)
            if value is _MISSING or (value is None and spec.nullable):
                if spec.required:
                    findings.append(Finding(self.codes["missing"], path,
                                            f"missing required key `{spec.name}` ({spec.doc})" if spec.doc
                                            else f"missing required key `{spec.name}`"))
                    broken = True
                values[spec.name] = spec.default
                continue
            ok, converted, problem = self._convert(spec, value, path + (spec.name,), raw, findings)
            if not ok:
                if problem is not None:
                    findings.append(problem)
                broken = True
            values[spec.name] = converted
        return values, findings, broken

    def _convert(self, spec: FieldSpec, value, path, raw, findings):
        t = spec.type
        label = "/".join(str(p) for p in path)
        if t in ("int", "env_int"):
            if t == "env_int" and isinstance(value, str) and _digits(value.strip()):
                digits = value.strip().lstrip("0") or "0"  # environment variables are strings
                if len(digits) > 20:  # no int() of 5,000 digits (Python refuses past 4,300): too large either way
                    return False, None, Finding(self.codes["too_large"], path,
                                                f"`{label}` = {shown(value)} does not fit a 64-bit integer")
                value = int(digits)
            if isinstance(value, int) and not isinstance(value, bool):
                if not INT64_MIN <= value <= INT64_MAX:
                    return False, None, Finding(self.codes["too_large"], path,
                                                f"`{label}` = {shown(value)} does not fit a 64-bit integer")
                return True, value, None
            return self._wrong(path, label, value, "an integer")
        if t == "bool":
            if isinstance(value, bool):
                return True, value, None
            return self._wrong(path, label, value, "a boolean")
        if t == "float":
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                number = _finite(value)
                if number is None:  # .nan, .inf, or a 400-digit int (float() overflows)
                    return False, None, Finding(self.codes["invalid"], path,
                                                f"`{label}` = {shown(value)} is not a finite number")
                return True, number, None
            return self._wrong(path, label, value, "a number")
        if t == "str":
            if isinstance(value, str):
                return True, value, None
            return self._wrong(path, label, value, "a string")
        if t == "version":
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                return True, str(raw.get(path, value)), None  # source text: 9.10 stays "9.10"
            return self._wrong(path, label, value, "a version string such as 9.0.1")
        if t == "enum":
            if isinstance(value, (int, float)) and path in raw:
                value = raw[path]  # YAML 1.1 reads `product: 910_93` as the integer 91093; match the source text
            return self._enum(spec, value, path, label)
        if t == "int_list":
            ok = (isinstance(value, list) and len(value) == spec.length
                  and all(isinstance(v, int) and not isinstance(v, bool) for v in value))
            if ok:
                return True, tuple(value), None
            return self._wrong(path, label, value, f"a list of {spec.length} integers")
        if t == "mapping":
            if not isinstance(value, dict):
                return self._wrong(path, label, value, "a mapping")
            if spec.open:
                return True, value, None
            sub, sub_findings, broken = self.validate(value, spec.fields, path, raw)
            findings.extend(sub_findings)
            return not broken, sub, None
        raise ValueError(f"unknown field type {t}")

    def _enum(self, spec, value, path, label):
        if isinstance(value, str):
            low = value.strip().lower()
            for c in spec.choices:
                if c.lower() == low:
                    return True, c, None
            for alias, canonical in spec.aliases:
                if alias.lower() == low:
                    return True, canonical, None
        choices = ", ".join(repr(c) for c in spec.choices)
        hint = suggest(value, spec.choices) if isinstance(value, str) else ""
        return False, None, Finding(self.codes["invalid"], path,
                                    f"`{label}` = {shown(value)} is not one of {choices}{hint}")

    def _wrong(self, path, label, value, expected):
        return False, None, Finding(self.codes["wrong_type"], path,
                                    f"`{label}` must be {expected}, got {_type_name(value)}{_hint(value, expected)}")
