"""Open the lines moecfg cites in the fetched repository snapshots: each `owner/name@commit path:lines` citation (and
the bare `file.py:lines` that follow it, read in that repository) must name a file that exists at that commit, with
every cited line inside it. A repository without a local snapshot is not checked (its citations are counted as not
opened). Snapshots are git directories without a work tree (`/work/.mirror/<owner>+<name>/repo`, or
$MOECFG_MIRRORS); nothing is downloaded.

    python tools/check_citations.py            # every citation in moecfg/ and docs/, and the release tables
    python tools/check_citations.py --list     # also each citation opened

Used by tests/tools/test_citations.py.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIRRORS = Path(os.environ.get("MOECFG_MIRRORS", "/work/.mirror"))
# short names the code writes before `@commit`
ALIASES = {"VA": "vllm-project/vllm-ascend", "X": "jd-opensource/xllm", "VMS": "mindspore-ai/vllm-mindspore"}
_REF = re.compile(r"(?<![\w/.-])((?:[A-Za-z0-9][\w.-]*/[\w.-]+)|VA|X|VMS)@([0-9a-f]{7,40})\b")
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:py|cpp|cc|c|h|hpp|cu|cuh|json|yaml|yml|md|sh|txt|toml)):"
                   r"((?:L?\d+(?:-\d+)?)(?:,\s?L?\d+(?:-\d+)?)*)")
_UNIT = 400  # a citation's paths follow its `repo@commit` within this many characters (or until the next ref)
# a released package named by version (`sglang==0.5.23`, `lmdeploy==0.17.0 wheel`) starts its own unit: the paths
# after it are that release's files, not the repository's before it
_RELEASE = re.compile(r"(?<![\w.-])[A-Za-z][\w.-]*==\d[\w.]*")
# a path a quoted crash log names (`Assertion error csrc/deep_ep.cpp:1233`) is the log's words, not a citation
_QUOTED_LOG = re.compile(r"Assertion error\s+$")


_BASE = re.compile(r"\s+((?:[\w.-]+/)+)(?=[\s(])")  # `Ascend/MindIE-LLM@8b4871a examples/atb_models/atb_llm/ (ATB):`


@dataclass(frozen=True)
class Citation:
    repo: str
    commit: str
    path: str  # as written
    lines: tuple[tuple[int, int], ...]
    where: str  # the moecfg file (or table) it was found in
    base: str = ""  # a folder written right after `repo@commit`: the paths that follow are below it


def find(text: str, where: str) -> list[Citation]:
    """Citations in `text`: each path:lines token belongs to the nearest `repo@commit` before it (same unit)."""
    out = []
    refs = list(_REF.finditer(text))
    for i, ref in enumerate(refs):
        end = min(refs[i + 1].start() if i + 1 < len(refs) else len(text), ref.end() + _UNIT)
        release = _RELEASE.search(text, ref.end(), end)
        end = release.start() if release else end
        repo = ALIASES.get(ref.group(1), ref.group(1))
        base = _BASE.match(text, ref.end())
        for m in _PATH.finditer(text, ref.end(), end):
            if _QUOTED_LOG.search(text, max(ref.end(), m.start() - 40), m.start()):
                continue
            path = m.group(1)
            if path.startswith("X/") and repo == ALIASES["X"]:  # xLLM's docstrings: `X = xllm/ in it`
                path = "xllm/" + path[2:]
            out.append(Citation(repo, ref.group(2), path, _ranges(m.group(2)), where,
                                base.group(1) if base else ""))
    return out


def _ranges(text: str) -> tuple[tuple[int, int], ...]:
    out = []
    for part in text.replace(" ", "").split(","):
        a, _, b = part.lstrip("L").partition("-")
        out.append((int(a), int(b.lstrip("L")) if b else int(a)))
    return tuple(out)


def snapshot(repo: str) -> Path | None:
    git = MIRRORS / repo.replace("/", "+") / "repo"
    return git if git.is_dir() else None


def _git(git: Path, *args: str) -> str | None:
    done = subprocess.run(["git", "--git-dir", str(git), *args], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


@functools.lru_cache(maxsize=None)
def _tree(git: Path, commit: str) -> tuple[str, ...]:
    listing = _git(git, "ls-tree", "-r", "--name-only", commit)
    return tuple(listing.splitlines()) if listing else ()


@functools.lru_cache(maxsize=None)
def _line_count(git: Path, commit: str, path: str) -> int:
    text = _git(git, "show", f"{commit}:{path}")
    return len(text.splitlines()) if text is not None else 0


def resolve(git: Path, commit: str, path: str, near: str | None) -> str | None:
    """The file at `commit` a citation means: as written, below the folder of the citation before it, or the only
    file in the tree whose path ends with it."""
    tree = _tree(git, commit)
    if path in tree:
        return path
    if near:
        folder = os.path.dirname(near)
        while folder:
            if f"{folder}/{path}" in tree:
                return f"{folder}/{path}"
            folder = os.path.dirname(folder)
    ends = [p for p in tree if p.endswith("/" + path)]
    return ends[0] if len(ends) == 1 else None


def check(cites: list[Citation]) -> tuple[list[str], list[str], int]:
    """(problems, unresolved, opened): a problem is a citation whose file is missing at the commit or whose line is
    past the file's end; unresolved, a bare name the snapshot does not hold once (another repository's file)."""
    problems, unresolved, opened, near = [], [], 0, {}
    for c in cites:
        git = snapshot(c.repo)
        if git is None:
            continue
        if not _tree(git, c.commit):
            problems.append(f"{c.where}: {c.repo}@{c.commit}: commit not in the snapshot")
            continue
        key = (c.repo, c.commit, c.where)
        path = resolve(git, c.commit, c.base + c.path, None) if c.base else None
        path = path or resolve(git, c.commit, c.path, near.get(key))
        if path is None:
            (problems if "/" in c.path else unresolved).append(
                f"{c.where}: {c.repo}@{c.commit} {c.path}: no such file")
            continue
        near[key] = path
        count = _line_count(git, c.commit, path)
        opened += 1
        for a, b in c.lines:
            if not 1 <= a <= b <= count:
                problems.append(f"{c.where}: {c.repo}@{c.commit} {path}:{a}-{b}: the file has {count} lines")
    return problems, unresolved, opened


def release_tables() -> list[Citation]:
    """The citations the release tables build at import (vllm-ascend's `cite`, vllm-mindspore's, xLLM's registry)."""
    sys.path.insert(0, str(ROOT))
    from moecfg.frameworks.vllm_ascend.releases import RELEASES as VA_RELEASES
    from moecfg.frameworks.vllm_mindspore.releases import RELEASES as VMS_RELEASES
    from moecfg.frameworks.xllm import releases as xr

    out = []
    for rel in VA_RELEASES.values():
        for topic, text in rel.cite.items():
            out += find(text, f"vllm-ascend {rel.key} cite[{topic}]")
    for key, rel in VMS_RELEASES.items():
        for topic in rel.cite:
            out += find(rel.at(topic), f"vllm-mindspore {key} cite[{topic}]")
    for release in xr.names():
        out += find(xr.dp_check(release), f"xllm {release} dp check") + find(xr.ep_check(release), f"xllm {release} ep")
        if xr.checks_backend(release):
            out += find(f"X@{xr.commit(release)} xllm/models/{xr.registry_lines(release)}", f"xllm {release} registry")
    return out + generated_tables()


def generated_tables() -> list[Citation]:
    """Every citation of the per-release tables (moecfg/frameworks/<name>/cites.json, tools/gen_release_cites.py) at
    its release's commit; rows read from a PyPI wheel (no commit) are not among them."""
    import json

    out = []
    for path in sorted(ROOT.glob("moecfg/frameworks/*/cites.json")):
        table = json.loads(path.read_text(encoding="utf-8"))
        for release, row in table["releases"].items():
            if "commit" not in row:
                continue
            for anchor, at in row["cites"].items():
                if at is not None:
                    out += find(f"{table['repo']}@{row['commit']} {at}", f"{table['framework']} {release} [{anchor}]")
    return out


def source_citations() -> list[Citation]:
    out = []
    for path in sorted([*ROOT.glob("moecfg/**/*.py"), *ROOT.glob("docs/**/*.md")]):
        out += find(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    return out


def main(argv: list[str]) -> int:
    cites = release_tables() + source_citations()
    problems, unresolved, opened = check(cites)
    held = sum(1 for c in cites if snapshot(c.repo) is not None)
    print(f"{len(cites)} citations, {held} in a local snapshot, {opened} opened, {len(unresolved)} bare names not "
          f"in that snapshot, {len(problems)} problems")
    for line in problems + (unresolved if "--list" in argv else []):
        print("  " + line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
