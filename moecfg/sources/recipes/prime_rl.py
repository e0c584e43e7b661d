"""A PrimeIntellect prime-rl config (TOML: `uv run rl @ examples/.../rl.toml`, `uv run inference @ infer.toml`,
`uv run trainer @ ...` / `uv run sft @ ...`) as the launch prime-rl's entry point runs with it.

PrimeIntellect-ai/prime-rl@559b44772: pyproject.toml [project.scripts] (rl, inference, trainer, sft, orchestrator);
the config classes packages/prime-rl-configs/src/prime_rl/configs/{rl,inference,trainer,sft}.py (pydantic models the
TOML fills, `@ file.toml` read by pydantic_config). Each setting becomes one word `<dotted.path>=<value>` positioned at
its value; the command starts with `prime-rl <entry>` (trainers/prime_rl).

Cheap first: a `.toml` file is parsed only when its raw text holds a table header of a prime-rl config (`sniff`); any
other TOML (pyproject.toml, a torchtitan job) is skipped with the reason, unparsed. tomllib gives no positions: the
values come from tomllib, their positions from a line scan of `[table]` headers and `key = value` lines (a value the
scan does not find points at its table's header).
"""
from __future__ import annotations

import re

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.textmap import Span

COMMAND = "prime-rl"
BROKEN = "not-toml"  # the entry word of a config tomllib refuses (trainers/prime_rl says why, MC717)
MAX_WORDS = 2000
# [inference.vllm], [trainer.model], [orchestrator] ...: an RL config (rl.py RLConfig's sub-configs)
_RL = re.compile(r"^[ \t]*\[[ \t]*(?:inference|trainer|orchestrator)[ \t]*(?:\.[^\]\n]*)?\][ \t]*(?:#.*)?$", re.M)
_RL_OWN = re.compile(r"^[ \t]*\[\[?[ \t]*(?:trainer|orchestrator)[ \t]*(?:\.[^\]\n]*)?\]", re.M)
# [vllm] at the top: an inference config (inference.py InferenceConfig.vllm)
_INFERENCE = re.compile(r"^[ \t]*\[[ \t]*vllm[ \t]*\][ \t]*(?:#.*)?$", re.M)
# [model] with [optim] / [ckpt]: a trainer or SFT config (trainer.py / sft.py; torchtitan writes [optimizer],
# [checkpoint])
_MODEL = re.compile(r"^[ \t]*\[[ \t]*model[ \t]*\][ \t]*(?:#.*)?$", re.M)
_TRAINER = re.compile(r"^[ \t]*\[[ \t]*(?:optim|ckpt)[ \t]*\][ \t]*(?:#.*)?$", re.M)


def sniff(text: str) -> str | None:
    """The entry point a TOML text is a config of (`rl`, `inference`, `trainer`), or None; raw text only. An SFT config
    (`[model]` + `[optim]`, its `[inference]` for evals) is the trainer's shape; `[inference.*]` alone is an RL
    fragment."""
    if _RL_OWN.search(text):
        return "rl"
    if _INFERENCE.search(text):
        return "inference"
    if _MODEL.search(text) and _TRAINER.search(text):
        return "trainer"
    if _RL.search(text):
        return "rl"
    return None


NOT_PRIME_RL = ("TOML file that is not a prime-rl config (no [inference.*] / [trainer.*] / [orchestrator] / [vllm] "
                "table, nor [model] with [optim] or [ckpt]): not parsed")


def read_toml(text: str, first_line: int = 0, block: bool = False) -> LaunchFile | None:
    """The launch of a prime-rl config; None when the text is not one (not parsed). `first_line`: lines before the
    text in its file (a Markdown block); `block`: a documentation fragment (context `toml-block`: the keys it does not
    write are unknown, not prime-rl's defaults)."""
    entry = sniff(text)
    if entry is None:
        return None
    context = "toml-block" if block else "toml"
    data, problem = _load(text)
    if data is None:
        line, column, message = problem
        at = Span(first_line + line, column, first_line + line, column)
        return LaunchFile(launches=[Launch((Word(COMMAND, at), Word(BROKEN, at), Word(message, at)), {}, context)])
    spans, headers = positions(text, first_line)
    start = Span(first_line + 1, 1, first_line + 1, 1)
    words = [Word(COMMAND, start), Word(entry, start)]
    for path, value in flat(data, ()):
        words.append(Word(f"{'.'.join(path)}={value}", _span_of(path, spans, headers, start)))
        if len(words) >= MAX_WORDS:
            break
    return LaunchFile(launches=[Launch(tuple(words), {}, context)])


def _load(text: str):
    """(data, None) or (None, (line, column, message)) for text tomllib refuses."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10 (pyproject: tomli on < 3.11)
        import tomli as tomllib
    try:
        return tomllib.loads(text), None
    except ValueError as exc:  # TOMLDecodeError, and int() of 5,000 digits
        message = str(exc)[:200]
        m = re.search(r"\(at line (\d+), column (\d+)\)", message)
        return None, ((int(m.group(1)), int(m.group(2))) if m else (1, 1)) + (message,)
    except RecursionError:  # tomllib recurses per nesting level
        return None, (1, 1, "nested too deeply")


def text_of(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


MAX_DEPTH = 32  # tables nested deeper hold no setting moecfg reads (bounds the recursion on hostile input)


def flat(value, path: tuple):
    """(path, text) for every scalar under a table (inline tables too; lists of scalars joined by commas; arrays of
    tables are not settings moecfg reads)."""
    if isinstance(value, dict) and len(path) < MAX_DEPTH:
        for key, inner in value.items():
            yield from flat(inner, path + (str(key),))
    elif isinstance(value, list):
        if all(isinstance(v, (str, int, float, bool)) for v in value):
            yield path, ",".join(text_of(v) for v in value)
    elif isinstance(value, (str, int, float, bool)):
        yield path, text_of(value)
    # dates and times: nothing of prime-rl's


_HEADER = re.compile(r"^[ \t]*(\[\[?)[ \t]*([^\]\n]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$")
_KEY = re.compile(r"^[ \t]*((?:[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*')(?:[ \t]*\.[ \t]*(?:[A-Za-z0-9_-]+|\"[^\"\n]*\""
                  r"|'[^'\n]*'))*)[ \t]*=[ \t]*")


def _dotted(text: str) -> tuple:
    parts = re.findall(r"\"([^\"\n]*)\"|'([^'\n]*)'|([A-Za-z0-9_-]+)", text)
    return tuple(a or b or c for a, b, c in parts)


def positions(text: str, first_line: int = 0) -> tuple[dict, dict]:
    """({key path: span of its value}, {table path: span of its header}) by a line scan. Lines inside a multi-line
    string or array are skipped; keys under an array of tables (`[[orchestrator.train.source]]`) are not kept."""
    spans: dict = {}
    headers: dict = {}
    table, array, skip = (), False, None
    for number, line in enumerate(text.split("\n"), start=first_line + 1):
        if skip is not None:
            if skip(line):
                skip = None
            continue
        m = _HEADER.match(line)
        if m and not _KEY.match(line):
            table, array = _dotted(m.group(2)), m.group(1) == "[["
            if not array:
                headers.setdefault(table, Span(number, m.start(2) + 1, number, m.end(2) + 1))
            continue
        k = _KEY.match(line)
        if not k:
            continue
        value = line[k.end():]
        skip = _continues(value)
        if array:
            continue
        end = len(value.split(" #", 1)[0].rstrip()) if skip is None else len(value.rstrip())
        spans.setdefault(table + _dotted(k.group(1)), Span(number, k.end() + 1, number, k.end() + 1 + max(end, 1)))
    return spans, headers


def _continues(value: str):
    """A test for the line that closes a value continued on the next lines (None: the value ends on this line)."""
    for quote in ('"""', "'''"):
        if value.startswith(quote) and value.count(quote) < 2:
            return lambda line, q=quote: q in line
    if value.startswith("["):
        depth = [_depth(value)]
        if depth[0] <= 0:
            return None

        def closes(line: str) -> bool:
            depth[0] += _depth(line)
            return depth[0] <= 0
        return closes
    return None


def _depth(text: str) -> int:
    text = re.sub(r"\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|#.*", "", text)
    return text.count("[") - text.count("]")


def _span_of(path: tuple, spans: dict, headers: dict, start: Span) -> Span:
    for n in range(len(path), 0, -1):  # an inline table's key: the key holding the table
        if path[:n] in spans:
            return spans[path[:n]]
    for n in range(len(path) - 1, 0, -1):
        if path[:n] in headers:
            return headers[path[:n]]
    return start
