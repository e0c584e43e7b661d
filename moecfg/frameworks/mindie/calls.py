"""What MindIE resolves from one ModelConfig entry: the start-up checks (rules.py cites the lines), the op calls of
the torch backend (torch_backend.py), the atb backend's buffers (atb.py) and the memory they take (memory.py). Values MindIE
leaves to run time stay unknown.

HCCL_BUFFSIZE: the env file beside config.json (conf/mindie_env.json) when it sets it; else the 120 MB of MindIE's
set_env.sh (Ascend/MindIE-LLM@8b4871a scripts/set_env.sh:39, copied into the package by build.sh:63; every
deployment guide sources it first, e.g. docs/zh/user_guide/models/deepseek/deepseek_v3.2.md:121): an assumption, so
the op calls built on it carry a condition (their errors are warnings).
"""
from __future__ import annotations

from moecfg.frameworks import Derivation, Note
from moecfg.frameworks import values
from moecfg.frameworks.mindie import rules
from moecfg.frameworks.mindie.layout import Layout, as_int, env_file_label, model_text, read
from moecfg.sources.launch import Launch

SET_ENV_MB = 120  # scripts/set_env.sh:39 `export HCCL_BUFFSIZE=120`
SET_ENV_IF = "HCCL_BUFFSIZE is set_env.sh's 120 (the deployment does not set it)"


def derive(launch: Launch, ctx, out: Derivation) -> None:
    lay = read(launch, ctx)
    if lay.backend not in ("torch", "atb"):
        why = f"backendType {lay.backend}" if lay.backend else "no backendType"
        out.notes.append(Note(rules.LAUNCH.code, f"MindIE config ({why}): only the torch and atb backends are derived; "
                              "nothing checked for this entry", launch.span))
        return
    buff = _buffsize(launch, lay)
    out.notes.extend(buff[2])
    if lay.backend == "atb":
        out.notes.extend(_atb(launch, lay, ctx, buff))
        return
    refused = _below_one(lay)
    if refused:  # no group of 0 devices: nothing else is derived from it (and no fix says "set ... to 0")
        out.notes.extend(refused)
        return
    mismatch = _world_check(lay)
    out.notes.extend(mismatch)
    summary = _summary(launch, lay, buff)
    if not mismatch and not any(n.code == rules.BUFFSIZE_NOT_INTEGER.code for n in buff[2]):
        summary += _torch(launch, lay, ctx, buff, out)
    out.notes.append(Note(rules.LAUNCH.code, summary, launch.span))


def _buffsize(launch: Launch, lay: Layout) -> tuple[int | None, str, list[Note]]:
    """(MB, how, notes): the env file's integer, else set_env.sh's 120 (an assumption, `how` says so)."""
    at = lay.flags["backendType"].span
    env_word = lay.word("env-file")
    entry = launch.env.get("HCCL_BUFFSIZE")
    where = env_word.value if env_word else "no conf/mindie_env.json beside config.json"
    if entry is None:
        unset = f"{where} sets none" if env_word else where
        how = f"HCCL_BUFFSIZE {SET_ENV_MB} from MindIE's set_env.sh ({unset}; scripts/set_env.sh:39)"
        notes = [] if env_word is None or lay.backend != "torch" else [Note(rules.BUFFSIZE_UNSET.code, (
            f"{env_word.value} does not set HCCL_BUFFSIZE: the torch backend's MC2 group takes "
            f"int(os.getenv(\"HCCL_BUFFSIZE\")), which is MindIE set_env.sh's {SET_ENV_MB} MB when it was sourced and "
            f"a TypeError at start-up when it was not; add \"HCCL_BUFFSIZE\": <MB> to mindie_common_env"), at)]
        return SET_ENV_MB, how, notes
    if entry.value is None or "$" in entry.value or "`" in entry.value:  # a value left to the shell: not known here
        return None, "HCCL_BUFFSIZE not known statically", []
    mb = values.integer(entry.value)
    if mb is None:
        if lay.backend != "torch":
            return None, "", []
        return None, "", [Note(rules.BUFFSIZE_NOT_INTEGER.code, f"HCCL_BUFFSIZE {entry.value!r} in {where} is not an "
                               "integer: backendType torch reads int(os.getenv(\"HCCL_BUFFSIZE\")) and stops with "
                               "ValueError; write a whole number of MB (e.g. 1050)", at)]
    return mb, f"HCCL_BUFFSIZE {mb} ({where})", []


def _below_one(lay: Layout) -> list[Note]:
    """MC025 for worldSize or a group size below 1 (-1 is MindIE's 'default'): no process group of that many
    devices exists, so MindIE cannot build its groups (parallel_info_manager.py:201-226)."""
    notes = []
    for key, value in (("worldSize", as_int(lay.word("worldSize"))), ("dp", lay.dp.value), ("tp", lay.tp.value),
                       ("cp", lay.cp.value), ("moe_tp", lay.moe_tp.value), ("moe_ep", lay.moe_ep.value)):
        word = lay.word(key)
        if word is not None and value is not None and value < 1 and (key == "worldSize" or as_int(word) != -1):
            fix = "the number of devices" if key == "worldSize" else "a positive size (or -1 for MindIE's default)"
            notes.append(Note("MC025", f"\"{key}\": {value}: MindIE builds its process groups from it "
                              "(parallel_info_manager.py:201-226) and no group has fewer than 1 device; nothing is "
                              f"derived for this ModelConfig entry; set {key} to {fix}", word.span))
    return notes


def _world_check(lay: Layout) -> list[Note]:
    world, tp, ep = lay.world.value, lay.moe_tp.value, lay.moe_ep.value
    if lay.multi_node or world is None or tp is None or ep is None or tp * ep == world:
        return []
    word = lay.word("moe_ep") or lay.word("moe_tp") or lay.word("worldSize")
    return [Note(rules.MOE_WORLD_SIZE.code, f"MoE parallel strategy process number mismatch: world_size {world} "
                 f"(worldSize) != moe_tp {tp}{_default(lay, 'moe_tp')} x moe_ep {ep}{_default(lay, 'moe_ep')}: "
                 f"MindIE's torch backend raises ValueError at start-up; set moe_tp x moe_ep = {world} in this "
                 f"ModelConfig entry (e.g. \"moe_tp\": 1, \"moe_ep\": {world})", word.span)]


def _default(lay: Layout, key: str) -> str:
    return "" if lay.word(key) is not None and as_int(lay.word(key)) != -1 else " (default)"


def _summary(launch: Launch, lay: Layout, buff) -> str:
    parts = [f"worldSize {_text(as_int(lay.word('worldSize')))}" + (f" per node ({lay.world.text})"
                                                                     if lay.multi_node else ""),
             f"dp {_text(lay.dp.value)}", f"tp {_text(lay.tp.value)}", f"moe_tp {_text(lay.moe_tp.value)}",
             f"moe_ep {_text(lay.moe_ep.value)}", f"MTP tokens {_text(lay.spec.value)}"]
    for key in ("maxBatchSize", "maxPrefillBatchSize", "maxPrefillTokens"):
        parts.append(f"{key} {lay.word(key).value if lay.word(key) else 'unknown'}")
    parts.append(buff[1] or "HCCL_BUFFSIZE unknown")
    ep, tp = _text(lay.moe_ep.value), _text(lay.tp.value)
    return (f"MindIE {lay.backend} backend{_role(lay)}: " + ", ".join(parts) + f". MC2 dispatch: ep_world_size {ep}, global_bs = "
            f"ceil(max tokens across DP / tp {tp}) x {ep}, quant_mode 2, the MC2 group's HCCL buffer = HCCL_BUFFSIZE")


def _role(lay: Layout) -> str:
    return f" ({lay.role} node of a MindIE-Motor PD deployment)" if lay.role else ""


def _text(value) -> str:
    return "unknown" if value is None else str(value)


def _dims(lay: Layout, ctx):
    from moecfg.frameworks import models

    word = model_text(lay)
    try:
        return models.resolve_model(word.value if word else None, ctx)
    except (ValueError, OSError):
        return None


def _unknowns(lay: Layout, ctx, dims) -> str:
    """Why no op call is derived ('' = everything needed is known)."""
    if lay.product is None:
        return ("the product is not known (MindIE picks FusedMC2, MC2, All2All or AllGather by SoC): give `--product "
                "A2|A3` or `product:` in .moecfg.yaml")
    if dims is None:
        from moecfg.frameworks import models

        word = model_text(lay)
        return models.unresolved_reason(word.value if word else None, ctx) + " (h, k and experts per rank decide the op)"
    if lay.cp.value is not None and lay.cp.value > 1:
        return "cp > 1: tokens per device are the CP rank's batch (moe_comm_strategy.py:28-29), not derived here"
    sizes = {"tp": lay.tp, "dp": lay.dp, "cp": lay.cp, "moe_tp": lay.moe_tp, "moe_ep": lay.moe_ep,
             "maxBatchSize": lay.max_batch, "maxPrefillTokens": lay.max_prefill, "MTP tokens": lay.spec}
    missing = [k for k, v in sizes.items() if v.value is None or v.value < (0 if k == "MTP tokens" else 1)]
    if missing:
        return f"{', '.join(missing)} not known statically ({'; '.join(sizes[k].text for k in missing)})"
    if lay.product == "A2" and lay.world.value is None:
        return f"the world size is not known ({lay.world.text}): A2 runs MC2 only at 16/32/64 ranks"
    return ""


def _torch(launch: Launch, lay: Layout, ctx, buff, out: Derivation) -> str:
    from moecfg.frameworks.mindie import torch_backend as torch

    dims = _dims(lay, ctx)
    why = _unknowns(lay, ctx, dims)
    if why:
        return f"; no op call derived: {why}"
    if not dims.num_experts:
        return f"; {dims.name} has no routed experts: no MoE collective"
    env = None if buff[0] is None else (str(buff[0]), buff[1])
    calls, notes = torch.calls(lay, dims, ctx, env)
    assumed = SET_ENV_MB == buff[0] and launch.env.get("HCCL_BUFFSIZE") is None
    for call in calls:
        call.condition = SET_ENV_IF if assumed and call.kind == "ascend" else ""
    _unknown_buffsize(launch, lay, buff, calls, out)
    out.calls.extend(calls)
    out.notes.extend(notes)
    _memory(lay, ctx, buff, calls, launch)
    return f"; model {dims.how}; op calls per phase below (explain-launch shows each argument's derivation)"


def _unknown_buffsize(launch: Launch, lay: Layout, buff, calls, out: Derivation) -> None:
    """The env file sets HCCL_BUFFSIZE to a value not known statically (`"$BUF"`): each MC2 call's buffer rules are
    not checked (checking/launch.py), never judged against set_env.sh's 120 or HCCL's 200 standing in for it."""
    if buff[0] is not None or launch.env.get("HCCL_BUFFSIZE") is None:
        return
    where = lay.word("env-file").value if lay.word("env-file") else "the env file"
    note = Note("MC023", f"HCCL_BUFFSIZE in {where}: the value is not known statically", lay.flags["backendType"].span,
                about="env.HCCL_BUFFSIZE")
    ops = [c for c in calls if c.kind == "ascend"]
    for call in ops:
        call.not_known(note)
    if not ops:
        out.notes.append(note)


def _memory(lay: Layout, ctx, buff, calls, launch) -> None:
    from moecfg.frameworks.mindie import memory

    first = next((c for c in calls if c.kind == "ascend"), None)
    if first is None or buff[0] is None:
        return
    sizes = {"tp": lay.tp.value, "dp": lay.dp.value, "cp": lay.cp.value, "sp": as_int(lay.word("sp")) or 1,
             "moe_tp": lay.moe_tp.value, "moe_ep": lay.moe_ep.value}
    comms = memory.torch_comms(sizes, buff[0], buff[1])
    env_file = env_file_label(lay)  # the file actually read (conf/mindie_env_a3.json ...)
    fraction, text = memory.fraction(launch.env, env_file)
    tab = memory.table(comms, [], lay.product, lay.product_how, ctx, fraction, text)
    first.derived["memory_budget"] = tab
    first.notes.extend(memory.headroom_notes(tab, lay.flags["backendType"].span, env_file))


def _atb(launch: Launch, lay: Layout, ctx, buff) -> list[Note]:
    from moecfg.frameworks.mindie import atb

    dims = _dims(lay, ctx)
    section = atb.applicable(lay, dims)
    bufs, notes = atb.buffers(lay, section, dims, buff[0] if launch.env.get("HCCL_BUFFSIZE") else None)
    if not notes:
        notes += atb.raised(lay, section, dims, bufs)
    shown = ", ".join(f"{k} {v[0]} MB" if v[0] is not None else f"{k} refused (MC996)" for k, v in bufs.items())
    written = ", ".join(f"{k} {lay.word(k).value if lay.word(k) else 'not set'}"
                        for k in ("worldSize", "tp", "dp", "moe_tp", "moe_ep"))
    text = (f"MindIE atb backend{_role(lay)}: {written}; "
            f"HCCL buffers {shown} (models section {section or 'none applies'}){_atb_memory(lay, bufs)}. The MC2 "
            "calls of the atb graphs are built in C++ (atb_framework) and not derived here")
    return notes + [Note(rules.LAUNCH.code, text, launch.span)]


def _atb_memory(lay: Layout, bufs: dict) -> str:
    """Per rank: 2 x buffer of each group of more than one rank (tp, dp, moe_tp, moe_ep written in config.json)."""
    from moecfg.frameworks.mindie import memory

    sizes = {k: as_int(lay.word(k)) for k in ("tp", "dp", "moe_tp", "moe_ep")}
    if any(v is None or v < 1 for v in sizes.values()) or any(v[0] is None for v in bufs.values()):
        return ""
    comms = memory.atb_comms(sizes, bufs)
    if not comms:
        return ""
    parts = " + ".join(f"{c.name} 2 x {c.mb}" for c in comms)
    return (f"; per rank at least {parts} = {sum(2 * c.mb for c in comms)} MB of HCCL buffers (the attention and MoE "
            "groups; atb's other groups take hccl_buffer each, atb_llm/utils/mapping.py:89-120,175-176)")
