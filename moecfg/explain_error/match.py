"""Apply the pattern table to a log: bounded input, bounded lines, one explanation per distinct error.

- At most MAX_BYTES are read (the tail of a longer log: the error is at the end); lines are cut at MAX_LINE.
- Colour codes are dropped; every regex runs on one line (no pattern can backtrack across the log).
- The same error printed by every rank is one explanation with a count.
- The cause: each knob (flag or env var) of the row is looked up in the log as the user or the framework wrote
  it (`--max-num-seqs 16`, `HCCL_BUFFSIZE=256`, vLLM's `'max_num_seqs': 16`, SGLang's `max_num_seqs=16`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from moecfg.explain_error.patterns import PATTERNS, Pattern

MAX_BYTES = 8 * 1024 * 1024
MAX_LINE = 8192
MAX_CAUSES = 3  # places shown per knob
VALUE_SPAN = 2048  # values are read from the start of the matched line (the messages put them there)
_ANSI = re.compile(r"\x1b\[[0-9;]{0,32}[A-Za-z]")
_PLACEHOLDER = re.compile(r"\{([^{}\n]{1,40})\}")


@dataclass
class Explanation:
    pattern: Pattern
    line: int  # 1-based, first occurrence
    text: str  # the matched line, clipped
    values: dict[str, str] = field(default_factory=dict)
    count: int = 1
    causes: list[tuple[int, str]] = field(default_factory=list)  # (line, "KNOB = value as written")

    def render(self, template: str) -> str:
        return _PLACEHOLDER.sub(lambda m: self.values.get(m.group(1), f"<{m.group(1)} from the message>"), template)


def read_log(data: bytes) -> tuple[list[str], bool]:
    """The log's lines (decoded leniently, colour codes dropped, long lines cut) and whether it was cut to its tail."""
    cut = len(data) > MAX_BYTES
    if cut:
        data = data[-MAX_BYTES:]
    text = _ANSI.sub("", data.decode("utf-8", "replace"))
    return [_shown(line)[:MAX_LINE] for line in text.split("\n")], cut


def _shown(line: str) -> str:
    """What a terminal shows of one log line: a progress bar redraws with `\r`, so the text after the last `\r`
    (a CRLF line ending removed first). Lines are split at `\n` only, as editors and `grep -n` number them
    (`\x0c`, U+2028 and a lone `\r` do not start a line)."""
    line = line[:-1] if line.endswith("\r") else line
    cut = line.rfind("\r")
    return line if cut < 0 else line[cut + 1:]


def explain(lines: list[str]) -> list[Explanation]:
    compiled = [(p, re.compile(p.regex)) for p in PATTERNS]
    any_needle = re.compile("|".join(re.escape(n) for p in PATTERNS for n in p.needles))
    found: dict[tuple, Explanation] = {}
    error_lines = set()
    log_has = _evidence(lines)
    for no, line in enumerate(lines, 1):
        if not any_needle.search(line):  # most lines: one scan, no pattern runs
            continue
        groups_done = set()
        for p, rx in compiled:
            if p.group and p.group in groups_done:
                continue
            if not any(n in line for n in p.needles) or not rx.search(line) or not _routed(p, line, log_has):
                continue
            error_lines.add(no)
            if p.group:
                groups_done.add(p.group)
            values = _values(p, line)
            key = (p.key, tuple(sorted(values.items())))
            if key in found:
                found[key].count += 1
            else:
                found[key] = Explanation(p, no, line[:400], values)
    out = list(found.values())
    if any(not e.pattern.generic for e in out):
        out = [e for e in out if not e.pattern.generic]
    found_causes = knob_causes(lines, {k for e in out for k in e.pattern.knobs}, skip=error_lines)
    for e in out:  # the error line's own numbers are `values`, not the user's settings
        e.causes = sorted({c for knob in e.pattern.knobs for c in found_causes.get(knob, ())})
    return sorted(out, key=lambda e: e.line)


def _evidence(lines: list[str]):
    """The evidence words (every row's) that the log holds somewhere: one pass per word, asked only when a row
    with evidence matched a line."""
    cache: dict[str, bool] = {}

    def has(word: str) -> bool:
        if word not in cache:
            cache[word] = any(word in line for line in lines)
        return cache[word]
    return has


def _routed(p: Pattern, line: str, log_has) -> bool:
    if any(sign in line for sign in p.not_with):
        return False
    return not p.evidence or any(w in line for w in p.evidence) or any(log_has(w) for w in p.evidence)


def _values(p: Pattern, line: str) -> dict[str, str]:
    out = {}
    for label, rx in p.values:
        m = re.search(rx, line[:VALUE_SPAN])
        if m:
            out[label] = m.group(1)
    return out


def _knob_regex(knob: str) -> re.Pattern:
    if knob.startswith("--"):
        snake = re.escape(knob[2:].replace("-", "_"))
        return re.compile(rf"(?<![\w-]){re.escape(knob)}(?:=|\s{{1,8}})([^\s'\"]{{1,80}}|'[^'\n]{{0,200}}'|\"[^\"\n]{{0,200}}\")"
                          rf"|['\"]{snake}['\"]\s{{0,4}}:\s{{0,4}}([^,}}\n]{{1,80}})"
                          rf"|(?<![\w.]){snake}=([^,)\s]{{1,80}})")
    value = r"(\"[^\"\n]{0,80}\"|'[^'\n]{0,80}'|[^\s,;'\"]{1,80})"
    return re.compile(rf"(?<![\w-]){re.escape(knob)}['\"]?\s{{0,2}}[=:]\s{{0,2}}" + value)  # KEY=v, YAML / dict KEY: v


def causes(lines: list[str], knobs, skip=frozenset()) -> list[tuple[int, str]]:
    found = knob_causes(lines, knobs, skip)
    return sorted({c for knob in knobs for c in found.get(knob, ())})


def knob_causes(lines: list[str], knobs, skip=frozenset()) -> dict[str, list[tuple[int, str]]]:
    """knob -> its first MAX_CAUSES places in the log, in ONE pass over the lines for all the knobs (once per
    explanation over every line was explanations x lines x knobs: 12,000 distinct errors took > 11 s)."""
    knobs = sorted(set(knobs))
    if not knobs:
        return {}
    literals = {k: (k, k[2:].replace("-", "_")) if k.startswith("--") else (k,) for k in knobs}
    any_literal = re.compile("|".join(re.escape(w) for ws in literals.values() for w in ws))  # literal first
    regexes = {k: _knob_regex(k) for k in knobs}
    out: dict[str, list[tuple[int, str]]] = {k: [] for k in knobs}
    open_knobs = list(knobs)
    for no, line in enumerate(lines, 1):
        if not open_knobs:
            break
        if no in skip or not any_literal.search(line):
            continue
        for knob in open_knobs:
            if not any(word in line for word in literals[knob]):
                continue
            m = regexes[knob].search(line)
            if m:
                value = next(g for g in m.groups() if g is not None).strip().rstrip(",;)}")
                out[knob].append((no, f"{knob} = {value}"))
        open_knobs = [k for k in open_knobs if len(out[k]) < MAX_CAUSES]
    return out
