"""The words of a vllm-project/recipes command as the site writes them (vllm-project/recipes@8959cf6
src/lib/command-synthesis.js, line numbers below): which `--flag value` survives (dedupeArgs), what the shell makes
of the page's unquoted flags, numbers and `$VAR` values, the pd_cluster pool layouts and feature modes offered.
Each item is (the text dedupe compares, the Word): an unknown value's text is UNKNOWN, never a flag."""
from __future__ import annotations

import re

from moecfg.sources.launch import Word
from moecfg.sources.textmap import Span

_VAR = re.compile(r"^\$[A-Z_][A-Z0-9_]*$")  # left bare for the shell to fill in (command-synthesis.js:834)
UNKNOWN = "?"  # the dedupe text of an unknown value (never a flag)


def pool_modes(offered: list[str], so: dict) -> list[str]:
    """The pool layouts a pd_cluster offers (pdPoolModes, :251): from the other strategies' suffixes."""
    modes = set()
    for s in offered:
        if s == "pd_cluster":
            continue
        if re.search(r"(?:^|_)dep$", s):
            modes.add("dep")
        elif re.search(r"(?:^|_)tep$", s):
            modes.add("tep")
        elif re.search(r"(?:^|_)tp(?:_pp|_dp)?$", s):
            modes.add("tp")
    ordered = [m for m in ("tp", "tep", "dep") if m in (modes or {"tp"})]
    restrict = so.get("pool_modes")
    narrowed = [m for m in ordered if isinstance(restrict, list) and m in restrict]
    return narrowed or ordered


def feature_mode(feature: dict, key, variant: dict) -> str | None:
    """resolveModeKey (:421) for the default variant: None when a mode's availability or args depend on the
    hardware (or no mode is available)."""
    modes = feature["modes"]
    allowed = [k for k, m in modes.items() if isinstance(m, dict)
               and (not isinstance(m.get("variants"), list) or not m["variants"] or "default" in m["variants"])]
    if not allowed or any(modes[k].get("hardware") for k in allowed):
        return None
    chosen = variant.get("default_modes")
    chosen = chosen.get(key) if isinstance(chosen, dict) else None
    pick = next((c for c in (chosen, feature.get("default_mode")) if c in allowed), allowed[0])
    return None if modes[pick].get("hardware_overrides") else pick


def dedupe(args: list) -> list[Word]:
    """dedupeArgs (:785): `--flag value` units, the last of each flag kept where it stands."""
    units, i = [], 0
    while i < len(args):
        text, word = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if text.startswith("-") and nxt is not None and not nxt[0].startswith("-"):
            units.append((text, (word, nxt[1])))
            i += 2
            continue
        units.append((text if text.startswith("-") else None, (word,)))
        i += 1
    seen, kept = set(), []
    for flag, words in reversed(units):
        if flag is None or flag not in seen:
            kept.append(_shell_split(words[0]) + list(words[1:]))
            seen.add(flag)
    return [w for words in reversed(kept) for w in words]


def _shell_split(word: Word) -> list[Word]:
    """formatCommand (:1470-1487) quotes a flag's value (shellQuote) but writes a flag or a lone word as it is, so
    the shell splits `"--max-model-len auto"` into two words; each keeps the item's span."""
    parts = word.value.split() if word.value is not None else []
    return [word] if len(parts) < 2 else [Word(p, word.span, exact=False) for p in parts]


def arg(value, span: Span) -> tuple[str, Word]:
    """(the text dedupe compares, the word): a number is never a flag (`typeof cur === "string"`)."""
    if not isinstance(value, str):
        text = _number(value)
        return "#" + text, Word(text, span)
    if _VAR.match(value):
        return value, Word(None, span, exact=False)
    return value, Word(value, span)


def usable(value) -> bool:
    """args.filter(Boolean) drops "", 0 and null; moecfg also leaves out what is not a word (a mapping, a list)."""
    return isinstance(value, (str, int, float)) and not isinstance(value, bool) and bool(value)


def _number(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # JavaScript's String(8.0) is "8"
    return str(value)


def env_value(value) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    text = value if isinstance(value, str) else _number(value)
    return None if _VAR.match(text) else text


def unknown_values(argv: list[Word], flags: set) -> list[Word]:
    """The value after each of `flags` becomes unknown: some hardware's override sets it last (dedupe keeps that)."""
    out = list(argv)
    for i, w in enumerate(out[:-1]):
        nxt = out[i + 1]
        if w.value in flags and (nxt.value is None or not nxt.value.startswith("-")):
            out[i + 1] = Word(None, nxt.span, exact=False)
    return out

