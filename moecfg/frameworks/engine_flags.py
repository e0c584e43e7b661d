"""An engine's argparse flags per release, from its `flags.json` (written by tools/gen_engine_flags.py from the
release's own argument code): the specs `parse_flags` reads a launch with, the defaults, and MC022 for a word the
release does not define. Used by the DeepEP engines (lightllm, rtp_llm, fastdeploy); each names its own file.
"""
from __future__ import annotations

import functools
import json

from moecfg.frameworks import Note
from moecfg.frameworks.flags import Flags, FlagSpec, parse_flags
from moecfg.frameworks.values import clipped


@functools.lru_cache(maxsize=8)
def _data(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _in(where: str, i: int) -> bool:
    for part in where.split(","):
        a, _, b = part.partition("-")
        if int(a) <= i <= int(b or a):
            return True
    return False


class FlagTable:
    """The flags.json of one engine: `label` names the command in messages (`lightllm.server.api_server`)."""

    def __init__(self, path: str, label: str, *, underscores: bool = False, abbrev: bool = True):
        self.path, self.label, self.underscores, self.abbrev = path, label, underscores, abbrev

    def releases(self) -> tuple[str, ...]:
        return tuple(_data(self.path)["releases"])

    def source(self, release: str) -> str:
        return _data(self.path)["sources"].get(release, "")

    def rows(self, release: str) -> list[list]:
        i = self.releases().index(release)
        return [r for r in _data(self.path)["rows"] if _in(r[3], i)]

    def env_map(self) -> dict[str, str]:
        """flag -> the variable that sets it (rtp-llm's EnvArgumentParser); empty for other engines."""
        return dict(_data(self.path).get("env", {}))

    def defaults(self, release: str) -> dict:
        return {r[0][0]: r[2] for r in self.rows(release)}

    def specs(self, release: str) -> tuple[FlagSpec, ...]:
        return tuple(FlagSpec(r[0][0], tuple(r[0][1:]), takes_value=r[1] != "flag",
                              nargs="+" if r[1] == "list" else None) for r in self.rows(release))

    def read(self, words, release: str, notes: list, *, quiet: bool = False) -> Flags:
        """The words after the entry point; MC022 for a word the release's parser does not define (none when
        `quiet`: the launch may run another build of the engine)."""
        flags = parse_flags(words, self.specs(release), underscores=self.underscores, abbrev=self.abbrev)
        for w in () if quiet else flags.unknown:
            notes.append(Note("MC022", f"`{clipped(w.value, 40)}` is not a flag of `{self.label}` in release "
                              f"{release}{self._elsewhere(w.value)}: argparse stops the launch with `unrecognized "
                              "arguments`", w.span))
        return flags

    def _elsewhere(self, word: str | None) -> str:
        name = (word or "").split("=", 1)[0]
        found = [rel for i, rel in enumerate(self.releases()) for r in _data(self.path)["rows"]
                 if name in r[0] and _in(r[3], i)]
        return f" (release {found[0]}..{found[-1]} defines it)" if found else ""


class Knobs:
    """A launch's flags (read with a FlagTable) and environment, with each value's spans and how it was said.
    A knob written with a value not known statically (`--tp $TP`) is unknown: None, never the default."""

    def __init__(self, launch, flags: Flags, defaults: dict, env_of: dict | None = None):
        self.launch, self.flags, self.defaults = launch, flags, defaults
        self.env_of = env_of or {}  # flag -> the variable that sets it when the flag is not written (rtp-llm)
        self.unknown: list = []  # (name, span) of knobs read whose value is not known statically
        self.unreadable: list = []  # (name, span, text) of knobs read whose text int() does not read

    def _env(self, name: str):
        return self.launch.env.get(self.env_of.get(name, name))

    def span(self, name: str) -> tuple:
        f = self.flags.get(name)
        if f is not None:
            return (f.span,)
        e = self._env(name)
        return (e.span,) if e is not None else ()

    def given(self, name: str) -> bool:
        return self.flags.get(name) is not None or self._env(name) is not None

    def text(self, name: str) -> str | None:
        f = self.flags.get(name)
        if f is not None:
            if f.value is None:
                self.unknown.append((name, f.span))
            return f.value
        e = self._env(name)
        if e is not None:
            if e.value is None:
                self.unknown.append((name, e.span))
            return e.value
        d = self.defaults.get(name)
        return None if d is None else str(d)

    def int(self, name: str, default: int | None = None) -> int | None:
        """The knob as int() reads it; `default` when not written (the flag table's default first)."""
        from moecfg.frameworks.values import integer

        if not self.given(name) and name not in self.defaults:
            return default
        value = self.text(name)
        if value is None:
            return default if not self.given(name) else None
        number = integer(value)
        if number is None and (name, self.span(name)[0], value) not in self.unreadable:
            self.unreadable.append((name, self.span(name)[0], value))
        return number

    def unknown_notes(self, engine: str, what: str) -> list:
        """MC023 for each knob read whose value is not known statically or not an integer: `what` is not derived."""
        from moecfg.frameworks import Note
        from moecfg.frameworks.values import clipped

        out = [Note("MC023", f"{name}: the value is not known statically; {what}: not derived or checked", span)
               for name, span in self.unknown]
        out += [Note("MC023", f"{name} {clipped(text)!r}: not a value {engine} reads; {what}: not derived or checked",
                     span) for name, span, text in self.unreadable]
        return out

    def on(self, name: str) -> bool:
        f = self.flags.get(name)
        return bool(f and f.value != "false")

    def said(self, name: str, value) -> str:
        """`--tp 8` / `NAME=8` as written, or `--tp 1 (default)` for a knob the launch does not set."""
        if self.flags.get(name) is not None:
            return f"{name} {value}"
        if self._env(name) is not None:
            return f"{self.env_of.get(name, name)}={value}"
        return f"{name} {value} (default)" if name.startswith("-") else f"{name} unset ({value} by default)"

    def refused(self, names, engine: str) -> list:
        """MC025 for each of `names` the launch sets (flag or variable) to an integer below 1: no rank to run on,
        and nothing moecfg derives from it (a zero world would divide by zero)."""
        from moecfg.frameworks import Note

        out = []
        for name in names:
            if self.given(name):
                value = self.int(name)
                if value is not None and value < 1:
                    said = self.said(name, value)
                    out.append(Note("MC025", f"`{said}`: {engine} refuses a value below 1; moecfg cannot derive the "
                                    "DeepEP buffers. Set it to >= 1 (or drop it for the default)", self.span(name)[0]))
        return out
