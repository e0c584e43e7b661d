"""Rewrite references to moved moecfg modules (issue 31, layout step 3) in the files given on the command line.

    python tools/relayout.py FILE...          # rewrites in place, prints each file it changed
    python tools/relayout.py --check FILE...  # changes nothing; exit 1 when a file would change

The moves are listed in tools/layout_map.json (old dotted module -> new one). Rewritten forms:
- `from moecfg.sources import shell_words` -> `from moecfg.sources.shell import words as shell_words` (the local
  name is kept; a `from P import a, b` whose names moved to different packages becomes one line per package);
- every dotted name: `from moecfg.core.engine import x`, `import moecfg.core.engine`, "moecfg.core.engine.run"
  in strings (mock targets, registries);
- file paths: `moecfg/sources/shell_words.py`, `sources/shell_words.py`, `moecfg/core/settings/`.
Idempotent: a name that already is a new one (`moecfg.sources.shell.words`, although `moecfg.sources.shell`
itself moved to `moecfg.sources.shell.reader`) is left alone, so running it twice changes nothing more.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

SKIP_MARK = "relayout: leave this file"  # this tool and its test hold old names on purpose
MAP_FILE = Path(__file__).resolve().parent / "layout_map.json"


def load_map(path: Path = MAP_FILE) -> dict[str, str]:
    return json.loads(path.read_text(encoding="utf-8"))


def _modules_on_disk() -> set[str]:
    root = Path(__file__).resolve().parents[1]
    out = set()
    for path in (root / "moecfg").rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.add(".".join(parts))
    return out


class Relayout:
    def __init__(self, moves: dict[str, str]):
        self.moves = moves
        # every new module and the packages above it: `old.X` that is one of these is already new-style
        self.new_names = {".".join(n.split(".")[:i]) for n in moves.values() for i in range(1, n.count(".") + 2)}
        # and every module the package holds now (a reader added later under a moved name's package, e.g.
        # moecfg.sources.recipes.verl_config, is not the old module `moecfg.sources.recipes` + an attribute)
        self.new_names |= _modules_on_disk()
        olds = sorted(moves, key=len, reverse=True)
        self.dotted = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, olds)) + r")(?!\w)"
                                 r"(?=(\.\w+|\s+import\s+\w+)?)")
        self.paths = [(re.compile(pattern), new) for pattern, new in self._path_moves()]
        # a statement at the start of a line, or inside a string of code ("...\\nfrom moecfg.x import y\\n")
        self.from_re = re.compile(r"(^[ \t]*|(?<=[\"'])|(?<=\\n))from[ \t]+(moecfg[\w.]*)[ \t]+import[ \t]+"
                                  r"(\([^)]*\)|[\w \t,]+(?:#[^\n]*)?)", re.M)

    def _path_moves(self) -> list[tuple[str, str]]:
        out = []
        for old, new in sorted(self.moves.items(), key=lambda kv: len(kv[0]), reverse=True):
            o, n = old.replace(".", "/"), new.replace(".", "/")
            is_package = any(k.startswith(old + ".") for k in self.moves)
            for lo, ln, before in ((o, n, r"(?<![\w.])"), (o[len("moecfg/"):], n[len("moecfg/"):], r"(?<![\w./])")):
                if is_package:
                    out.append((before + re.escape(lo) + r"(?=/)", ln))
                else:
                    out.append((before + re.escape(lo) + r"\.py\b", ln + ".py"))
        return out

    def rewrite(self, text: str) -> str:
        text = self.from_re.sub(self._from_import, text)
        text = self.dotted.sub(self._dotted, text)
        for pattern, new in self.paths:  # longest old path first; no new path matches an old one
            text = pattern.sub(new, text)
        return text

    def _dotted(self, m: re.Match) -> str:
        old, tail = m.group(1), m.group(2) or ""
        child = tail.split()[-1].lstrip(".") if tail else ""
        if child and f"{old}.{child}" in self.new_names:
            return old  # already a new name (`moecfg.sources.shell.words`)
        return self.moves[old]

    def _from_import(self, m: re.Match) -> str:
        indent, package, names = m.group(1), m.group(2), m.group(3)
        in_string = m.start() > 0 and not indent and m.string[m.start() - 1] in "\"'n"
        comment = ""
        if not names.startswith("("):
            names, _, comment = names.partition("#")
            comment = f"  #{comment.rstrip()}" if comment.strip() else ""
        body = re.sub(r"#[^\n]*", "", names.strip("()"))
        aliases = [a.split() for a in body.replace("\n", " ").split(",") if a.strip()]
        if any(len(a) not in (1, 3) for a in aliases):
            return m.group(0)  # `import *` or something unexpected: leave it
        kept, moved = [], {}
        for alias in aliases:
            name, local = alias[0], alias[-1]
            new = self.moves.get(f"{package}.{name}")
            if new is None:
                kept.append(" ".join(alias))
                continue
            parent, leaf = new.rsplit(".", 1)
            moved.setdefault(parent, []).append(leaf if leaf == local else f"{leaf} as {local}")
        if not moved:
            return m.group(0)
        new_package = self.dotted.sub(self._dotted, package)
        if kept and new_package in moved:  # `from old.pkg import moved_module, name`: one line, the new package
            moved[new_package] = kept + moved[new_package]
            kept = []
        lines = [f"{indent}from {package} import {', '.join(kept)}"] if kept else []
        lines += [f"{indent}from {parent} import {', '.join(items)}" for parent, items in moved.items()]
        return ("\\n" if in_string else "\n").join(lines) + comment


def main(argv: list[str]) -> int:
    check = argv[:1] == ["--check"]
    files = argv[1:] if check else argv
    relayout = Relayout(load_map())
    changed = []
    for name in files:
        path = Path(name)
        if not path.is_file() or path.resolve() == MAP_FILE:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if SKIP_MARK in text:
            continue
        new = relayout.rewrite(text)
        if new != text:
            changed.append(name)
            if not check:
                path.write_text(new, encoding="utf-8")
    for name in changed:
        print(("would rewrite " if check else "rewrote ") + name)
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
