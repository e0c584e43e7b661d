"""`per-path-ignores`, `exclude` and `extend-exclude` patterns: gitignore semantics from the `pathspec` library (what black and yamllint
use), matched against a '/'-separated path relative to the config file's folder.

`name` (no slash) matches at any depth; `/x` or `a/b` are anchored to the config folder; `*` and `?` stay
within one path segment, `**` spans segments; a pattern that names a folder also matches everything below
it; a trailing `/` matches folders only (i.e. only paths below them). A leading `!` or `#` is literal
(each pattern stands alone here: no negation, no comments).

pathspec translates `*` to a backtracking `[^/]*`: `*a*a*a*a*a*a*a*az` against a 60-character name takes
minutes. Each `*` that is followed by a fixed chunk and then another `*` is rewritten to an atomic lazy
group `(?>[^/]*?chunk)` (written as a lookahead and a backreference): committing to the chunk's leftmost occurrence loses no match (the next `*` can
absorb anything the chunk skipped), and every segment is then matched in linear time.
"""
from __future__ import annotations

import os
import re
import warnings

_STAR = "[^/]*"


def _commit_chunks(regex: str) -> str:
    parts = regex.split(_STAR)
    out = [parts[0]]
    for i, chunk in enumerate(parts[1:], start=1):
        simple = "(" not in chunk and "/" not in chunk.replace("[^/]", "") and chunk
        if i < len(parts) - 1 and simple:  # atomic group (?>...) spelled so that Python 3.10 has it too
            out.append(f"(?=(?P<mc{i}>{_STAR}?{chunk}))(?P=mc{i})")
        else:
            out.append(_STAR + chunk)
    return "".join(out)


def gitignore_regex(pattern: str, key: str = "per-path-ignores") -> re.Pattern:
    """The compiled matcher of one pattern (use `.match(relative_path)`); ConfigError if it is not valid."""
    from moecfg.core.diagnostics import shown
    from moecfg.checking.settings.errors import ConfigError

    import pathspec

    p = pattern.strip()
    if not p:
        raise ConfigError("empty path pattern")
    if p[0] in "!#":
        p = "\\" + p
    # a user's `[[x]` makes `re` warn (FutureWarning: possible nested set) on every run: the pattern means what
    # gitignore says it means today, so the warning is noise in the user's terminal and an error under -W error
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            compiled = pathspec.GitIgnoreSpec.from_lines([p]).patterns[0].regex
        except (ValueError, re.error) as exc:  # pathspec's GitIgnorePatternError is a ValueError
            raise ConfigError(f"{key}: {shown(pattern)} is not a valid gitignore pattern ({exc})") from None
        if compiled is None:
            raise ConfigError(f"{key}: {shown(pattern)} is not a valid gitignore pattern")
        return re.compile(_commit_chunks(compiled.pattern))


def relative_to(path: str, root: str) -> str | None:
    rel = os.path.relpath(os.path.abspath(path), root)
    if rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")
