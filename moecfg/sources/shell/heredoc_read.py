"""`read -r -d '' VAR <<'EOF' ... EOF`: the heredoc body becomes VAR's value, as bash assigns it.

Scripts keep a launch in a variable this way, then run it as `$VAR`, `bash -c "$VAR"` or `srun ... bash -c
"...; ${VAR}"` (NVIDIA-NeMo/Megatron-Bridge@067f987 examples/models/stepfun/step37/slurm_pretrain.sh:129).
With `-d ''` bash reads up to a NUL byte, i.e. the whole body (its exit status is 1 at end of input, hence the
usual `|| true`); without `-r` a backslash escapes the next character and a backslash-newline is removed; with
one name, leading and trailing IFS whitespace is removed (none with `IFS=`). Anything else (`-a`, `-n`, `-t`,
several names, a delimiter other than NUL, an IFS that is not the default) leaves VAR unknown, as before.
"""
from __future__ import annotations

from moecfg.sources.textmap import SourceMap
from moecfg.sources.shell.values import Built, Var

_DEFAULT_IFS = " \t\n"
_WITH_ARG = set("dpitnNu")  # options that take an argument
_UNMODELLED = set("aintNu")  # array, readline text, counts, timeout, fd: the value is not modelled


def options(argv: list) -> tuple[bool, str | None, list] | None:
    """(raw, delimiter, names) of a `read` command, or None when a word is unknown or an option not modelled."""
    raw, delim, i = False, "\n", 1
    while i < len(argv) and (argv[i].value or "").startswith("-") and argv[i].value != "-":
        arg = argv[i].value
        i += 1
        if arg == "--":
            break
        for k, flag in enumerate(arg[1:], 1):
            if flag in _UNMODELLED:
                return None
            if flag not in _WITH_ARG:
                raw = raw or flag == "r"
                continue
            if k < len(arg) - 1:
                value = arg[k + 1:]
            elif i < len(argv) and argv[i].value is not None:
                value, i = argv[i].value, i + 1
            else:
                return None
            if flag == "d":
                delim = value[:1]
            break
    names = [w.value for w in argv[i:]]
    return (raw, delim, names) if all(names) else None


def ifs_in_effect(variables, prefix: dict) -> str | None:
    """The IFS `read` splits with: a prefix `IFS=` wins; an unknown IFS is None."""
    if "IFS" in prefix:
        return prefix["IFS"].value
    var = variables.get("IFS")
    if var is None or not var.is_set:
        return _DEFAULT_IFS
    return var.value


def assigned(walk, argv: list, prefix: dict) -> tuple[str, Var] | None:
    """The variable `read -d ''` sets from the heredoc fed to it, or None when bash's value is not modelled."""
    got = options(argv)
    if walk.heredoc is None or got is None:
        return None
    raw, delim, names = got
    ifs = ifs_in_effect(walk.vars, prefix)
    if delim != "" or len(names) != 1 or ifs not in (_DEFAULT_IFS, ""):
        return None
    body = walk.heredoc_body(*walk.heredoc)
    text, smap = _unescaped(body.script, body.map, raw, ifs)
    span = argv[0].span
    old = walk.vars.get(names[0])
    exported = bool(old and old.exported) or walk.vars.allexport
    if body.known:
        value = text if walk.r.budget.value_ok(text, span) else None
        return names[0], Var(value, span, exported, value_map=smap if value is not None else None)
    return names[0], Var(None, span, exported, partial=Built(None, smap, span, False, text))


def _unescaped(text: str, smap: SourceMap, raw: bool, ifs: str) -> tuple[str, SourceMap]:
    """The characters bash keeps, with their map: escapes processed (unless -r), IFS whitespace trimmed."""
    kept: list[tuple[int, bool]] = []  # (index into text, escaped)
    i = 0
    while i < len(text):
        if not raw and text[i] == "\\":
            if i + 1 < len(text) and text[i + 1] != "\n":
                kept.append((i + 1, True))
            i += 2
            continue
        kept.append((i, False))
        i += 1
    lo, hi = 0, len(kept)
    while lo < hi and not kept[lo][1] and text[kept[lo][0]] in ifs:
        lo += 1
    while hi > lo and not kept[hi - 1][1] and text[kept[hi - 1][0]] in ifs:
        hi -= 1
    out, run_start, prev = SourceMap(), None, None
    for idx, _ in kept[lo:hi]:
        if run_start is None:
            run_start = idx
        elif idx != prev + 1:
            out.extend(smap.slice(run_start, prev + 1))
            run_start = idx
        prev = idx
    if run_start is not None:
        out.extend(smap.slice(run_start, prev + 1))
    return "".join(text[idx] for idx, _ in kept[lo:hi]), out
