"""Engines moecfg recognises and reads but does not derive (FastDeploy, TensorRT-LLM; rtp-llm 0.2.0): the parallel
sizes a launch sets are read with a few flag specs (no unknown-flag notice: no flag table of the engine's release is
held), kept on a quiet `none` call, and the launch is listed as not derived (Derivation.unread: the coverage
report, /work/notes/COVERAGE.md)."""
from __future__ import annotations

from moecfg.frameworks import Derivation, OpCall, Unread
from moecfg.frameworks.flags import FlagSpec, parse_flags
from moecfg.frameworks.values import integer


def read_sizes(words, specs: dict[str, tuple[str, ...]], booleans=(), underscores: bool = True):
    """{size name: (value | None, flag)} of `specs` (name -> flag spellings), and the Flags read."""
    table = [FlagSpec(names[0], names[1:]) for names in specs.values()]
    table += [FlagSpec(b, takes_value=False) for b in booleans]
    flags = parse_flags(words, table, underscores=underscores)
    out = {}
    for name, names in specs.items():
        f = flags.get(names[0])
        out[name] = (integer(f.value) if f and f.value is not None else None, f)
    return out, flags


def not_derived(out: Derivation, launch, launcher: str, reason: str, sizes: dict, extra: dict | None = None) -> None:
    """A quiet call holding what was read, and the launch listed as not derived (coverage, when this build has it)."""
    args = {k: v for k, (v, f) in sizes.items() if v is not None} | (extra or {})
    why = {k: f"{v} <- {f.name} {f.value}" for k, (v, f) in sizes.items() if v is not None}
    src = {k: (f.span,) for k, (v, f) in sizes.items() if f is not None}
    out.calls.append(OpCall("serve", "none", None, args, why, src, why_none=reason, quiet=True))
    out.unread.append(Unread(launch.span, launcher, reason))
