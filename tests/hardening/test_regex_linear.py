"""Every regular expression of the package runs in linear time on text a file or a log controls (issue 33, item 1).

The patterns are collected, not listed: every `re.Pattern` held by a module of moecfg (module attributes, and
the ones inside tuples, lists and dicts there), every constant pattern passed to `re.compile/search/match/...`
in the source (found with `ast`), the lazily compiled launch-word patterns, explain-error's rows, and the
patterns built per call (explain-error's knob patterns, `per-path-ignores`).

For each pattern, adversarial texts are generated from its own syntax tree: repeats of each unit (every literal,
a sample of every character class, the body of every repetition, every prefix of every sequence), alone and
after a character the pattern refuses (a "preceding error"), and before one. Each text is searched at growing
sizes; the CPU time from a size to 4x that size must grow like the size, not its square (a generous 10x
against the 16x of a quadratic pattern, above a 3 ms floor where timing noise stops mattering).
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import time
from pathlib import Path

try:  # Python 3.11+
    import re._parser as sre_parse
    from re import _constants as C
except ImportError:  # pragma: no cover (3.10)
    import sre_constants as C
    import sre_parse

import moecfg

ROOT = Path(moecfg.__file__).parent
FLOOR = 0.003  # seconds: below this at the larger size, a ratio is noise
RATIO = 10.0  # 4x the text: linear is ~4x, quadratic ~16x
SIZES = (64, 256, 1024, 4096, 16384)  # characters of repeated unit (the ladder stops once a size takes 3 FLOOR)
_RE_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}
_SKIP_MODULES = ("moecfg.__main__",)


def _import_all() -> list:
    mods = [moecfg]
    for info in pkgutil.walk_packages([str(ROOT)], "moecfg."):
        if info.name.startswith(_SKIP_MODULES):
            continue
        try:
            mods.append(importlib.import_module(info.name))
        except ImportError:  # an optional dependency not installed
            continue
    return mods


def _patterns_held(value, depth: int = 0):
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 2 and isinstance(value, (tuple, list, frozenset, set)):
        for v in value:
            yield from _patterns_held(v, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for v in value.values():
            yield from _patterns_held(v, depth + 1)


def _flags_of(node: ast.Call) -> int:
    flags = 0
    for arg in node.args[1:] + [k.value for k in node.keywords if k.arg == "flags"]:
        for name in ast.walk(arg):
            if isinstance(name, ast.Attribute) and isinstance(name.value, ast.Name) and name.value.id == "re":
                flags |= int(getattr(re, name.attr, 0)) if name.attr in ("M", "S", "I", "X", "MULTILINE",
                                                                          "DOTALL", "IGNORECASE") else 0
    return flags


def _constant_patterns():
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.func.attr in _RE_CALLS and node.args):
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, (str, bytes)):
                flags = _flags_of(node) if node.func.attr in ("compile", "search", "match", "fullmatch",
                                                               "findall", "finditer") else 0
                anchored = node.func.attr in ("match", "fullmatch")
                yield re.compile(first.value, flags), f"{path.relative_to(ROOT)}:{node.lineno}", anchored


def _built_patterns():
    """Patterns built per call: each with sample arguments."""
    from moecfg.explain_error import match as M
    from moecfg.explain_error.patterns import PATTERNS
    from moecfg.sources import framework_words

    from moecfg.sources.documents import classify as documents

    for name in framework_words._PATTERNS:
        yield getattr(framework_words, name), f"framework_words.{name}", False
    yield documents._launcher(), "documents._launcher()", False
    for p in PATTERNS:
        yield re.compile(p.regex), f"explain-error {p.key}", False
        for label, rx in p.values:
            yield re.compile(rx), f"explain-error {p.key} value {label}", False
    for knob in ("HCCL_BUFFSIZE", "--max-num-seqs"):
        yield M._knob_regex(knob), f"explain-error knob {knob}", False


_USE = re.compile(r"\b(\w+)\.(match|fullmatch|search|finditer|findall|sub|subn|split)\(")


def _uses() -> dict:
    """name -> the methods the source calls on it (a pattern only ever `.match`ed runs at one position)."""
    out: dict = {}
    for path in ROOT.rglob("*.py"):
        for m in _USE.finditer(path.read_text(encoding="utf-8")):
            out.setdefault(m.group(1), set()).add(m.group(2))
    return out


def all_patterns() -> dict:
    """(pattern, flags) -> (compiled, where, anchored): `anchored` when the code only matches it at one
    position (`.match` / `.fullmatch`), where it is timed so; else it is timed searching the whole text."""
    found, uses = {}, _uses()
    for mod in _import_all():
        for attr, value in list(vars(mod).items()):
            anchored = isinstance(value, re.Pattern) and bool(uses.get(attr)) and uses[attr] <= {"match", "fullmatch"}
            for rx in _patterns_held(value):
                found.setdefault((rx.pattern, rx.flags), (rx, f"{mod.__name__}.{attr}", anchored))
    for rx, where, anchored in list(_constant_patterns()) + list(_built_patterns()):
        found.setdefault((rx.pattern, rx.flags), (rx, where, anchored))
    return found


# ---- adversarial texts from a pattern's syntax tree ----

_CATEGORY_SAMPLES = {
    C.CATEGORY_DIGIT: "0", C.CATEGORY_NOT_DIGIT: "a", C.CATEGORY_SPACE: " \n\t", C.CATEGORY_NOT_SPACE: "a-",
    C.CATEGORY_WORD: "a_0", C.CATEGORY_NOT_WORD: " -\n", C.CATEGORY_LINEBREAK: "\n",
    C.CATEGORY_NOT_LINEBREAK: "a ",
}
_PROBES = "a0 \n\t_-.:=/{}$\"'`#*x<>[](),;@!~"


def _chars_of(op, av, negate_ok: bool = True) -> str:
    """Characters one item (LITERAL, IN, ANY, CATEGORY) matches: a few samples."""
    if op is C.LITERAL:
        return chr(av)
    if op is C.NOT_LITERAL:
        return "".join(c for c in "a \n" if c != chr(av))[:2]
    if op is C.ANY:
        return "a "
    if op is C.CATEGORY:
        return _CATEGORY_SAMPLES.get(av, "a")
    if op is C.IN:
        rx = re.compile(sre_to_class(av))
        return "".join(c for c in _PROBES if rx.fullmatch(c))[:4] or ""
    return ""


def sre_to_class(items) -> str:
    """Rebuild a character class from its parsed items (to probe which characters it takes)."""
    out, neg = [], False
    for op, av in items:
        if op is C.NEGATE:
            neg = True
        elif op is C.LITERAL:
            out.append(re.escape(chr(av)))
        elif op is C.RANGE:
            out.append(f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}")
        elif op is C.CATEGORY:
            out.append({C.CATEGORY_DIGIT: r"\d", C.CATEGORY_NOT_DIGIT: r"\D", C.CATEGORY_SPACE: r"\s",
                        C.CATEGORY_NOT_SPACE: r"\S", C.CATEGORY_WORD: r"\w", C.CATEGORY_NOT_WORD: r"\W"}.get(av, ""))
    return "[" + ("^" if neg else "") + "".join(out) + "]" if out else ("[^\x00]" if neg else "[\x00]")


def _sample(seq) -> str:
    """One short text a parsed sequence matches (first alternative, minimal repeats of at least one)."""
    out = []
    for op, av in seq:
        if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN, C.CATEGORY):
            out.append(_chars_of(op, av)[:1])
        elif op is C.SUBPATTERN:
            out.append(_sample(av[-1]))
        elif op is C.BRANCH:
            out.append(_sample(av[1][0]))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            lo, _hi, body = av
            out.append(_sample(body) * max(lo, 1))
        elif op is getattr(C, "ATOMIC_GROUP", None):
            out.append(_sample(av))
    return "".join(out)


def units(pattern: str, flags: int) -> set[str]:
    """Every unit worth repeating: literals, class samples, repetition bodies, sequence prefixes."""
    found: set[str] = set()

    def walk(seq):
        prefix = ""
        for i, (op, av) in enumerate(seq):
            piece = _sample([(op, av)])
            prefix += piece
            if prefix and (op is not C.LITERAL or i == len(seq) - 1):  # a word's prefixes: its whole only
                found.add(prefix)
            if op in (C.NOT_LITERAL, C.ANY, C.IN, C.CATEGORY) or op is C.LITERAL and i == 0:
                found.update(_chars_of(op, av))
            elif op is C.SUBPATTERN:
                walk(av[-1])
            elif op is C.BRANCH:
                for alt in av[1]:
                    walk(alt)
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
                body = av[2]
                found.add(_sample(body))
                walk(body)
            elif op in (C.ASSERT, C.ASSERT_NOT):
                walk(av[1])
            elif op is getattr(C, "ATOMIC_GROUP", None):
                walk(av)

    walk(sre_parse.parse(pattern, flags))
    found.update({"\n", " ", "a", "\n ", "- ", ": "})
    return {u[:40] for u in found if u}


def _texts(unit: str, size: int) -> list:
    body = unit * max(1, size // len(unit))
    return [body, "\x00" + body + "\x00", "{{" + body, body + "}}\n"]


def _cpu(rx: re.Pattern, text: str, as_bytes: bool, anchored: bool) -> float:
    data = text.encode("utf-8", "surrogatepass") if as_bytes else text
    best = None
    for _ in range(2):
        start = time.process_time()
        if anchored:
            rx.match(data)
            rx.fullmatch(data)
        else:
            for _m in rx.finditer(data):
                pass
        spent = time.process_time() - start
        best = spent if best is None else min(best, spent)
        if spent < FLOOR / 10:
            break
    return best


def superlinear(rx: re.Pattern, anchored: bool = False) -> str | None:
    """The first (unit, variant, sizes, times) that grows faster than linearly, or None."""
    as_bytes = isinstance(rx.pattern, bytes)
    source = rx.pattern.decode("latin-1") if as_bytes else rx.pattern
    for unit in sorted(units(source, rx.flags & ~re.UNICODE & ~re.ASCII)):
        for variant in range(4):
            before = None
            for n in SIZES:
                spent = _cpu(rx, _texts(unit, n)[variant], as_bytes, anchored)
                if before is not None and spent > FLOOR and spent > RATIO * max(before, FLOOR / RATIO / 2):
                    again = _cpu(rx, _texts(unit, n)[variant], as_bytes, anchored)  # one re-measure against a hiccup
                    if again > FLOOR and again > RATIO * max(before, FLOOR / RATIO / 2):
                        return f"unit {unit!r} x{n} (variant {variant}): {before:.4f}s -> {spent:.4f}s"
                if spent > FLOOR * 3:
                    break
                before = spent
    return None


def test_the_collection_finds_the_patterns_of_the_issue():
    """The test sees the patterns issue 33 named (a collection that missed them would prove nothing)."""
    found = all_patterns()
    sources = {p for p, _ in found}
    assert len(found) > 100
    # the issue's code-fence pattern is gone: markdown-it-py finds fences (sources/documents/fences.py)
    for needle in (r"\$\{[A-Za-z_]", r"\{\{", r"NEEDED_HCCL_BUFFSIZE", r"[A-Z_][A-Z0-9_]{0,63}="):
        assert any(needle in (s if isinstance(s, str) else s.decode("latin-1")) for s in sources), needle


def test_the_detector_catches_a_quadratic_and_passes_a_linear_pattern():
    assert superlinear(re.compile(r"(?m)^\s*(```|~~~)")) is not None  # the issue's code-fence pattern
    assert superlinear(re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=?+][^}\n]*)?\}")) is not None
    assert superlinear(re.compile(r"(?m)^[ \t]*(```|~~~)")) is None


def test_every_pattern_of_the_package_is_linear():
    slow = {}
    start = time.process_time()
    for (_, _), (rx, where, anchored) in sorted(all_patterns().items(), key=lambda kv: kv[1][1]):
        got = superlinear(rx, anchored)
        if got:
            slow[where] = f"{rx.pattern!r}: {got}"
    assert not slow, "\n".join(f"{k}: {v}" for k, v in slow.items())
    assert time.process_time() - start < 60
