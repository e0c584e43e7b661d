"""The per-rank memory table of a vllm-ascend op call: its HCCL communicators (groups.py) and, where the call runs
a fused MoE op, that op's workspace, against what --gpu-memory-utilization leaves (ascend_budget.py, MC954).

Stored as the call's `derived.memory_budget` (printed by `moecfg explain-launch`); rules.py raises MC950 when the
HCCL buffers exceed the whole device, and MC954 when they only exceed the memory outside the fraction.
"""
from __future__ import annotations

from dataclasses import dataclass

from moecfg.frameworks import Note, ascend_budget
from moecfg.frameworks.vllm_ascend import groups as G
from moecfg.frameworks.vllm_ascend import model as M
from moecfg.frameworks.vllm_ascend import tokens as T
from moecfg.frameworks.vllm_ascend.cli import Arg

FUSED_OPS = ("mega_moe", "dispatch_ffn_combine")
VLLM_UTIL_DEFAULT = 0.9  # vllm-project/vllm@c1d8642 vllm/config/cache.py:49 CacheConfig.gpu_memory_utilization


@dataclass(frozen=True, slots=True)
class Reads:
    """What the table needs from the launch, read once (a bad flag gives one MC023, not one per call)."""

    layout: G.Layout | None  # None: a parallel size is not known statically
    util: Arg  # --gpu-memory-utilization; value None when unusable


def read(args, rel) -> Reads:
    util = args.flag("--gpu-memory-utilization", VLLM_UTIL_DEFAULT, float)
    if util.value is not None and not 0 < util.value <= 1:  # CacheConfig: Field(gt=0, le=1)
        span = util.spans[0] if util.spans else args.start
        args.notes.append(Note("MC023", f"{util.text}: vLLM accepts 0 < gpu_memory_utilization <= 1 (CacheConfig); "
                               "the memory table has no headroom", span))
        util = Arg(None, util.spans, util.text)
    return Reads(layout(args, rel), util)


def layout(args, rel) -> G.Layout | None:
    """The parallel sizes as vllm-ascend reads them; None when one is not known statically."""
    sizes = [args.flag(f, 1).value for f in ("--tensor-parallel-size", "--data-parallel-size",
                                             "--pipeline-parallel-size", "--decode-context-parallel-size")]
    pcp = T.pcp_size(args).value if rel.ep_has_pcp else 1
    if any(not isinstance(v, int) or v < 1 for v in sizes + [pcp]):
        return None
    tp, dp, pp, dcp = sizes
    extra = args.json.get("--additional-config")
    top = extra.value if extra and isinstance(extra.value, dict) else {}
    fine = G.fine_grained_groups(top.get("finegrained_tp_config") if isinstance(top.get("finegrained_tp_config"),
                                                                                dict) else None, top, rel.family)
    commit = rel.ref.rsplit("@", 1)[1] if "@" in rel.ref else ""
    return G.Layout(rel.family, tp, dp, pp, pcp, dcp, True, M.dynamic_eplb(args, rel), fine,
                    f"VA@{commit}" if commit else "")


def hccl_buffsize(call) -> tuple[int | None, str]:
    """The process HCCL_BUFFSIZE (MB) the mc2 communicator gets, and how it is known."""
    text = call.arguments.get("env", {}).get("HCCL_BUFFSIZE")
    if text is None:
        unknown = any(n.code == "MC023" and "HCCL_BUFFSIZE" in n.message for n in call.notes)
        return (None, "") if unknown else (G.HCCL_DEFAULT_MB, f"HCCL_BUFFSIZE unset: HCCL's default {G.HCCL_DEFAULT_MB}")
    try:
        mb = int(str(text).strip())
    except ValueError:
        return None, ""
    return (mb, f"HCCL_BUFFSIZE={mb}") if mb > 0 else (None, "")


def communicators(reads: Reads, call) -> list[G.Comm]:
    mb, how = hccl_buffsize(call)
    if reads.layout is None or mb is None:
        return []
    return G.communicators(reads.layout, mb, how)


def workspace(call) -> list[tuple[str, int, str]]:
    """The fused op's workspace per rank, from the op's own analysis (backends/ascend/ops/<op>.py derived)."""
    if call.op not in FUSED_OPS:
        return []
    from moecfg import backends
    from moecfg.frameworks.op_document import LaunchDocument
    from moecfg.sources.textmap import Span

    analysis = backends.load("ascend").analyze(LaunchDocument(0, call, Span(1, 1, 1, 1)), backends.Options())
    ws = (analysis.derived or {}).get("workspace_bytes")
    why = (f"{call.op} workspace (backends/ascend/ops/{call.op}.py); torch allocates it per call, so it is inside "
           "the fraction when the profiling run reaches this op at this size")
    return [(f"{call.op}_workspace", ws, why)] if ws else []


def table(reads: Reads, ctx, call, comms) -> dict | None:
    """Build the table into call.derived["memory_budget"]; None without communicators."""
    if not comms:
        return None
    util = reads.util
    how = f"product {call.arguments['product']} ({ctx.product_source or 'settings'})"
    text = util.said(f"--gpu-memory-utilization {VLLM_UTIL_DEFAULT:g} (vLLM's default)")
    tab = ascend_budget.table(comms, workspace(call), call.arguments["product"], how, ctx.device_memory_gb,
                              util.value, text)
    call.derived["memory_budget"] = tab
    return tab


def headroom_notes(reads: Reads, args, call, tab: dict) -> list:
    if tab.get("headroom_bytes", 0) >= 0:
        return []
    util = reads.util
    spans = util.spans or call.sources.get("env.HCCL_BUFFSIZE") or (args.start,)
    fits = ascend_budget.largest_fitting_mb(tab, "mc2")
    fix = f"set HCCL_BUFFSIZE <= {fits} (the mc2 group's pair; the op's own need is its buffer row)" if fits > 0 \
        else "the other groups' buffers alone exceed it"
    return ascend_budget.over_headroom(tab, "--gpu-memory-utilization", spans[0], fix)
