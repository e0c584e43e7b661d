"""`sh run_mcore_qwen3.sh dlc A3B 1 8 ...` / `bash x.sh ARGS`: a launch script run with positional arguments, read with
$1..$N bound to them (alibaba/Pai-Megatron-Patch@a098ca5 examples/qwen3/README.md:111 runs run_mcore_qwen3.sh, which
reads TP=${10} .. EP=${14}, run_mcore_qwen3.sh:37-41, and picks the model in `if [ $MODEL_SIZE = A3B ]` branches).

The script is read only through the engine's hook (sourced.Includes: a literal path next to the calling file, inside
the folder being checked), only when it reads positional parameters and is given at least one, in a new shell (the
caller's exported variables, not its others); its `if` tests are decided where their values are known
(conditions.py). Its launches are the calling command's: every word positioned at the call (not exact: no fix edits
it), since the script's own lines belong to another file. The script is still checked as its own file.
"""
from __future__ import annotations

import re

from moecfg.sources.launch import EnvEntry, Launch, OpenEnv, Word
from moecfg.sources.shell.values import Var
from moecfg.sources.textmap import Decoded, LineIndex, SourceMap, Span

_POSITIONAL = re.compile(r"\$(?:[1-9]|\{[1-9][0-9]*\}|[@*])")


def read_called(command, argv: list) -> bool:
    """Read `argv` (`sh FILE ARG...`) as the script it runs; False when it is not followed."""
    walk = command.walk
    r = walk.r
    include = r.calls if r.calls is not None else r.include
    path = argv[1].value if len(argv) > 2 else None
    if include is None or not path or not path.endswith(".sh") or path.startswith("-") or r.depth >= 4:
        return False
    got = include.enter(path)
    if got is None:
        return False
    key, text = got
    try:
        if not _POSITIONAL.search(text):
            return False
        span = Span(argv[0].span.line, argv[0].span.column, argv[-1].span.end_line, argv[-1].span.end_column)
        env = {n: Var(e.value, e.span, exported=True)
               for n, e in walk.environment(command.prefix, command.wrap.clear).items()}
        for i, w in enumerate(argv[2:], 1):
            env[str(i)] = Var(w.value, span)
        env["#"] = Var(str(len(argv) - 2), span)
        sub = type(r)(LineIndex(text), [], r.context, include=include)  # reader.ShellReader (no import: no cycle)
        sub.decide_tests, sub.calls = True, r.calls
        sub.array_budget, sub.budget = r.array_budget, r.budget
        sub.read(Decoded(text, SourceMap.identity(len(text))), env, r.depth + 1)
        r.array_budget = sub.array_budget
    finally:
        include.leave(key)
    r.launches.extend(_at(launch, span) for launch in sub.launches)
    return True


def _at(launch: Launch, span) -> Launch:
    """The launch with every position at the calling command."""
    env = {k: EnvEntry(e.name, e.value, span) for k, e in launch.env.items()}
    if isinstance(launch.env, OpenEnv):
        env = OpenEnv(env, span, launch.env.why, launch.env.prefix)
    return Launch(tuple(Word(w.value, span, False, w.pattern) for w in launch.argv), env, launch.context,
                  launch.image, launch.container, (), tuple((p, span) for p, _ in launch.sourced))
