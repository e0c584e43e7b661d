"""What MindIE's torch backend resolves from one ModelConfig entry, and the start-up checks it makes
(rules.py cites the lines). Values MindIE leaves to run time stay unknown."""
from __future__ import annotations

from moecfg.frameworks import Note
from moecfg.frameworks.mindie import rules
from moecfg.sources.launch import Launch, Word


def settings(launch: Launch) -> dict[str, Word]:
    """`--key value` pairs of the synthesised command -> the value's Word."""
    argv, out = launch.argv, {}
    for i in range(1, len(argv) - 1, 2):
        flag = argv[i].value
        if flag is not None and flag.startswith("--"):
            out[flag[2:]] = argv[i + 1]
    return out


def as_int(word: Word | None) -> int | None:
    try:
        return int(word.value) if word is not None and word.value is not None else None
    except ValueError:
        return None


def derive_notes(launch: Launch) -> list[Note]:
    s = settings(launch)
    backend = s["backendType"].value if "backendType" in s else None
    if backend != "torch":
        why = f"backendType {backend}" if backend else "no backendType"
        return [Note(rules.LAUNCH.code, f"MindIE config ({why}): only the torch backend's start-up checks and MC2 "
                     "arguments are derived; nothing checked for this entry", launch.span)]
    notes = _buffsize(launch, s)
    world, multi = as_int(s.get("worldSize")), s.get("multiNodesInferEnabled")
    single_node = multi is None or multi.value == "false"
    moe_tp, moe_ep = _group(s, "moe_tp", world), _group(s, "moe_ep", 1)
    if world is not None and single_node and moe_tp is not None and moe_ep is not None and moe_tp * moe_ep != world:
        at = (s.get("moe_ep") or s.get("moe_tp") or s["worldSize"]).span
        notes.append(Note(rules.MOE_WORLD_SIZE.code, f"MoE parallel strategy process number mismatch: world_size "
                          f"{world} (worldSize) != moe_tp {moe_tp}{_default(s, 'moe_tp')} x moe_ep {moe_ep}"
                          f"{_default(s, 'moe_ep')}: MindIE's torch backend raises ValueError at start-up; set "
                          f"moe_tp x moe_ep = {world} in this ModelConfig entry (e.g. \"moe_tp\": 1, \"moe_ep\": "
                          f"{world})", at))
    notes.append(Note(rules.LAUNCH.code, _summary(launch, s, world, single_node, moe_tp, moe_ep), launch.span))
    return notes


def _group(s: dict, key: str, default: int | None) -> int | None:
    """MindIE's group size: -1 or absent -> the default (moe_tp: the world size, moe_ep: 1)."""
    if key not in s:
        return default
    value = as_int(s[key])
    return default if value == -1 else value


def _default(s: dict, key: str) -> str:
    return "" if key in s and as_int(s[key]) != -1 else " (default)"


def _buffsize(launch: Launch, s: dict) -> list[Note]:
    at = s["backendType"].span
    entry = launch.env.get("HCCL_BUFFSIZE")
    if "env-file" not in s:
        return []
    env_file = s["env-file"].value
    if entry is None:
        return [Note(rules.BUFFSIZE_UNSET.code, f"backendType torch reads int(os.getenv(\"HCCL_BUFFSIZE\")) at "
                     f"start-up (a TypeError when unset) and {env_file} does not set HCCL_BUFFSIZE: add "
                     "\"HCCL_BUFFSIZE\": <MB> to its mindie_common_env, or export it before mindie_llm_server", at)]
    try:
        int(entry.value or "")
    except ValueError:
        return [Note(rules.BUFFSIZE_NOT_INTEGER.code, f"HCCL_BUFFSIZE {entry.value!r} in {env_file} is not an integer: "
                     "backendType torch reads int(os.getenv(\"HCCL_BUFFSIZE\")) and stops with ValueError; write a "
                     "whole number of MB (e.g. 1050)", at)]
    return []


def _summary(launch: Launch, s: dict, world, single_node: bool, moe_tp, moe_ep) -> str:
    tp = _group(s, "tp", world)
    parts = [f"worldSize {_text(world)}" + ("" if single_node else " per node (multi-node: the world spans nodes)"),
             f"dp {_text(_group(s, 'dp', 1))}", f"tp {_text(tp)}", f"moe_tp {_text(moe_tp)}", f"moe_ep {_text(moe_ep)}"]
    for key in ("maxBatchSize", "maxPrefillBatchSize", "maxPrefillTokens"):
        parts.append(f"{key} {s[key].value if key in s else 'unknown'}")
    entry = s.get("env-file")
    parts.append(f"HCCL_BUFFSIZE {_buff(launch)}" + (f" (from {entry.value})" if entry else " (from the environment: "
                 "not in this tree)"))
    ep = _text(moe_ep)
    return ("MindIE torch backend: " + ", ".join(parts) + f". MC2 dispatch (dispatch_v2 when torch_npu has it): "
            f"ep_world_size {ep}, global_bs = ceil(max tokens across DP / tp {_text(tp)}) x {ep}, the MC2 group's "
            "HCCL buffer = HCCL_BUFFSIZE MB; quant_mode (2 when quantised), tokens per step and the MoE path "
            "(MC2, FusedMC2, all-gather) are decided at run time and left unknown")


def _buff(launch: Launch) -> str:
    entry = launch.env.get("HCCL_BUFFSIZE")
    return "unknown" if entry is None or entry.value is None else entry.value


def _text(value) -> str:
    return "unknown" if value is None else str(value)
