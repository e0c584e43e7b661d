"""The phases of a trainer launch: the argv each engine would receive, handed to the engine's own derivation.

`EngineArgs` writes an engine's command line word by word, each word positioned at the trainer key that set it (a
finding of the engine lands on `actor_rollout_ref.actor.megatron.expert_model_parallel_size=8`, not on a flag the
user never wrote); `run_phase` derives it with the engine's framework package (frameworks/megatron, frameworks/sglang,
frameworks/vllm, ...) and names the trainer's key beside every engine flag in the derivation texts and notes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from moecfg import frameworks
from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.sources.launch import EnvEntry, Launch, Unread, Word
from moecfg.sources.manifests.yaml_source import Span


@dataclass(frozen=True, slots=True)
class Key:
    """A trainer setting as written: its name in the trainer's own terms, its value (None: not known statically)
    and where it is. `default`: the value is the trainer's own default (its config file or argparse), not written."""

    name: str
    value: str | None
    span: Span
    default: bool = False

    def said(self) -> str:
        return f"{self.name} {self.value} (the trainer's default)" if self.default else self.name


class EngineArgs:
    """An engine's argv, built from trainer keys; `named` maps each engine flag to the key that set it."""

    def __init__(self, program: tuple[str, ...], at: Span):
        self.words: list[Word] = [Word(p, at) for p in program]
        self.named: dict[str, str] = {}

    def flag(self, flag: str, key: Key, value: str | None = None) -> None:
        """`flag value`; the value is the key's unless given (a value the trainer computes from the key)."""
        text = key.value if value is None else value
        self.words += [Word(flag, key.span), Word(text, key.span, exact=text is not None)]
        self._name(flag, key.said())

    def switch(self, flag: str, key: Key) -> None:
        """A store_true flag the key turns on."""
        self.words.append(Word(flag, key.span))
        self._name(flag, key.said())

    def word(self, word: Word, name: str | None = None) -> None:
        """A word passed through as written (an unknown word that may hide flags, a flag's value)."""
        self.words.append(word)
        if name and word.value and word.value.startswith("--"):
            self._name(word.value.split("=", 1)[0], name)

    def _name(self, flag: str, key: str) -> None:
        if key != flag:  # slime writes Megatron's own flags: nothing to name beside them
            self.named.setdefault(flag, key)

    def launch(self, like: Launch, env: dict[str, EnvEntry] | None = None, image: str | None = None) -> Launch:
        return Launch(tuple(self.words), (like.env if env is None else env).copy(), like.context,
                      image if image is not None else like.image, like.container, like.hints, like.sourced)


def run_phase(out: Derivation, framework: str, args: EngineArgs, launch: Launch, ctx: LaunchContext, role: str,
              engine: str) -> None:
    """Derive the engine's launch with its framework package; its op calls become the trainer's `role` phase
    (`rollout`, or `rollout-prefill` for an engine that splits into phases), its notes the trainer's."""
    module = frameworks.load(framework)
    if module is None:  # the engine's package is not in this build
        not_derived(out, launch, f"{role} engine not derived: {engine} is not in this build")
        return
    derived = module.derive(launch, ctx)
    for call in derived.calls:
        call.role = role if call.role in ("serve", "train") else f"{role}-{call.role}"
        call.derivation = {k: in_trainer_terms(v, args.named) for k, v in call.derivation.items()}
        call.derivation.setdefault("engine", f"{engine} <- the {role} phase of the {out.framework} launch")
        call.notes = [_translated(n, args.named) for n in call.notes]
        call.why_none = in_trainer_terms(call.why_none, args.named) if call.why_none else call.why_none
        out.calls.append(call)
    notes = [_translated(n, args.named) for n in derived.notes]
    out.notes.extend(notes)
    if not derived.calls:  # the phase is still listed (explain-launch, JSON `launch.role`), with why it has no op call
        why = "; ".join(f"{n.code} line {n.span.line}" for n in notes if n.code != "MC040") or "nothing to derive"
        name = engine.split(" (", 1)[0]
        out.calls.append(OpCall(role, "none", None, {"engine": name, "op_call": f"not derived ({why})"},
                                {"engine": f"{name} <- {engine}"}, why_none=f"{name}: no op call derived ({why})",
                                quiet=True))


def _translated(note: Note, named: dict[str, str]) -> Note:
    return replace(note, message=in_trainer_terms(note.message, named))


def in_trainer_terms(text: str, named: dict[str, str]) -> str:
    """`--expert-model-parallel-size 8` -> `--expert-model-parallel-size [actor_rollout_ref.actor.megatron.
    expert_model_parallel_size] 8`: each engine flag the trainer set is named with its key, once per text."""
    if not named or not text:
        return text
    seen: set[str] = set()
    words = "|".join(re.escape(n) for n in sorted(named, key=len, reverse=True))

    def beside(m) -> str:
        flag = m.group(1)
        if flag in seen:
            return flag
        seen.add(flag)
        return f"{flag} [{named[flag]}]"

    return re.sub(rf"(?<![\w-])({words})(?![\w-])", beside, text)


def env_with(launch: Launch, extra: dict[str, EnvEntry]) -> dict[str, EnvEntry]:
    env = launch.env.copy()  # an OpenEnv (sources/launch.py) stays open
    env.update(extra)
    return env


# The Megatron flag of each parallel size the world-size check reads (frameworks/megatron/parallel_sizes.py).
MEGATRON_SIZES = ("--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--context-parallel-size",
                  "--expert-model-parallel-size", "--expert-tensor-parallel-size")


_MEGATRON_FAILS = {True: "raises RuntimeError when it builds the expert groups", False: "asserts it at argument parsing"}


def megatron_world(world: int | None, how: str, at: Span, sizes: dict[str, tuple[int | None, Key | None]],
                   moe: bool) -> Note | None:
    """MC983 (Megatron's own check) for the world the trainer starts: `sizes` maps each of MEGATRON_SIZES to (value,
    the key that set it; None: Megatron's default). None when the world or a size is unknown, or it divides."""
    from moecfg.frameworks.megatron import parallel_sizes as P
    from moecfg.frameworks.megatron.rules import WORLD_INDIVISIBLE

    tp, pp, cp, ep = (sizes.get(f, (1, None))[0] for f in MEGATRON_SIZES[:4])
    etp = sizes.get(MEGATRON_SIZES[4], (tp, None))[0]
    if world is None or None in (tp, pp, cp, ep, etp) or min(tp, pp, cp, ep, etp) < 1:
        return None
    bad = P.indivisible(world, tp, pp, cp, ep, etp, moe)
    if bad is None:
        return None
    key = sizes.get(bad.flag, (None, None))[1]
    fix = f"set {key.name if key else bad.flag} {bad.fit}" if bad.fit else "change the parallel sizes"
    where = "megatron/core/parallel_state.py:874-884" if bad.expert else "megatron/training/arguments.py:432"
    return Note(WORLD_INDIVISIBLE.code, f"world size {world} ({how}) is not a multiple of {bad.text} = {bad.product}: "
                f"Megatron {_MEGATRON_FAILS[bad.expert]} "
                f"({P.MEGATRON} {where}); {fix}, or start a multiple of {bad.product} training processes",
                key.span if key and bad.fit else at)


def config_keys(launch: Launch) -> dict[str, Key]:
    """The `key=value` words of a launch a config reader built (sources/recipes/), each at its own span."""
    from moecfg.frameworks.flags import known_value

    out = {}
    for w in launch.argv[1:]:
        if w.value and "=" in w.value:
            name, _, value = w.value.partition("=")
            out[name] = Key(name, known_value(value), w.span)
    return out


def not_derived(out: Derivation, launch: Launch, reason: str) -> None:
    """A phase the trainer runs on an engine moecfg does not derive: listed as a part of the launch not read
    (coverage, `Derivation.unread`; /work/notes/COVERAGE.md), not a finding."""
    out.unread.append(Unread(launch.span, out.framework, reason))
