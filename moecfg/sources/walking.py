"""What a folder walk leaves out: folders nobody deploys from, and what `.gitignore` files ignore.

`.gitignore` semantics come from pathspec's GitIgnoreSpec (negation, anchoring, `dir/` patterns), one spec per
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

    specs: tuple = ()  # (folder, GitIgnoreSpec)

    @staticmethod
    def none() -> Ignores:
        return Ignores()

    def with_file(self, folder: str, lines: list[str]) -> Ignores:
        if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
            return self
        import re
        import warnings

        import pathspec  # only for trees that have a .gitignore

        with warnings.catch_warnings():  # `[[x]`: re's FutureWarning (nested set) is noise, an error under -W error
            warnings.simplefilter("ignore", FutureWarning)
            try:
                spec = pathspec.GitIgnoreSpec.from_lines(lines)
            except (ValueError, TypeError, re.error):  # a pattern pathspec cannot read: that file ignores nothing
                return self
        return Ignores(((folder, spec),) + self.specs)

    def ignored(self, path: str, is_dir: bool) -> bool:
        for folder, spec in self.specs:
            rel = os.path.relpath(path, folder).replace(os.sep, "/") + ("/" if is_dir else "")
            decided = spec.check_file(rel).include
            if decided is not None:
                return decided
        return False
