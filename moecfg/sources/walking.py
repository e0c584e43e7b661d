"""What a folder walk leaves out: folders nobody deploys from, and what `.gitignore` files ignore.

`.gitignore` semantics come from core/wildmatch.py (git's rules, matched in linear time), one IgnoreFile per
`.gitignore` file, matched against the path relative to that file's folder; a deeper file decides before the
ones above it (as git does). Only `.gitignore` files inside the walked folder are read: nothing outside the
checked tree is.
"""
from __future__ import annotations

import os

from moecfg.core.record import record

# Vendored or third-party code, dependencies, virtual environments and build outputs (hidden folders such as
# .git/ and .venv/ are never walked). A folder named on the command line is still checked.
EXCLUDED_DIRS = frozenset({
    "vendor", "node_modules", "third_party", "third-party", "3rdparty", "site-packages", "venv", "__pycache__",
    "build", "dist", "_build", "target", "bazel-bin", "bazel-out", "bazel-testlogs", "buck-out",
})


@record(frozen=True, slots=True)
class Ignores:
    """The `.gitignore` specs in effect in one folder, innermost first (immutable: each subfolder its own)."""

    specs: tuple = ()  # (folder, core.wildmatch.IgnoreFile)

    @staticmethod
    def none() -> Ignores:
        return Ignores()

    def with_file(self, folder: str, lines) -> Ignores:
        from moecfg.core.wildmatch import IgnoreFile  # only for trees that have a .gitignore

        patterns = IgnoreFile(lines)
        return Ignores(((folder, patterns),) + self.specs) if patterns else self

    def ignored(self, path: str, is_dir: bool) -> bool:
        """`path` itself (the walk asks for each folder before it enters it, and enters no ignored one), innermost
        .gitignore first."""
        for folder, patterns in self.specs:
            rel = os.path.relpath(path, folder).replace(os.sep, "/")
            decided = patterns.decide_self(rel, is_dir)
            if decided is not None:
                return decided
        return False
