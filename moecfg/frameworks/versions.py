"""Framework version strings as PEP 440 reads them (packaging.version): `0.23.0.post1`, `v0.26.0rc`, `0.13.0rc1`,
`0.5.10.dev0+cu124`. packaging is imported when a version is compared, never on a check that names none.

A version written with a build suffix PEP 440 does not know (`0.5.10-cu124`, an image tag's `-a3`) is read by its
release part (`0.5.10`). The release tables compare (major, minor, micro, post): a pre-release of a line is read
with that line's table, as the tables were always read."""
from __future__ import annotations

import re

_RELEASE_PREFIX = re.compile(r"v?\d+(?:\.\d+)*")  # the release part before a suffix PEP 440 refuses


def parse(text: str | None, strict: bool = False):
    """`text` as a packaging Version, or None when no version can be read from it (`strict`: the whole text is a
    PEP 440 version, no build suffix read past)."""
    if not isinstance(text, str) or not text.strip() or len(text) > 128:
        return None
    from packaging.version import InvalidVersion, Version

    text = text.strip().lower()
    for candidate in (text,) if strict else (text, _prefix(text)):
        if candidate:
            try:
                return Version(candidate)
            except InvalidVersion:
                continue
    return None


def _prefix(text: str) -> str | None:
    m = _RELEASE_PREFIX.match(text)
    return m.group() if m and m.group() != text else None


def release(text: str | None, parts: int = 3) -> tuple[int, ...] | None:
    """(major, minor[, micro ...]) padded with 0 to `parts`; None for no version or one without a minor."""
    v = parse(text)
    if v is None or len(v.release) < 2:
        return None
    return (v.release + (0,) * parts)[:parts]


def release_post(text: str | None) -> tuple[int, int, int, int] | None:
    """(major, minor, micro, post): the key the flag tables are ordered by (`0.23.0.post1` after `0.23.0`)."""
    v = parse(text)
    r = release(text)
    return None if r is None or v is None else (*r, v.post or 0)
