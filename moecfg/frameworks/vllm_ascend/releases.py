"""What differs between vllm-ascend versions, as data: one `Release` per supported version.

Each field names the behaviour it selects; the formulas (formulas.py) take a Release. Citations are
repo@commit path:lines of vllm-project/vllm-ascend (and vllm-project/vllm for the defaults it relies on).
"""
from __future__ import annotations

from moecfg.frameworks.vllm_ascend.releases_base import MAIN, V011, V013, VA, Release  # noqa: F401  (re-exported)
from moecfg.frameworks.vllm_ascend.releases_2026 import RELEASES_2026, V027

# Oldest first; "main" (182b75e, the newest main read) last: the default when no version is given. "0.27" is read
# from PR diffs merged after 182b75e (releases_2026.V027) and is used only when asked for.
RELEASES = {r.key: r for r in (V011, V013, *RELEASES_2026, V027, MAIN)}
_BY_MINOR = {"11": "0.11.0", "13": "0.13.0", "18": "0.18.0", "19": "0.19.1rc1", "20": "0.20.2rc1", "21": "0.21.0rc1",
             "22": "0.22.1rc1", "23": "0.23.0", "24": "0.24.0rc1", "25": "0.25.1rc1", "26": "0.26.0rc", "27": "0.27"}
NEWEST_MINOR = 27


def _minor(version: str) -> tuple[int, int] | None:
    """(major, minor) of `v0.23.0.post1`, `0.26.0rc`, `0.27` (packaging.version: frameworks/versions.py)."""
    from moecfg.frameworks.versions import release

    mm = release(version, 2)
    return (mm[0], mm[1]) if mm else None


def match(version: str) -> str | None:
    """Version text (image tag or settings) -> the release key whose rules apply, or None. A release line maps to
    the tag read for it (v0.23.0.post1 -> v0.23.0: the post1 wheel was not on the registry mirror read)."""
    v = version.strip().lower().lstrip("v")
    if v in ("main", "latest", "nightly"):
        return "main"
    mm = _minor(v)
    if mm is None or mm[0] != 0:
        return None
    return _BY_MINOR.get(str(mm[1]))


def newer_than_tables(version: str) -> bool:
    """A version past the newest release line moecfg has a table for (0.27)."""
    mm = _minor(version)
    return mm is not None and (mm[0] > 0 or mm[1] > NEWEST_MINOR)
