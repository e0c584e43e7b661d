"""`per-path-ignores`, `exclude` and `extend-exclude` patterns: gitignore semantics from the `pathspec` library (what black and yamllint
use), matched against a '/'-separated path relative to the config file's folder.

`name` (no slash) matches at any depth; `/x` or `a/b` are anchored to the config folder; `*` and `?` stay
within one path segment, `**` spans segments; a pattern that names a folder also matches everything below
it; a trailing `/` matches folders only (i.e. only paths below them). A leading `!` or `#` is literal
(each pattern stands alone here: no negation, no comments).

Matched by core/wildmatch.py (git's rules as a state set over the path: linear in the path, whatever the
pattern; pathspec's regex translation took minutes on `*a*a*a*a*a*a*a*az` and 69 s on `**/` repeated).
"""
from __future__ import annotations

import os

class PathPattern:
    """One `per-path-ignores` pattern: `.match(relative_path)` is true for a file it names or a file inside a
    folder it names."""

    __slots__ = ("text", "glob")

    def __init__(self, text: str, glob):
        self.text, self.glob = text, glob

    def match(self, rel: str) -> bool:
        parts = rel.split("/")
        return any(self.glob.match("/".join(parts[:d]), True) for d in range(1, len(parts))) or \
            self.glob.match(rel, False)


def gitignore_regex(pattern: str, key: str = "per-path-ignores") -> PathPattern:
    """The matcher of one pattern (use `.match(relative_path)`); ConfigError (naming the setting `key`) if it is
    not valid."""
    from moecfg.core.diagnostics import shown
    from moecfg.checking.settings.errors import ConfigError
    from moecfg.core.wildmatch import Glob, PatternError

    p = pattern.strip()
    if not p:
        raise ConfigError("empty path pattern")
    try:
        return PathPattern(pattern, Glob(p, negation=False))  # a leading `!` or `#` is literal here
    except PatternError as exc:
        raise ConfigError(f"{key}: {shown(pattern)} is not a valid gitignore pattern ({exc})") from None


def relative_to(path: str, root: str) -> str | None:
    rel = os.path.relpath(os.path.abspath(path), root)
    if rel.startswith(".."):
        return None
    return rel.replace(os.sep, "/")
