"""Which files a run checks, and reading them safely.

Directories are walked like `find` does by default: symbolic links are not followed while walking (a
linked folder is not entered), a linked YAML file is read only when it resolves to a regular file inside
the folder being checked (a link to `/dev/zero`, `/dev/stdin` or `~/secrets.yaml` is refused), and only
regular files are read (opened non-blocking, checked with fstat, size-capped). An entry that cannot be
read while walking becomes an `Unreadable` result the engine reports as a diagnostic (MC008); the rest is
still checked. The walk is iterative (no recursion limit on deep trees). A file named on the command line
that does not exist or cannot be read (the same checks: a link to a device or out of the current folder)
is a usage error (`PathError`, exit 2, contract §4). A folder with nothing to check is not an error.

A `*.toml` file is walked too: a prime-rl config is read (sources/recipes/prime_rl.py sniffs its raw text before any
parse), any other TOML (pyproject.toml, ...) is skipped with the reason, unparsed.

Documentation (`*.md`, `*.mdx`, `*.markdown`, `*.rst`: launches in its code blocks, documents/markdown.py) is read when a
file is named, and while walking a folder named on the command line, except a repository's top folder (one holding
`.git`): a whole-repository walk reads documentation only when asked (`--markdown`, settings `markdown: true`).
`markdown=False` (`--no-markdown`) never walks into documentation.

What nobody deploys is not walked (as ruff does): hidden folders (`.git/`), vendored and third-party code
(`vendor/`, `node_modules/`, `third_party/`), virtual environments and build outputs (EXCLUDED_DIRS; the settings'
`exclude` replaces that list, `extend-exclude` adds to it), and, unless `Walk(respect_gitignore=False)`, whatever the
`.gitignore` files inside the walked folder ignore (walking.py). A folder or file named on the command line is
always checked.
"""
from __future__ import annotations

import io
import os
import stat
import sys

from moecfg.core.record import record

YAML_SUFFIXES = (".yaml", ".yml")
SHELL_SUFFIXES = (".sh", ".bash")  # launch scripts (files named otherwise are read when named on the command line)
DOC_SUFFIXES = (".md", ".mdx", ".markdown", ".rst")  # documentation: launches in code blocks
TOML_SUFFIXES = (".toml",)  # prime-rl configs (sources/recipes/prime_rl.py sniffs each before parsing it)
CONFIG_NAMES = (".moecfg.yaml", ".moecfg.yml")  # moecfg's own config, never a deployment file
MAX_BYTES = 64 << 20  # no deployment file is this large; bounds memory on a huge or endless file


class PathError(Exception):
    """A command-line path that does not exist (exit code 2)."""


class Unreadable(Exception):
    """An entry that exists but is not read (reported as a diagnostic)."""


class Dangling(Unreadable):
    """A symbolic link whose target does not exist, met while walking: no deployment file (skipped, not MC008;
    docs trees link to pages generated at build time and git-ignored)."""


@record(frozen=True, slots=True)
class Entry:
    """A path to read, found on the command line or while walking a folder."""

    path: str  # as shown in the report ('-' = stdin)
    root: str | None = None  # a symlink must resolve inside this folder (None: the current one or the link's own)
    problem: str | None = None  # found while walking: why it cannot be read
    named: bool = False  # given on the command line: unreadable is a usage error (exit 2, contract §4)
    # walked for launch words only (issue 30): "py" (a Python file: never parsed nor run), "markdown" (documentation
    # at a repository root, not read without --markdown); what it holds is listed as launches not read
    sniff: str | None = None
    # documentation inside a file (a vLLM recipe's Markdown `guide:`) is read as documentation files are: named
    # or walked with documentation; not at a repository's top without --markdown (its launches are listed unread)
    docs: bool = True


class Walk:
    """How folders are walked: `respect_gitignore` (default on; `--no-respect-gitignore`, `respect-gitignore`),
    `markdown` (documentation: None = unless the folder is a repository's top; `--markdown` / `--no-markdown`),
    `excludes` (settings `exclude` / `extend-exclude`: (their folder, compiled gitignore-style matchers, whether the
    built-in EXCLUDED_DIRS still apply))."""

    __slots__ = ("respect_gitignore", "markdown", "excludes")

    def __init__(self, respect_gitignore: bool = True, markdown: bool | None = None, excludes=None):
        self.respect_gitignore, self.markdown = respect_gitignore, markdown
        self.excludes = excludes or (None, (), True)

    def excluded(self, path: str, name: str, is_dir: bool) -> bool:
        root, matchers, builtin = self.excludes
        if is_dir and builtin and name in _excluded_dirs():
            return True
        if not matchers or root is None:
            return False
        rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
        if rel.startswith(".."):
            return False
        rel += "/" if is_dir else ""  # a folder pattern (`legacy/`) matches the folder itself
        return any(m.match(rel) for m in matchers)


def _excluded_dirs():
    from moecfg.sources.walking import EXCLUDED_DIRS  # only when a folder is walked

    return EXCLUDED_DIRS


def discover(paths, walk: Walk | None = None) -> list[Entry]:
    """Expand directories (recursively, *.yaml / *.yml / *.sh / *.bash / *.toml, and documentation as
    `walk.markdown` says, sorted); '-' is stdin. Raises PathError."""
    walk = walk or Walk()
    entries: list[Entry] = []
    for p in paths:
        if p == "-":
            entries.append(Entry(p))
        elif os.path.isdir(p):  # a folder named on the command line is entered even through a link (find -H)
            docs = walk.markdown if walk.markdown is not None else not os.path.exists(os.path.join(p, ".git"))
            sniffed = {PY_SUFFIX: "py"} if docs or walk.markdown is False else {PY_SUFFIX: "py", **_ROOT_DOCS}
            suffixes = YAML_SUFFIXES + SHELL_SUFFIXES + TOML_SUFFIXES + (DOC_SUFFIXES if docs else ())
            found = _walk(p, suffixes, walk, sniffed, docs)
            entries.extend(sorted(found, key=lambda e: e.path))
        elif os.path.lexists(p):  # a Python file is only sniffed for launch words, named or not (never parsed)
            entries.append(Entry(p, named=True, sniff="py" if p.endswith(PY_SUFFIX) else None))
        else:
            raise PathError(f"{p}: no such file or directory")
    return entries


PY_SUFFIX = ".py"
_ROOT_DOCS = {suffix: "markdown" for suffix in DOC_SUFFIXES}


def _walk(top: str, suffixes: tuple, walk: Walk, sniffed: dict | None = None, docs: bool = True) -> list[Entry]:
    """`sniffed`: suffix -> what a file is walked for when it is only sniffed for launch words (Entry.sniff)."""
    sniffed = sniffed or {}
    sniff_suffixes = tuple(sniffed)
    from moecfg.sources.walking import Ignores  # only when a folder is walked

    found, stack = [], [(top, Ignores.none())]
    while stack:
        folder, ignores = stack.pop()
        try:
            with os.scandir(folder) as it:
                items = list(it)
        except OSError as exc:
            found.append(Entry(folder, top, f"folder not read ({exc.strerror or exc})"))
            continue
        if walk.respect_gitignore and any(i.name == ".gitignore" for i in items):
            ignores = ignores.with_file(folder, _gitignore_lines(folder, top))
        for item in items:
            try:
                is_dir = item.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                if not item.name.startswith(".") and not walk.excluded(item.path, item.name, True) \
                        and not ignores.ignored(item.path, True):
                    stack.append((item.path, ignores))
            elif (item.name.endswith(suffixes) or _service_json(item.name)) and item.name not in CONFIG_NAMES \
                    and not walk.excluded(item.path, item.name, False) and not ignores.ignored(item.path, False):
                found.append(Entry(item.path, top, docs=docs))
            elif sniff_suffixes and item.name.endswith(sniff_suffixes) \
                    and not walk.excluded(item.path, item.name, False) and not ignores.ignored(item.path, False):
                found.append(Entry(item.path, top, sniff=sniffed[os.path.splitext(item.name)[1]]))
    return found


def _service_json(name: str) -> bool:
    """A JSON file named like a service config (MindIE's `config.json`): read, and kept only if its keys say so."""
    return name.endswith(".json") and "config" in name.lower()


def _gitignore_lines(folder: str, top: str):
    """The lines of the folder's .gitignore, one at a time (a list of a 64 MiB file's lines is ~8 bytes a line
    more than the text itself)."""
    try:  # read as any checked file: a regular file inside the walked folder, size-capped
        raw = read(Entry(os.path.join(folder, ".gitignore"), top))
    except Unreadable:
        return iter(())
    return (line.rstrip("\r\n") for line in io.StringIO(raw.decode("utf-8", "replace"), newline="\n"))


def _inside(path: str, root: str) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def read(entry: Entry | str) -> bytes:
    """The bytes of a regular file (or stdin); raises Unreadable for anything else."""
    if isinstance(entry, str):
        entry = Entry(entry)
    if entry.path == "-":
        return sys.stdin.buffer.read()
    if entry.problem:
        raise Unreadable(entry.problem)
    roots = (entry.root,) if entry.root else (os.getcwd(), os.path.dirname(os.path.abspath(entry.path)))
    if os.path.islink(entry.path) and not any(_inside(entry.path, r) for r in roots):
        raise Unreadable("symbolic link to a path outside the checked folder; not followed (check the target itself)")
    try:
        fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        if not entry.named and os.path.islink(entry.path) and not os.path.exists(entry.path):
            raise Dangling("symbolic link to a missing target (dangling): not a deployment file") from None
        raise Unreadable(f"cannot read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise Unreadable("a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise Unreadable("not a regular file (a device, FIFO or socket); not read")
        if st.st_size > MAX_BYTES:
            raise Unreadable(f"file larger than {MAX_BYTES >> 20} MiB; not a deployment file, not read")
        try:
            return fh.read(MAX_BYTES + 1)
        except OSError as exc:
            raise Unreadable(f"cannot read ({exc.strerror or exc})") from None
