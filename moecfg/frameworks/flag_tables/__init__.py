"""vLLM / SGLang command-line flags per release, generated from the released wheels by tools/gen_flag_tables.py.

`<framework>.json` holds every release the script read; a row (option strings, kind, type, default) lists the
releases whose parser defines it. Loaded on the first launch of that framework (not at import), once.
Kinds: flag (store_true-like, no value), bool (BooleanOptionalAction: --x / --no-x), value, list (nargs + / *),
optional (nargs ?), json (a JSON object; vLLM also takes `--name.key value` sub-flags; type json|str: vLLM's
union_dict_and_str, a value not shaped `{...}` is kept as a string).
"""
from __future__ import annotations

import functools
import json
import os
import re

from moecfg.core.record import record
from moecfg.frameworks.flags import FlagSpec

_DIR = os.path.dirname(__file__)
# moecfg's own code asks for these names; a row naming one of them is stored under it (SGLang's
# `--tensor-parallel-size` / `--tp-size` row -> "--tp-size", alias "--tensor-parallel-size")
CANONICAL = {"sglang": ("--tp-size", "--dp-size", "--ep-size", "--pp-size", "--model-path"), "vllm": ()}
CANONICAL["sglang-kt"] = CANONICAL["sglang"]  # ktransformers' fork of SGLang (its own wheel, `sglang-kt`)


@record(frozen=True, slots=True)
class Table:
    framework: str
    release: str  # as published ("0.5.8", "0.11.1")
    specs: tuple[FlagSpec, ...]
    kinds: dict  # canonical name -> kind
    defaults: dict  # canonical name -> default (JSON value; None when not a literal)
    strings: frozenset = frozenset()  # JSON flags that keep a value not shaped `{...}` as a string (json|str)

    @property
    def json_flags(self) -> tuple[str, ...]:
        return tuple(n for n, k in self.kinds.items() if k == "json")

    def has(self, name: str) -> bool:
        return name in self.kinds


@functools.lru_cache(maxsize=None)
def _data(framework: str) -> dict:
    with open(os.path.join(_DIR, f"{framework}.json"), encoding="utf-8") as fh:
        return json.load(fh)


def releases(framework: str) -> tuple[str, ...]:
    """The releases read, oldest first."""
    return tuple(_data(framework)["releases"])


class _Where(tuple):
    """The releases of a row as (first, last) index ranges ("0-4,7" -> ((0, 4), (7, 7)))."""

    def __contains__(self, i) -> bool:
        return any(a <= i <= b for a, b in tuple.__iter__(self))

    @property
    def last(self) -> int:
        return max(b for _, b in tuple.__iter__(self))


def _indexes(text: str) -> _Where:
    parts = (p.partition("-") for p in text.split(","))
    return _Where((int(a), int(b or a)) for a, _, b in parts)


@functools.lru_cache(maxsize=None)
def _rows(framework: str) -> tuple:
    """(names, kind, default, release indexes, type) per row, the indexes parsed once."""
    return tuple((tuple(names), kind, default, _indexes(where), typ) for names, kind, typ, default, where
                 in _data(framework)["rows"])


@functools.lru_cache(maxsize=None)
def all_names(framework: str) -> frozenset:
    """Every option string any release read defines."""
    return frozenset(n for row in _rows(framework) for n in row[0])


def _spec(framework: str, names: tuple, kind: str) -> FlagSpec:
    canon = next((n for n in CANONICAL[framework] if n in names), names[0])
    return FlagSpec(canon, tuple(n for n in names if n != canon), takes_value=kind not in ("flag", "bool"),
                    negatable=kind == "bool", nargs={"list": "+", "optional": "?"}.get(kind))


@functools.lru_cache(maxsize=None)
def table(framework: str, release: str) -> Table:
    i = _data(framework)["releases"].index(release)
    specs, kinds, defaults, strings = [], {}, {}, set()
    for names, kind, default, where, typ in _rows(framework):
        if i in where:
            spec = _spec(framework, names, kind)
            specs.append(spec)
            kinds[spec.name], defaults[spec.name] = kind, default
            strings.update([spec.name] if typ == "json|str" else [])
    return Table(framework, release, tuple(specs), kinds, defaults, frozenset(strings))


def version_tuple(text: str) -> tuple | None:
    """(major, minor, micro, post) of a version as written (packaging.version: frameworks/versions.py)."""
    from moecfg.frameworks.versions import release_post

    return release_post(text)


@record(frozen=True, slots=True)
class Pick:
    """The flag table a launch is read with: `known` when the version came from the launch or the settings."""

    release: str
    known: bool
    how: str  # "image tag X" / "framework_versions.sglang = X in the settings" / "newest known release"
    newer: str = ""  # the version asked for when it is newer than every release read
    older: str = ""  # the version asked for when it is older than every release read


def pick(framework: str, version: str | None, how: str) -> Pick:
    """The release whose table reads a launch of `version` (image tag or settings): that release, else the newest
    read release not after it; a version newer than all -> the newest, said so. No version: the newest, not known."""
    rels = releases(framework)
    if not version or version_tuple(version) is None:
        return Pick(rels[-1], False, "newest known release")
    want = version_tuple(version)
    older = [r for r in rels if version_tuple(r) <= want]
    if not older:  # older than every release read: its flags are not known, read leniently
        return Pick(rels[0], False, f"{how}, older than the oldest release read ({rels[0]})", older=version)
    best = older[-1]
    if want[:3] > version_tuple(rels[-1])[:3]:
        return Pick(best, True, how, newer=version)
    return Pick(best, True, how)


def _image_release(framework: str, image: str | None) -> str | None:
    """The framework version an image tag names: `vllm/vllm-openai:v0.11.0`, `quay.io/ascend/vllm-ascend:v0.13.0rc1`
    (vllm-ascend releases track vLLM's version), `lmsysorg/sglang:v0.5.8-cu130`; None for other images (llm-d's
    tags are llm-d versions)."""
    from moecfg.frameworks import image_version

    name = (image or "").rsplit("/", 1)[-1].split(":", 1)[0].lower()
    if framework == "vllm" and not name.startswith("vllm"):
        return None
    if framework == "sglang" and "sglang" not in name:
        return None
    return image_version(image)


_DEV_TAGS = ("nightly", "dev", "main", "master")  # a build of the development branch, not a release


def unversioned_tag(framework: str, image: str | None) -> str | None:
    """The tag of the framework's own image when it names no version and no development build
    (`lmsysorg/sglang:deepseek-v4-blackwell`, `:latest`): an unknown version, read as the newest release."""
    name = (image or "").rsplit("/", 1)[-1]
    if ":" not in name or "@" in name or _image_release(framework, image):
        return None
    repo, tag = name.split(":", 1)
    if framework.replace("-", "") not in repo.lower().replace("-", "") or tag.lower().startswith(_DEV_TAGS):
        return None
    if "/ai-dynamo/" in f"/{image.lower()}" or re.match(r"v?\d", tag):  # another product's version (Dynamo's)
        return None
    return tag


def launch_pick(framework: str, launch, ctx, settings_keys: tuple[str, ...] = ()) -> Pick:
    """The flag table for a launch: the image tag, then `framework_versions` in the settings, then the newest.
    A tag naming no version (issue 30) is an unknown version derived as the newest release, not as a build newer
    than every release (which would apply the development branch's sizing to a launch every release sizes)."""
    tag = _image_release(framework, launch.image)
    if tag:
        return pick(framework, tag, f"image tag {launch.image}")
    for key in settings_keys or (framework,):
        configured = ctx.version_for(key) if ctx is not None else None
        if configured and version_tuple(configured):
            return pick(framework, configured, f"framework_versions.{key} = {configured} in the settings")
    plain = unversioned_tag(framework, launch.image)
    if plain is not None:
        newest = releases(framework)[-1]
        return Pick(newest, True, f"image tag {launch.image} names no version: read as the newest release, {newest}")
    return pick(framework, None, "")


def newer_note(framework: str, label: str, p: Pick, span):
    """MC040 (info) when the launch's version is newer than every release read; None otherwise."""
    from moecfg.frameworks import Note

    if not p.newer:
        return None
    return Note("MC040", f"{label} {p.newer} ({p.how}) is newer than the newest release moecfg has read "
                f"({releases(framework)[-1]}): its flags and behaviour are read as {p.release}'s", span)


@functools.lru_cache(maxsize=None)
def _lenient(framework: str) -> Table:
    """The newest table plus every flag an older release defined and the newest dropped (its latest form): what a
    launch of an unknown version is read with, so a flag of the release it probably runs is not taken as a typo."""
    rels = releases(framework)
    newest = table(framework, rels[-1])
    known = {n for s in newest.specs for n in (s.name, *s.aliases)}
    specs, kinds, defaults, strings = list(newest.specs), dict(newest.kinds), dict(newest.defaults), set(newest.strings)
    for names, kind, default, where, typ in sorted(_rows(framework), key=lambda r: -r[3].last):
        if known.intersection(names):
            continue
        known.update(names)
        spec = _spec(framework, names, kind)
        specs.append(spec)
        kinds[spec.name], defaults[spec.name] = kind, default
        strings.update([spec.name] if typ == "json|str" else [])
    return Table(framework, rels[-1], tuple(specs), kinds, defaults, frozenset(strings))


def reading_table(framework: str, p: Pick) -> Table:
    """The table a launch is parsed with: its release's when known, else the lenient union (see _lenient)."""
    return table(framework, p.release) if p.known else _lenient(framework)


def unknown_note(label: str, word, tab: Table, p: Pick | None, removed=frozenset()):
    """MC022 for a word the table does not define: a warning when the release is known (argparse stops the launch:
    `unrecognized arguments` or `ambiguous option`), else an info."""
    import difflib

    from moecfg.frameworks import Note

    head = (word.value or "").partition("=")[0].partition(".")[0]
    dashed = head.replace("_", "-") if head.startswith("--") else head
    names = tuple(n for s in tab.specs for n in (s.name, *s.aliases))
    close = difflib.get_close_matches(dashed, names, n=1, cutoff=0.8)
    hint = f"; did you mean {close[0]}?" if close else ""
    many = [n for n in names if n.startswith(dashed)] if dashed.startswith("--") else []
    where = f"{label} {tab.release}" if p is not None and p.known else f"{label} (no release of it defines it)"
    what = f"is ambiguous in {label} {tab.release} (argparse: could match {', '.join(many[:4])})" if len(many) > 1 \
        else f"is not a flag of {where}"
    known = p is not None and p.known
    if dashed in removed:
        return Note("MC022", f"{head}: a flag of vLLM's V0 engine (<= 0.10), removed since; it {what}", word.span,
                    severity=None if known else "info")
    if known:
        return Note("MC022", f"{head} {what} ({p.how}): argparse stops the launch{hint}", word.span)
    return Note("MC022", f"{head} {what}; the version is not known (pin it with an image tag or "
                f"`framework_versions:`){hint}", word.span, severity="info")
