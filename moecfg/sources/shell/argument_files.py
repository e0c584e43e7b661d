"""Shell files that only hold a launch's arguments for the script that sources them: read as that launch.

Megatron-LM's RL model configurations (NVIDIA/Megatron-LM@d98e8a6 examples/rl/model_configs/*.sh) set
`MODEL_OPTIONS` (and `ENV_DEPENDENT`; common.sh, which they source, sets `COMMON_OPTIONS`) and launch nothing: the
launch that sources one is `torchrun ... train_rl.py ... ${MODEL_OPTIONS} ${COMMON_OPTIONS} ${ENV_DEPENDENT}`
(examples/rl/README.md:143-183). Such a file becomes one launch `train_rl.py <those variables' words>` (word
splitting of the unquoted expansions), placed at the variables' assignments; the process count is the sourcing
launch's and stays unknown. A file is one of these only when it launches no command of its own and a variable named
in CONSUMERS holds a Megatron parallel flag; values the file does not know (`$CHECKPOINT`) stay unknown words.
"""
from __future__ import annotations

import re

from moecfg.sources.launch import Launch, Word

# (the variable that marks the file, the entry script of the sourcing launch, the variables in its order)
CONSUMERS = (
    ("MODEL_OPTIONS", "train_rl.py", ("MODEL_OPTIONS", "COMMON_OPTIONS", "ENV_DEPENDENT")),
)
_PARALLEL = re.compile(r"(?:^|\s)--(?:tensor|pipeline|expert)-model-parallel-size\b")
_UNKNOWN = "${__moecfg_unknown__}"
# commands an argument file runs besides setting variables (`echo "Using ..."`, `source common.sh`, `export`)
_QUIET = frozenset({"echo", "printf", "source", ".", "export", "set", "unset", "true", ":", "declare", "local"})


def argument_launch(variables, launches: list, span_of) -> Launch | None:
    """The launch an argument file stands for, or None. `span_of(lo, hi)`: the Span of a file range."""
    if any(launch.argv and (launch.argv[0].value or "") not in _QUIET for launch in launches):
        return None
    for marker, entry, names in CONSUMERS:
        var = variables.get(marker)
        if var is None or not _PARALLEL.search(_text(var)):
            continue
        words = [Word("python", var.span), Word(entry, var.span)]
        for name in names:
            words += _words(variables.get(name), span_of, var.span)
        return Launch(tuple(words), dict(variables.exported), "shell")
    return None


def _text(var) -> str:
    if var.value is not None:
        return var.value
    return var.partial.script if var.partial is not None else ""


def _words(var, span_of, marker_span) -> list[Word]:
    """The words of `$VAR` unquoted: split on blanks; a piece holding an unknown part stays one unknown word."""
    if var is None:  # set by the launch that sources the file (or by a file it sources): unknown here
        return [Word(None, marker_span, False, "${...}")]
    if var.value is None and var.partial is None:
        return [Word(None, var.span, False, "${...}")] if var.span is not None else []
    text = _text(var)
    smap = var.partial.map if var.value is None else None
    out = []
    for m in re.finditer(r"\S+", text):
        piece = m.group(0)
        span = var.span
        if smap is not None:
            lo, hi, exact = smap.locate(m.start(), m.end())
            span = span_of(lo, hi) if hi > lo else var.span
        out.append(Word(None, span, False, piece.replace(_UNKNOWN, "${...}")) if _UNKNOWN in piece
                   else Word(piece, span))
    return out
