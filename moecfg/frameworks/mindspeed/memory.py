"""The HCCL buffer of each process group of a MindSpeed rank (hccl_buffer.py decides the size, groups.py the groups),
the per-rank memory table (frameworks/ascend_budget.py, as vllm-ascend's), MC928 and MC929."""
from __future__ import annotations

from moecfg.backends.device.devices import GIB, MIB
from moecfg.frameworks import Note, ascend_budget
from moecfg.frameworks.mindspeed import groups as G
from moecfg.frameworks.mindspeed import hccl_buffer as H
from moecfg.frameworks.mindspeed import rules
from moecfg.frameworks.values import clipped, finite

_FRACTION = "training: no memory fraction (weights, gradients, optimizer state and activations share the device)"


def add_buffers(a, ctx, call, world, lay: G.Layout, kind: str) -> None:
    """Fill call.arguments["hccl_buffer_mb"] (+ derivations), call.derived["memory_budget"] and the notes."""
    table, why_not = _applied(a, lay, kind, call)
    env = a.launch.env.get("HCCL_BUFFSIZE")
    mb, how = G.default_buffsize(env.value if env else None, env is None)
    if env is not None:
        call.sources["env.HCCL_BUFFSIZE"] = (env.span,)
    if env is not None and mb is None and not why_not:  # set to an unknown / no size: no table from a default
        shown = clipped(env.value) if env.value is not None else "(not known statically)"
        call.notes.append(Note("MC023", f"HCCL_BUFFSIZE={shown}: not a size moecfg knows; the HCCL buffers of the "
                               "groups that keep it and the per-rank memory table (MC928, MC929) are not derived",
                               env.span, about="env.HCCL_BUFFSIZE"))
    if why_not or mb is None:
        call.arguments["hccl_buffer_mb"] = "not derived"
        call.derivation["hccl_buffer_mb"] = why_not or "HCCL_BUFFSIZE is not known statically"
        return
    comms = G.communicators(lay, table, mb, how)
    call.arguments["hccl_buffer_mb"] = {c.name: c.mb for c in comms}
    for c in comms:
        ranks = f"{c.ranks} ranks" if c.ranks else "ranks unknown (the world size is not known)"
        call.derivation[f"hccl_buffer_mb.{c.name}"] = f"{c.mb} <- {c.why}; {ranks}, HCCL allocates 2 x {c.mb} MB" \
            + _lost_entry(table, c.name)
    if world.size is None or not comms:
        return
    product = ctx.product
    place = f"product {product} ({ctx.product_source or 'settings'})" if product else \
        "no product known: give --product A2|A3 (or device_memory_gb in the settings) for the memory check"
    tab = ascend_budget.table(comms, [], product, place, ctx.device_memory_gb, None, _FRACTION)
    call.derived["memory_budget"] = tab
    call.notes.extend(_over_device(a, comms, lay, tab, env, table or {}))


def _applied(a, lay: G.Layout, kind: str, call) -> tuple[dict | None, str]:
    """{group: (MB, how)} MindSpeed hands to get_nccl_options (None: none), or (None, why not derived)."""
    manual_flag = a.flags.get("--hccl-group-buffer")
    manual = {}
    if manual_flag is not None:
        if manual_flag.value is None:
            call.notes.append(Note("MC023", "--hccl-group-buffer: the value is not known statically; the groups' "
                                   "HCCL buffers and the per-rank memory table (MC928, MC929) are not derived",
                                   manual_flag.span))
            return None, "--hccl-group-buffer is not known statically"
        try:
            manual = H.parse_group_buffer(manual_flag.value)
        except H.SyntaxRefused:
            return None, "--hccl-group-buffer is refused by MindSpeed (MC925)"
    if not a.on("--hccl-group-buffer-adaptive"):
        if manual:
            call.notes.append(Note(rules.GROUP_BUFFER_UNAPPLIED.code, "--hccl-group-buffer without "
                                   "--hccl-group-buffer-adaptive: MindSpeed parses it but applies a group's size only "
                                   "under --hccl-group-buffer-adaptive (Ascend/MindSpeed@028de58 mindspeed/core/"
                                   "hccl_buffer/adaptor.py:20-25), so every group keeps HCCL_BUFFSIZE; add "
                                   "--hccl-group-buffer-adaptive (these entries then override its sizes)",
                                   manual_flag.span))
        return None, ""
    table, why_not = _adaptive(a, lay, kind)
    if table is None:
        return None, why_not
    table |= {k: (v, f"--hccl-group-buffer {k}:{v}") for k, v in manual.items()}
    for key in manual:
        if key in G.OLD_NAMES:
            call.notes.append(Note(rules.GROUP_BUFFER_UNAPPLIED.code, f"--hccl-group-buffer {key}:{manual[key]}: "
                                   f"Megatron core_v0.12.1 gives no group the name '{key}' (its expert groups are "
                                   f"{G.OLD_NAMES[key]}, {G.PS}:1132-1196), so this size reaches no group; write "
                                   f"{G.OLD_NAMES[key].split(' ')[0]}:{manual[key]}", manual_flag.span))
    return table, ""


def _adaptive(a, lay: G.Layout, kind: str) -> tuple[dict | None, str]:
    seq, hidden = (a.int(n) if a.flags.get(n) else None for n in ("--seq-length", "--hidden-size"))
    if seq is None or hidden is None:
        return None, "--hccl-group-buffer-adaptive sizes the groups from --seq-length and --hidden-size; one is not known"
    f = a.flags.get("--hccl-ep-group-buffer-adaptive-factor")
    factor = finite(f.value) if f else -1.0
    if factor is None:
        return None, "--hccl-ep-group-buffer-adaptive-factor is not a number known statically"
    mbs, topk = a.int("--micro-batch-size"), a.int("--moe-router-topk")
    if mbs is None or topk is None:
        return None, "--micro-batch-size or --moe-router-topk is not known"
    cp_args = _cp_args(a) if lay.cp > 1 else {}  # CP 1: no cp group, nothing of it is read
    if isinstance(cp_args, str):
        return None, cp_args
    shape = H.Shape(seq, mbs, hidden, lay.tp, lay.cp, lay.ep, topk, kind, a.on("--sequence-parallel"), factor,
                    a.on("--moe-tp-extend-ep"), **cp_args)
    try:
        table = H.adaptive(shape)
    except OverflowError:  # a factor or size so large the volume is no finite float
        return None, "--hccl-group-buffer-adaptive: the sizes overflow (a factor or size far beyond a real one)"
    except ValueError as exc:  # a value the context-parallel algorithm reads is not known
        return None, f"--hccl-group-buffer-adaptive: {exc}"
    return {k: (mb, f"--hccl-group-buffer-adaptive: {how}") for k, (mb, how) in table.items()}, ""


def _cp_args(a) -> dict | str:
    """The context-parallel values the adaptive sizes read, or why one is not known."""
    out = {"cp_algo": a.flags.value("--context-parallel-algo") or "megatron_cp_algo",
           "overlap": a.on("--use-cp-send-recv-overlap")}
    for key, flag, default in (("heads", "--num-attention-heads", None), ("window", "--cp-window-size", 1),
                               ("ulysses", "--ulysses-degree-in-cp", None)):
        f = a.flags.get(flag)
        if f is None:
            out[key] = default
            continue
        value = a.int(flag)
        if value is None:
            return f"{flag} is not known statically"
        out[key] = value
    if a.on("--group-query-attention"):
        groups = a.int("--num-query-groups") if a.flags.get("--num-query-groups") else None
        if groups is None:
            return "--group-query-attention without a known --num-query-groups"
        out["query_groups"] = groups
    return out


def _lost_entry(table, name: str) -> str:
    """For a group that kept HCCL_BUFFSIZE: the entry MindSpeed wrote for it under an older name, if any."""
    if not table or name in table:
        return ""
    lost = [k for k, v in G.OLD_NAMES.items() if name in v.split(" / ") and k in table]
    return "".join(f" (MindSpeed's table sets '{k}' = {table[k][0]} MB, a name Megatron core_v0.12.1 gives no group)"
                   for k in lost)


def _over_device(a, comms, lay: G.Layout, tab: dict, env, table: dict) -> list[Note]:
    """MC928: error when the groups every step uses exceed the device, warning when only all groups do."""
    device = tab.get("device_bytes")
    if device is None:
        return []
    used = [c for c in comms if c.name in G.every_step(lay)]
    for chosen, severity, what in ((used, "error", "the groups every training step uses"),
                                   (comms, "warning", "all the groups Megatron creates (an upper bound)")):
        total = sum(c.bytes for c in chosen)
        if total <= device:
            continue
        parts = " + ".join(f"{c.name} 2 x {c.mb} MB" for c in chosen)
        span = env.span if env is not None else a.launch.span
        return [Note(rules.BUFFERS_OVER_DEVICE.code, f"HCCL buffers of {what}: {parts} = {total / GIB:.2f} GB > "
                     f"{tab['device_memory']}: HCCL runs out of device memory when the groups first communicate; "
                     f"{_fix(chosen, device, table)}", span, severity=severity)]
    return []


def _fix(chosen, device: int, table: dict) -> str:
    default = [c for c in chosen if c.name not in table]  # these groups get the process-wide HCCL_BUFFSIZE
    fixed = sum(c.bytes for c in chosen if c not in default)
    if not default:
        return "lower the --hccl-group-buffer sizes of the largest groups"
    fits = (device - fixed) // (2 * MIB * len(default))
    if fits <= 0:
        return "the groups MindSpeed sizes alone exceed it: lower their --hccl-group-buffer sizes"
    return f"set HCCL_BUFFSIZE <= {fits} (shared by {len(default)} of these groups), or size them with " \
        "--hccl-group-buffer-adaptive"
