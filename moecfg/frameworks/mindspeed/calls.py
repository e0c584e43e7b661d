"""From a MindSpeed-LLM launch to what it builds: the parallel layout, the HCCL buffer of each process group, and the
per-rank memory table; MC925-MC929 and Megatron's MC981 as notes at the flag that causes them.

The call is of kind `none` (MindSpeed's alltoall / allgather dispatchers run HCCL collectives, no fused MC2 / DeepEP
buffer moecfg models): its arguments are the derived values, each with its derivation (`moecfg explain-launch`).
"""
from __future__ import annotations

from moecfg.frameworks import Note, OpCall
from moecfg.frameworks.flags import FlagSpec, parse_flags
from moecfg.frameworks.megatron import parallel_sizes as P
from moecfg.frameworks.megatron import rules as megatron_rules
from moecfg.frameworks.mindspeed import groups as G
from moecfg.frameworks.mindspeed import hccl_buffer as H
from moecfg.frameworks.mindspeed import rules
from moecfg.frameworks.values import clipped, finite, integer, refused

_INT = ("--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--context-parallel-size",
        "--expert-model-parallel-size", "--expert-tensor-parallel-size", "--num-experts", "--moe-router-topk",
        "--hidden-size", "--seq-length", "--micro-batch-size")
_BOOL = ("--sequence-parallel", "--hccl-group-buffer-adaptive", "--moe-tp-extend-ep", "--moe-permutation-async-comm",
         "--moe-grouped-gemm", "--moe-alltoall-overlap-comm", "--moe-allgather-overlap-comm", "--moe-fb-overlap",
         "--moe-alltoall-mc2", "--use-ascend-mc2")
FLAGS = tuple(FlagSpec(n) for n in _INT) + tuple(FlagSpec(n, takes_value=False) for n in _BOOL) + tuple(
    FlagSpec(n) for n in ("--moe-token-dispatcher-type", "--hccl-group-buffer", "--hccl-ep-group-buffer-adaptive-factor",
                          "--context-parallel-algo", "--moe-expert-capacity-factor", "--num-attention-heads",
                          "--num-query-groups", "--cp-window-size", "--ulysses-degree-in-cp", "--yaml-cfg")) + tuple(
    FlagSpec(n, takes_value=False) for n in ("--group-query-attention", "--use-cp-send-recv-overlap",
                                             "--use-checkpoint-args"))
_DEFAULTS = {"--tensor-model-parallel-size": 1, "--pipeline-model-parallel-size": 1, "--context-parallel-size": 1,
             "--expert-model-parallel-size": 1, "--moe-router-topk": 2, "--micro-batch-size": 1}
_MEG = "NVIDIA/Megatron-LM@a845aa7 (core_v0.12.1) megatron/training/arguments.py"


class Args:
    """The Megatron arguments of the launch, read once; notes for values moecfg cannot use."""

    def __init__(self, launch, start: int):
        self.launch, self.notes = launch, []
        self.flags = parse_flags(launch.argv[start:], FLAGS, underscores=False)
        self.unknown = [w for w in self.flags.positionals if w.value is None]

    def span(self, *names):
        return next((self.flags.get(n).span for n in names if self.flags.get(n)), self.launch.span)

    def on(self, name) -> bool:
        return self.flags.boolean(name)

    def int(self, name, lo: int = 1):
        """The flag's int (Megatron's argparse type=int), its default when absent, None (with a note) otherwise."""
        f = self.flags.get(name)
        if f is None:
            return _DEFAULTS.get(name)
        value = integer(f.value) if f.value is not None else None
        if value is None:
            self.notes.append(Note("MC023", f"{name} {clipped(f.value) if f.value is not None else '(unknown)'}: not "
                                   "an integer known statically; what depends on it is not derived", f.span))
        elif value < lo:
            self.notes.append(refused(name, value, lo, "Megatron-LM", f.span, "the process groups"))
            value = None
        return value

    def said(self, name, value) -> str:
        return f"{name} {value}" if self.flags.get(name) else f"{name} {value} (default)"


def derive_call(launch, ctx, start: int, why_ms: str) -> tuple[OpCall | None, list[Note]]:
    a = Args(launch, start)
    notes = _syntax(a)
    if a.unknown:
        notes.append(Note("MC023", f"{len(a.unknown)} argument word(s) of the MindSpeed command are not known "
                          "statically (unset variables): parallel sizes or buffer flags may be among them, so the "
                          "process groups and their HCCL buffers are not derived", a.unknown[0].span))
        return None, notes
    if a.on("--use-checkpoint-args"):  # Megatron's _set_arg(force=True) puts the checkpoint's over the command line
        notes.append(Note("MC023", "--use-checkpoint-args: the number of experts and the router's top-k come from the "
                          f"checkpoint's arguments ({_MEG.replace('arguments.py', 'checkpointing.py')}:1059-1061, "
                          "1106-1109 load_args_from_checkpoint, force=True), not known statically: the "
                          "process groups and their HCCL buffers are not derived", a.span("--use-checkpoint-args")))
        return None, notes
    sizes = {n: a.int(n) for n in _INT[:4]}  # TP, PP, CP, EP (ETP defaults to TP, read below)
    experts = a.int("--num-experts", lo=0) if a.flags.get("--num-experts") else 0
    world = P.world(launch, start, absent_known=False)  # as Megatron: PET_* may come from the job (Kubeflow)
    if None in sizes.values() or experts is None:
        return None, notes + a.notes
    tp, pp, cp, ep = sizes.values()
    etp = a.int("--expert-tensor-parallel-size") if a.flags.get("--expert-tensor-parallel-size") else tp
    notes += _moe_refusals(a, experts, tp, ep, etp) + _world_refusals(a, world, tp, pp, cp, ep, etp, experts > 0)
    if etp is None or any(n.code in (rules.WORLD_INDIVISIBLE.code, "MC981") for n in notes):
        return None, notes + a.notes
    kind = a.flags.value("--moe-token-dispatcher-type") or "allgather"
    call = _call(a, ctx, world, (tp, pp, cp, ep, etp), experts, kind, why_ms)
    call.notes.extend(a.notes)
    return call, notes


def _current_keys() -> list[str]:
    """The first allowed group names that still name a Megatron group (`ep`, not the older `exp`)."""
    from moecfg.frameworks.mindspeed.groups import OLD_NAMES

    return [k for k in H.ALLOWED_KEYS if k not in OLD_NAMES][:12]


def _nearest(text: str) -> str:
    """' (did you mean `ep`?)' for the first key MindSpeed does not allow, when one is close."""
    from moecfg.core.fields import suggest

    sep = "," if "," in text else ";"
    keys = [part.partition(":")[0].strip() for part in text.split(sep)]
    bad = next((k for k in keys if k and k not in H.ALLOWED_KEYS), None)
    return suggest(bad, H.ALLOWED_KEYS) if bad else ""


def _syntax(a: Args) -> list[Note]:
    """MC925: --hccl-group-buffer text MindSpeed refuses (checked whatever else is unknown)."""
    f = a.flags.get("--hccl-group-buffer")
    if f is None or f.value is None:
        return []
    try:
        H.parse_group_buffer(f.value)
    except H.SyntaxRefused as exc:
        return [Note(rules.GROUP_BUFFER_SYNTAX.code, f"--hccl-group-buffer \"{clipped(f.value, 60)}\": MindSpeed raises "
                     f"RuntimeError at start-up: \"{exc}\"; write `group:MB` pairs separated by ';' with groups from "
                     f"{', '.join(_current_keys())}, ... and MB > 0{_nearest(f.value)} ({H.HAF}:8-67)", f.span)]
    return []


def _moe_refusals(a: Args, experts: int, tp: int, ep: int, etp: int | None) -> list[Note]:
    """Megatron's MC981 and MindSpeed's validate_args refusals (MC926), for a MoE model."""
    if not experts:
        return []
    out = []
    if experts % ep:
        out.append(Note(megatron_rules.EXPERTS_DIVISIBLE.code, f"--num-experts {experts} is not a multiple of "
                        f"--expert-model-parallel-size {ep}: Megatron asserts it at argument parsing ({_MEG}:852-853); "
                        "use an EP size that divides it", a.span("--expert-model-parallel-size")))
    kind = a.flags.value("--moe-token-dispatcher-type") or "allgather"
    src = f"{rules.MS} mindspeed/features_manager/moe"
    need = []
    if a.on("--moe-tp-extend-ep"):
        if experts % (tp * ep):
            need.append(("--moe-tp-extend-ep", f"needs --num-experts {experts} divisible by TP {tp} x EP {ep}",
                         "tp_extend_ep.py:22-23"))
        if not (a.on("--moe-permutation-async-comm") and a.on("--moe-grouped-gemm")):
            need.append(("--moe-tp-extend-ep", "needs --moe-permutation-async-comm and --moe-grouped-gemm",
                         "tp_extend_ep.py:24-26"))
        if a.flags.get("--moe-expert-capacity-factor"):
            need.append(("--moe-tp-extend-ep", "refuses --moe-expert-capacity-factor", "tp_extend_ep.py:27-28"))
    if a.on("--moe-alltoall-overlap-comm"):
        need += _alltoall_overlap(a, kind, tp, ep)
    if a.on("--moe-allgather-overlap-comm"):
        if kind != "allgather":
            need.append(("--moe-allgather-overlap-comm", f"needs --moe-token-dispatcher-type allgather (not {kind})",
                         "moe_allgather_overlap.py:24-25"))
        elif not (a.on("--moe-permutation-async-comm") and a.on("--moe-grouped-gemm")):
            need.append(("--moe-allgather-overlap-comm", "needs --moe-permutation-async-comm and --moe-grouped-gemm",
                         "moe_allgather_overlap.py:26-30"))
    if a.on("--moe-fb-overlap"):
        need += _fb_overlap(a, kind, ep, etp)
    if a.on("--moe-alltoall-mc2"):
        need += _alltoall_mc2(a, kind, tp, etp)
    for flag, what, where in need:
        out.append(Note(rules.MOE_FLAGS_REFUSED.code, f"{flag} {what}: MindSpeed raises AssertionError when it "
                        f"validates the arguments ({src}/{where})", a.span(flag)))
    return out


def _alltoall_overlap(a: Args, kind: str, tp: int, ep: int) -> list[tuple[str, str, str]]:
    flag, where = "--moe-alltoall-overlap-comm", "moe_alltoall_overlap.py"
    if kind not in ("alltoall", "alltoall_seq"):
        return [(flag, f"needs --moe-token-dispatcher-type alltoall or alltoall_seq (not {kind})", f"{where}:24-25")]
    if ep == 1:
        return [(flag, "needs --expert-model-parallel-size > 1", f"{where}:27-28")]
    if kind == "alltoall":
        if not a.on("--moe-grouped-gemm"):
            return [(flag, "with alltoall needs --moe-grouped-gemm", f"{where}:30-32")]
        if a.on("--moe-tp-extend-ep"):
            return [(flag, "with alltoall refuses --moe-tp-extend-ep (use alltoall_seq)", f"{where}:33-34")]
        return []
    if not (a.on("--moe-permutation-async-comm") and a.on("--moe-grouped-gemm")):
        return [(flag, "with alltoall_seq needs --moe-permutation-async-comm and --moe-grouped-gemm", f"{where}:39-43")]
    if tp > 1 and not a.on("--moe-tp-extend-ep"):
        return [(flag, f"with alltoall_seq and TP {tp} needs --moe-tp-extend-ep", f"{where}:44-45")]
    return []


def _fb_overlap(a: Args, kind: str, ep: int, etp: int | None) -> list[tuple[str, str, str]]:
    """fb_overlap.py:85-94 (MoEFwdBwdOverlapFeature.validate_args; the checks moecfg reads flags for)."""
    flag, where = "--moe-fb-overlap", "fb_overlap.py"
    if a.on("--moe-tp-extend-ep"):
        return [(flag, "is incompatible with --moe-tp-extend-ep", f"{where}:85")]
    if not a.on("--moe-grouped-gemm"):
        return [(flag, "requires --moe-grouped-gemm", f"{where}:87")]
    if kind in ("allgather", "alltoall_seq"):
        return [(flag, f"does not support --moe-token-dispatcher-type {kind}", f"{where}:88-89")]
    if etp is not None and (etp != 1 or ep == 1):
        return [(flag, f"needs expert-TP 1 (here {etp}) and EP > 1 (here {ep})", f"{where}:91-94")]
    return []


def _alltoall_mc2(a: Args, kind: str, tp: int, etp: int | None) -> list[tuple[str, str, str]]:
    """moe_alltoall_mc2.py:21-42 (MoEAlltoAllMC2Feature.validate_args)."""
    flag, where = "--moe-alltoall-mc2", "moe_alltoall_mc2.py"
    for other in ("--use-ascend-mc2", "--moe-alltoall-overlap-comm", "--moe-allgather-overlap-comm", "--moe-fb-overlap",
                  "--moe-tp-extend-ep"):
        if a.on(other):
            return [(flag, f"is incompatible with {other}", f"{where}:22-26")]
    if kind not in ("alltoall", "alltoall_seq"):
        return [(flag, f"needs --moe-token-dispatcher-type alltoall or alltoall_seq (not {kind})", f"{where}:28-29")]
    if kind == "alltoall_seq" and tp != 1:
        return [(flag, f"with alltoall_seq needs TP 1 (here {tp})", f"{where}:33-35")]
    if kind == "alltoall" and etp is not None and etp != 1:
        return [(flag, f"with alltoall needs expert-TP 1 (here {etp})", f"{where}:36-38")]
    if kind == "alltoall" and a.flags.get("--moe-expert-capacity-factor"):
        return [(flag, "refuses --moe-expert-capacity-factor (dropless only)", f"{where}:39-40")]
    return []


def _world_refusals(a, world, tp, pp, cp, ep, etp, moe) -> list[Note]:
    """MC927: the world size is not a multiple of TP x PP x CP, or of ETP x EP x PP (Megatron's RuntimeErrors)."""
    if world.size is None:  # the size option written but not usable (`--worker_num 0`, `$N`): said, no default
        return [Note("MC023", f"{clipped(world.how, 160)}; no positive process count known statically, so the world "
                     "size is not derived (MC927 and the per-rank memory check are not made)", world.spans[0])
                ] if world.written and world.spans else []
    elsewhere = next((f for f in P.SIZES_ELSEWHERE if a.flags.get(f)), None)
    bad = None if elsewhere or etp is None else P.indivisible(world.size, tp, pp, cp, ep, etp, moe)
    if bad is None:
        return []
    src = f"{G.PS}:{'698-703' if bad.expert else '629-630'}"
    named = a.flags.get(bad.flag) if bad.fit else None  # the finding sits at the flag it fixes
    span = named.span if named else world.spans[0] if world.spans else a.launch.span
    return [Note(rules.WORLD_INDIVISIBLE.code, f"world size {world.size} ({world.how}) is not a multiple of "
                 f"{bad.text} = {bad.product}: Megatron raises RuntimeError when it builds the process groups ({src}); "
                 f"{bad.fix(world.size)}, or launch a multiple of {bad.product} processes", span)]


def _call(a: Args, ctx, world, par, experts: int, kind: str, why_ms: str) -> OpCall:
    from moecfg.frameworks.mindspeed import memory

    tp, pp, cp, ep, etp = par
    moe = experts > 0
    args = {"framework": "MindSpeed", "world_size": world.size if world.size is not None else "unknown", "tp": tp,
            "pp": pp, "cp": cp}
    how = {"framework": f"MindSpeed <- {why_ms}", "world_size": world.how, "tp": a.said("--tensor-model-parallel-size", tp),
           "pp": a.said("--pipeline-model-parallel-size", pp), "cp": a.said("--context-parallel-size", cp)}
    if moe:
        args |= {"ep": ep, "expert_tp": etp, "num_experts": experts, "dispatcher": kind}
        how |= {"ep": a.said("--expert-model-parallel-size", ep),
                "expert_tp": f"--expert-tensor-parallel-size {etp}" if a.flags.get("--expert-tensor-parallel-size")
                else f"TP {tp} (Megatron's default)", "num_experts": f"--num-experts {experts}",
                "dispatcher": a.said("--moe-token-dispatcher-type", kind)}
    why = (f"--moe-token-dispatcher-type {kind}: HCCL {'all-gather' if kind == 'allgather' else 'all-to-all'} over "
           "the expert groups, each with the HCCL buffer MindSpeed gives it or HCCL_BUFFSIZE (`moecfg explain-launch` "
           "lists them); no fused MC2 / DeepEP buffer"
           if moe else "no --num-experts: a dense model, no MoE dispatch")
    call = OpCall("train", "none", None, args, how, {"world_size": world.spans}, why_none=why, quiet=not moe)
    group = "tp_ep_mp" if kind == "allgather" or (kind == "alltoall_seq" and a.on("--moe-tp-extend-ep")) else "ep"
    memory.add_buffers(a, ctx, call, world, G.Layout(world.size or 0, tp, pp, cp, ep, etp, moe, group), kind)
    return call
