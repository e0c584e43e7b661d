"""A torchtitan launch -> its parallel degrees, the checks torchtitan runs on them, and its expert dispatch listed as
not derived.

pytorch/torchtitan@b5bcd76: `--parallelism.<field> N` / `--parallelism.<field>=N` over ParallelismConfig's defaults
(torchtitan/config/configs.py:122-282); the world is torchrun's (--nproc_per_node x --nnodes), or NGPU for
./run_train.sh (run_train.sh:29, default 8); the token dispatcher (standard all-to-all, DeepEP v2 ElasticBuffer,
HybridEP) is chosen by the --config function (Python code, torchtitan/models/*/config_registry.py), not by a flag.
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.flags import known_value
from moecfg.frameworks.values import integer
from moecfg.sources.launch import Launch
from moecfg.trainers import phases
from moecfg.trainers.phases import Key
from moecfg.trainers.torchtitan import rules

T = "pytorch/torchtitan@b5bcd76"
_C = "torchtitan/config/configs.py"
# field -> (default, line of torchtitan/config/configs.py)
_DEGREES = {"data_parallel_replicate_degree": ("1", 122), "data_parallel_shard_degree": ("-1", 133),
            "tensor_parallel_degree": ("1", 166), "pipeline_parallel_degree": ("1", 180),
            "context_parallel_degree": ("1", 239), "expert_parallel_degree": ("1", 282)}


def _options(launch: Launch, start: int) -> tuple[dict[str, Key], list]:
    """`--a.b V` / `--a.b=V` words after the entry -> Key; the words not known statically."""
    out, hidden = {}, []
    words = list(launch.argv[start:])
    i = 0
    while i < len(words):
        w = words[i]
        if w.value is None:
            hidden.append(w)
        elif w.value.startswith("--"):
            name, eq, value = w.value[2:].partition("=")
            if eq:
                out[name] = Key("--" + name, known_value(value), w.span)
            elif i + 1 < len(words) and not (words[i + 1].value or "").startswith("--"):
                nxt = words[i + 1]
                out[name] = Key("--" + name, known_value(nxt.value), nxt.span)
                i += 1
        i += 1
    return out, hidden


def _world(launch: Launch, start: int) -> tuple[int | None, str]:
    words = launch.words()
    if words and (words[0] or "").endswith("run_train.sh"):
        entry = launch.env.get("NGPU")
        value = entry.value if entry is not None else "8"
        n = integer(value) if value is not None else None
        return (n if n and n > 0 else None), f"NGPU {value}" + ("" if entry else f" (run_train.sh's default, {T} "
                                                                                    "run_train.sh:29)")
    from moecfg.frameworks.megatron import parallel_sizes as P
    w = P.world(launch, start - 1 if words[start - 2:start - 1] == ["-m"] else start)
    return w.size, w.how


def derive_train(launch: Launch, ctx: LaunchContext, out: Derivation, start: int) -> None:
    opts, hidden = _options(launch, start)
    degrees = {}
    for field, (default, line) in _DEGREES.items():
        key = opts.get("parallelism." + field) or Key(f"parallelism.{field} {default} (torchtitan's default, {T} "
                                                      f"{_C}:{line})", default, launch.span)
        degrees[field] = (integer(key.value), key)
    ep, ep_key = degrees["expert_parallel_degree"]
    world, how = _world(launch, start)
    if not hidden and _refused(out, degrees, world, how, launch):
        return
    config = opts.get("config") or opts.get("job.config_file")
    named = f"{config.name} {config.value}" if config and config.value else "the --config function"
    if ep is None or ep > 1:
        phases.not_derived(out, launch, f"expert dispatch not derived: torchtitan's own token dispatcher at "
                           f"{ep_key.name.split(' ')[0]} {ep if ep is not None else '(not known statically)'} "
                           "(its comm "
                           f"backend, standard all-to-all, DeepEP v2 ElasticBuffer or HybridEP, is set by {named} in "
                           "Python; moecfg does not size ElasticBuffer / HybridEP buffers)")
        why = "torchtitan's token dispatcher is not derived by moecfg"
    else:
        why = f"no expert parallelism ({ep_key.name.split(' ')[0]} 1): no expert all-to-all across ranks"
    out.calls.append(OpCall("train", "none", None, {"engine": "torchtitan", "op_call": f"not derived ({why})"},
                            {"engine": f"torchtitan <- {named}", "expert_parallel_degree": f"{ep} <- {ep_key.name}"},
                            why_none=why, quiet=True))


def _refused(out: Derivation, degrees: dict, world: int | None, how: str, launch: Launch) -> bool:
    """MC741 / MC740: ParallelDims._validate (parallel_dims.py:166-191) for a known world."""
    (rep, _), (shard, sk), (cp, _), (tp, _), (pp, _), (ep, ek) = (degrees[f"{f}_degree"] for f in (
        "data_parallel_replicate", "data_parallel_shard", "context_parallel", "tensor_parallel", "pipeline_parallel",
        "expert_parallel"))
    if world is None or None in (rep, shard, cp, tp, pp, ep) or min(rep, cp, tp, pp, ep) < 1:
        return False
    outer = rep * cp * tp * pp
    if shard < 0:
        shard = world // outer
    if shard < 1 or rep * shard * cp * tp * pp != world:
        out.notes.append(Note(rules.WORLD_PRODUCT.code, f"dp_replicate {rep} x dp_shard {shard} x cp {cp} x tp {tp} x "
                              f"pp {pp} = {rep * max(shard, 0) * cp * tp * pp} is not the world size {world} ({how}): "
                              f"torchtitan asserts it ({T} torchtitan/distributed/parallel_dims.py:177-184); use "
                              f"degrees whose product divides {world}", sk.span if "default" not in sk.name else
                              launch.span))
        return True
    if (shard * cp * tp) % ep:
        out.notes.append(Note(rules.EP_SPARSE.code, f"{ek.name.split(' ')[0]} {ep} does not divide dp_shard {shard} x "
                              f"cp {cp} x tp {tp} = {shard * cp * tp} (world {world}, {how}): torchtitan raises "
                              f"ValueError ({T} torchtitan/distributed/parallel_dims.py:186-191); use a divisor of "
                              f"{shard * cp * tp}", ek.span))
        return True
    return False
