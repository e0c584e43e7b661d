"""ms-swift's `megatron <route>` flags -> the Megatron-LM command line of the train phase and the vLLM one of a
colocated GRPO rollout.

modelscope/ms-swift@3602360:
- swift/cli/main.py:30-35, 74-98: with NPROC_PER_NODE or NNODES in the environment the script runs
  `torch.distributed.run --nproc_per_node $NPROC_PER_NODE --nnodes $NNODES` (an unset one is left to torchrun:
  --nproc_per_node 1, --nnodes 1); with neither, one process; argv[0] ending in .yaml/.json is a config file whose
  keys become flags (parse_yaml_args, :38-71);
- swift/megatron/arguments/megatron_args.py:657 moe_token_dispatcher_type defaults to 'alltoall' (Megatron's own
  default is allgather), :658 moe_enable_deepep False, :619 expert_tensor_parallel_size 1 (Megatron's: TP); the
  flags are dataclass fields (`--name value`, a bool as `--name true` or alone);
- the model's MoE shape comes from the Hugging Face config of --model (mcore-bridge); frameworks/models.py resolves it;
- swift/megatron/trainers/rollout_mixin.py:403-406, 482-506: `--vllm_mode colocate` builds one vLLM engine per group
  of --vllm_tensor_parallel_size ranks (default 1, megatron_args.py:109) without expert parallelism.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.models import resolve_model, unresolved_reason
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch, Word
from moecfg.trainers import phases
from moecfg.trainers.ms_swift import releases, rules
from moecfg.trainers.phases import EngineArgs, Key
from moecfg.trainers.megatron_keys import TAKES_VALUE as _MEGATRON

S = releases.SWIFT
# ms-swift's own defaults for Megatron flags whose Megatron default differs
_DEFAULTS = {"--moe-token-dispatcher-type": ("alltoall", "swift/megatron/arguments/megatron_args.py:657"),
             "--expert-tensor-parallel-size": ("1", "swift/megatron/arguments/megatron_args.py:619")}
_TRUE = ("true", "1", "yes")


def _read(words: list[Word]) -> tuple[dict[str, Key], list[Word]]:
    """`--name value` / `--name=value` / `--name` (a bool) -> {--dashed-name: Key}, and the unknown words."""
    flags: dict[str, Key] = {}
    hidden: list[Word] = []
    i = 0
    while i < len(words):
        w = words[i]
        text = w.value
        if text is None:
            hidden.append(w)
            i += 1
            continue
        if not text.startswith("--"):
            i += 1
            continue
        name, eq, inline = text.partition("=")
        dashed = "--" + name[2:].replace("_", "-")
        if eq:
            flags[dashed] = Key(name, known_value(inline) if w.exact else None, w.span)
            i += 1
            continue
        values = []
        j = i + 1
        switch = _MEGATRON.get(dashed) is False  # `--sequence_parallel true` or alone: an unknown word after it
        while j < len(words) and not (words[j].value or "").startswith("--") and (  # may hold flags: not taken
                words[j].value is not None or not (values or switch)):
            values.append(words[j])
            j += 1
        flags[dashed] = Key(name, values[0].value if values else "true", w.span)
        i = j
    return flags, hidden


def derive_phases(launch: Launch, ctx: LaunchContext, out: Derivation, start: int, route: str) -> None:
    words = list(launch.argv[start:])
    out.notes.append(Note("MC040", f"ms-swift version not given: read as ms-swift {releases.VERSION} ({S}, the "
                          "newest read)", launch.span))
    if words and (words[0].value or "").endswith((".yaml", ".yml", ".json")):
        phases.not_derived(out, launch, f"train engine not derived: the flags are in the config file {words[0].value} "
                           "(swift/cli/main.py:38-71 parse_yaml_args), not read")
        return
    if route == "export":  # a checkpoint conversion: no training step, no dispatcher
        out.calls.append(_quiet("megatron export converts a checkpoint: no MoE dispatch runs"))
        return
    flags, hidden = _read(words)
    world = _world(launch)
    _train(launch, ctx, out, flags, hidden, world)
    if route == "rlhf":
        _rollout(launch, ctx, out, flags, world)


def _quiet(why: str):
    from moecfg.frameworks import OpCall

    return OpCall("train", "none", None, {}, why_none=why, quiet=True)


def _world(launch: Launch) -> tuple[int | None, str, Word | None]:
    """(world size, how, where) from NPROC_PER_NODE x NNODES as the script sets them; unknown when the script sets
    neither (they may come from outside it) or one of them is not a known integer."""
    nproc, nnodes = launch.env.get("NPROC_PER_NODE"), launch.env.get("NNODES")
    if nproc is None and nnodes is None:
        return None, "NPROC_PER_NODE / NNODES not set in the script", None
    p = integer(nproc.value) if nproc is not None else 1
    n = integer(nnodes.value) if nnodes is not None else 1
    if not p or not n or p < 1 or n < 1:
        return None, "NPROC_PER_NODE / NNODES not known statically", None
    how = f"NPROC_PER_NODE {p if nproc else '(unset: torchrun --nproc_per_node 1)'} x NNODES " \
          f"{n if nnodes else '(unset: torchrun --nnodes 1)'}"
    at = nproc or nnodes
    return p * n, how, Word(str(p * n), at.span)


def _train(launch, ctx, out, flags: dict[str, Key], hidden, world) -> None:
    mg = EngineArgs(("pretrain_gpt.py",), launch.span)
    sizes: dict[str, tuple[int | None, Key]] = {}
    for flag, key in flags.items():
        if flag not in _MEGATRON:
            continue
        if _MEGATRON[flag]:
            mg.flag(flag, key)
            if flag in phases.MEGATRON_SIZES:
                sizes[flag] = (integer(key.value), key)
        elif (key.value or "").lower() in _TRUE:
            mg.switch(flag, key)
    for flag, (value, where) in _DEFAULTS.items():
        if flag not in flags and not hidden:  # an unknown word may set it: no default stands in for it
            key = Key(f"--{flag[2:].replace('-', '_')} {value} (ms-swift's default, {S} {where})", value, launch.span)
            mg.flag(flag, key)
            if flag in phases.MEGATRON_SIZES:
                sizes[flag] = (integer(value), key)
    for w in hidden:
        mg.word(w)  # an unknown word may hold flags: Megatron's derivation says so
    model = flags.get("--model")
    ep = sizes.get("--expert-model-parallel-size", (1, None))[0]
    dims = resolve_model(model.value if model else None, ctx)
    if dims is None:
        if (ep or 1) > 1:
            out.notes.append(Note("MC042", f"--model: {unresolved_reason(model.value if model else None, ctx)}",
                                  model.span if model else launch.span))
        else:
            out.calls.append(_quiet("the model is not known to moecfg and no expert parallelism is set"))
        return
    for flag, value in (("--num-experts", dims.num_experts), ("--hidden-size", dims.hidden),
                        ("--moe-router-topk", dims.topk)):
        if flag not in flags:
            mg.flag(flag, Key(f"--model ({dims.how})", None, model.span), str(value))
    size, how, _ = world
    if size is not None and not hidden:
        note = phases.megatron_world(size, how, launch.span, sizes, True)
        if note is not None:
            out.notes.append(note)
            return
    phases.run_phase(out, "megatron", mg, mg.launch(launch), ctx, "train",
                     f"Megatron-LM (ms-swift's Megatron trainer, {S} swift/megatron)")


def _rollout(launch, ctx, out, flags: dict[str, Key], world) -> None:
    use = flags.get("--use-vllm")
    mode = flags.get("--vllm-mode")
    if (use is not None and (use.value or "").lower() not in _TRUE) or mode is None or mode.value != "colocate":
        return  # server mode: the rollout is another launch (`swift rollout`); no vLLM here
    tp = flags.get("--vllm-tensor-parallel-size") or Key("--vllm_tensor_parallel_size", "1", launch.span, default=True)
    t, size = integer(tp.value), world[0]
    if t and size and size % t:
        out.notes.append(Note(rules.VLLM_TP_WORLD.code, f"{tp.name} {t} does not divide the world size {size} "
                              f"({world[1]}): ms-swift raises ValueError ({S} swift/megatron/trainers/rollout_mixin.py:"
                              "404-406); use a size that divides it", tp.span))
        return
    model = flags.get("--model")
    eng = EngineArgs(("vllm", "serve"), launch.span)
    eng.word(Word(model.value if model else None, model.span if model else launch.span,
                  exact=bool(model and model.value)))
    eng.flag("--tensor-parallel-size", tp)
    phases.run_phase(out, "vllm", eng, eng.launch(launch), ctx, "rollout",
                     f"vLLM (ms-swift's colocated GRPO engine, {S} swift/megatron/trainers/rollout_mixin.py:482-506)")
