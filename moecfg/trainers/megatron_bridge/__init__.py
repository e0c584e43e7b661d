"""Megatron-Bridge (NVIDIA-NeMo/Megatron-Bridge): `torchrun ... scripts/training/run_recipe.py --recipe <name>
[-tp N -pp N -ep N ...] [model.<field>=<value> ...]` is one launch of a Megatron-LM train: the recipe function sets
the model (its Hugging Face model, parallel sizes, flex dispatcher; recipes.json, tools/gen_bridge_recipes.py), the
launch's options and KEY=VALUE overrides go over it. `scripts/performance/setup_experiment.py -mr -ng -g ...` picks a
flat performance recipe by name and sets the same fields (perf.py). `scripts/conversion/convert.sh import|export|
roundtrip`, `scripts/inference/infer.sh` and the conversion / generation scripts torchrun starts (examples/conversion/
*.py) are a Megatron model's conversion or inference phase (conversion.py); `scripts/training/train.sh` submits
run_recipe.py over --nodes x --gpus-per-node ranks (train_sh.py).

Read at NVIDIA-NeMo/Megatron-Bridge@067f987: scripts/training/run_recipe.py:135-153 (COMMON_OVERRIDE_FIELDS),
:160-261 (its parser), :263-272 (trailing overrides), scripts/training/recipe_runner.py:228-258 (load_recipe).
"""
from __future__ import annotations

import re

from moecfg.frameworks import Derivation, LaunchContext
from moecfg.sources.launch import Launch

NAME = "megatron-bridge"
VERSIONS = ("0.4.2",)
# scripts/training/run_recipe.py (not scripts/performance/run_recipe.py: the benchmark runner has its own arguments)
_ENTRY = re.compile(r"^(?!.*\bperformance/)(?:.*/)?run_recipe\.py$")
_SETUP = re.compile(r"(?:^|/)performance/(?:setup_experiment|run_script)\.py$")  # the benchmark launcher (perf.py)


def _script_at(launch: Launch, script: re.Pattern) -> int | None:
    """Index of the script word (after a python / torchrun program), also when its folder is known only at run time
    (`"${ROOT_DIR}/scripts/training/run_recipe.py"`: the word's pattern), or None."""
    from moecfg.trainers.megatron_bridge.entries import names_only  # printf/echo, sed/cp/cat ...: no launch

    if names_only(launch.argv):
        return None
    return next((i for i, w in enumerate(launch.argv) if i > 0 and (w.value or w.pattern) and
                 script.search(w.value or w.pattern)), None)


def entry(launch: Launch) -> int | None:
    """Index of the run_recipe.py word, or None."""
    return _script_at(launch, _ENTRY)


def _setup(launch: Launch) -> int | None:
    """Index of scripts/performance/setup_experiment.py (perf.py), or None."""
    return _script_at(launch, _SETUP)


def _conversion(launch: Launch) -> tuple[str, int] | None:
    from moecfg.trainers.megatron_bridge import entries

    return entries.find(launch)


def _train_sh(launch: Launch) -> int | None:
    from moecfg.trainers.megatron_bridge import entries  # recognition: regular expressions only

    return entries.train_sh(launch)


def recognise(launch: Launch, ctx: LaunchContext | None = None) -> bool:
    return entry(launch) is not None or _setup(launch) is not None or _train_sh(launch) is not None or \
        _conversion(launch) is not None


def derive(launch: Launch, ctx: LaunchContext) -> Derivation:
    out = Derivation(NAME, VERSIONS[-1])
    at = entry(launch)
    if at is None and _train_sh(launch) is not None:
        from moecfg.trainers.megatron_bridge import train_sh

        train_sh.derive(launch, ctx, out, _train_sh(launch))
        return out
    if at is None and _setup(launch) is None:
        from moecfg.trainers.megatron_bridge import conversion

        kind, where = _conversion(launch)
        conversion.derive(launch, ctx, out, kind, where)
        return out
    if at is None:
        from moecfg.trainers.megatron_bridge import perf

        perf.derive(launch, ctx, out, _setup(launch))
        return out
    from moecfg.trainers.megatron_bridge.calls import _Read, derive_train

    recipe = _Read(launch, at + 1).options.get("--recipe")
    derive_train(launch, ctx, out, at)
    if recipe is not None and recipe.value is None and not _refused(out) and _alternatives(launch):
        return _branches(launch, ctx, Derivation(NAME, out.version))
    return out


def _alternatives(launch: Launch) -> tuple:
    from moecfg.sources.shell import branches

    return branches.of(launch)


def _refused(out: Derivation) -> bool:
    """The launch as read is refused whatever the branch (run_recipe.py's parser: MC735, MC736)."""
    from moecfg.trainers.megatron_bridge import rules

    return any(n.code in (rules.RECIPE_AND_MODEL.code, rules.NOT_AN_OVERRIDE.code) for n in out.notes)


def _branches(launch: Launch, ctx: LaunchContext, out: Derivation) -> Derivation:
    """A recipe chosen in the script's `if` / `case` (sources/shell/branches.py): each branch's launch derived on its
    own; what holds in one branch only is said for it (an error there becomes a warning naming the branch)."""
    from moecfg.core import registry
    from moecfg.core.record import replace

    said = set()
    for label, alternative in _alternatives(launch):
        d = derive(alternative, ctx)
        out.version = d.version
        for call in d.calls:  # the branch in the phase's name (explain-launch's title, JSON launch.role)
            call.role = f"{call.role} [{label}]"
            call.condition = f"{label}" + (f", and {call.condition}" if call.condition else "")
            out.calls.append(call)
        for note in d.notes:
            if note.code == "MC040":
                if note.code not in said:
                    said.add(note.code)
                    out.notes.append(note)
                continue
            rule = registry.get(note.code)
            error = (note.severity or (rule.severity if rule else "")) == "error"
            out.notes.append(replace(note, message=f"if {label}: {note.message}",
                                     severity="warning" if error else note.severity))
        out.unread.extend(replace(u, reason=f"{u.reason} ({label})") for u in d.unread)
    return out
