"""The per-rank memory table of an SGLang-on-Ascend DeepEP call: its HCCL communicators (2 x buffer each) against
the memory outside --mem-fraction-static (ascend_budget.py, MC954).

SGLang creates each device group with `pg_options=get_torch_distributed_pg_options(group_name)`: groups whose name
contains "moe" get hccl_buffer_size = int(DEEPEP_HCCL_BUFFSIZE or HCCL_BUFFSIZE or 200); the others no option, so
the process HCCL_BUFFSIZE (HCCL's default 200 MB) (sgl-project/sglang@0005973a python/sglang/srt/distributed/
parallel_state.py get_torch_distributed_pg_options and GroupCoordinator.__init__, sglang PR #17804). Groups with more
than one rank (initialize_model_parallel @0005973a): moe_ep, the DeepEP group (same ranks as tp with ep == tp, as
--moe-a2a-backend deepep sets, but on NPU its own communicator: `if moe_ep_size == tensor_model_parallel_size and
not _is_npu: _MOE_EP = _TP`, sglang PR #29030; the row keeps its name `moe_ep=tp (DeepEP)`), tp (HCCL_BUFFSIZE; its
communicator appears at the group's first collective: the attention all-reduce without DP attention, the DP and
logits gathers of dp_attention.py @0016109 with it), attention_tp (--enable-dp-attention: tp / dp ranks, its own
group when dp > 1) and pp (--pp-size). moe_tp / moe_dp have one rank here (tp / ep / moe_dp = 1). Not counted: the
default process group (its options are the moe ones, but moecfg does not see a collective on it).
--mem-fraction-static, when not given, is computed at start-up from the device memory (not known statically).
"""
from __future__ import annotations

from moecfg.backends.device.devices import MIB
from moecfg.frameworks import ascend_budget
from moecfg.frameworks.vllm_ascend.groups import HCCL_DEFAULT_MB, Comm

_PG = "sglang parallel_state.get_torch_distributed_pg_options"
DEEPEP_ROW = "moe_ep=tp (DeepEP)"


def _env_mb(c, name: str) -> int | None:
    v = c.env_int(name)
    return v if v is not None and v > 0 else None


def communicators(c, call, tp: int, dp: int, attn_tp: int) -> list[Comm]:
    hccl = _env_mb(c, "HCCL_BUFFSIZE")
    other_mb, other_why = (hccl, f"HCCL_BUFFSIZE={hccl}") if hccl else \
        (HCCL_DEFAULT_MB, f"HCCL_BUFFSIZE unset: HCCL's default {HCCL_DEFAULT_MB}")
    window = call.arguments.get("hccl_buffer_size")
    if not isinstance(window, int):
        return []
    deepep = _env_mb(c, "DEEPEP_HCCL_BUFFSIZE")
    moe_why = f"DEEPEP_HCCL_BUFFSIZE={deepep}" if deepep else other_why
    out = [Comm(DEEPEP_ROW, tp, window, f"{moe_why} ({_PG}: DEEPEP_HCCL_BUFFSIZE or HCCL_BUFFSIZE or "
                "200 for moe groups; on NPU moe_ep is its own group even with ep == tp, sglang PR #29030)"),
           Comm("tp", tp, other_mb, f"{other_why} ({_PG}: no option for non-moe groups; on NPU a separate "
                "communicator from moe_ep)")]
    if dp > 1:
        out.append(Comm("attention_tp", attn_tp, other_mb, f"{other_why} ({_PG}: no option for non-moe groups)"))
    pp = c.int_flag("--pp-size", 1)
    out.append(Comm("pp", pp if isinstance(pp, int) else 1, other_mb, f"{other_why} ({_PG}: no option)"))
    return [x for x in out if x.ranks > 1]


def budget(c, ctx, call, tp: int, dp: int, attn_tp: int) -> list:
    """Store call.derived["memory_budget"]; MC954 notes when the buffers exceed the memory outside the fraction."""
    comms = communicators(c, call, tp, dp, attn_tp)
    if not comms:
        return []
    flag = c.flags.get("--mem-fraction-static")
    try:
        fraction = float(flag.value) if flag and flag.value is not None else None
    except ValueError:
        fraction = None
    if fraction is not None and not 0 < fraction < 1:  # a fraction of the device; others leave nothing to judge
        fraction = None
    text = f"--mem-fraction-static {flag.value}" if flag else \
        "--mem-fraction-static not given: SGLang computes it from the device memory at start-up (not known statically)"
    how = f"product {ctx.product} ({ctx.product_source or 'settings'})"
    tab = ascend_budget.table(comms, [], ctx.product, how, ctx.device_memory_gb, fraction, text)
    call.derived["memory_budget"] = tab
    if tab.get("headroom_bytes", 0) >= 0:
        return []
    if _env_mb(c, "DEEPEP_HCCL_BUFFSIZE") and DEEPEP_ROW in tab["buffers"]:
        env, fits = "DEEPEP_HCCL_BUFFSIZE", ascend_budget.largest_fitting_mb(tab, DEEPEP_ROW)
    else:  # every group takes HCCL_BUFFSIZE: it sizes all the pairs
        env, fits = "HCCL_BUFFSIZE", tab["outside_fraction_bytes"] // (2 * MIB * len(comms))
    fix = f"set {env} <= {fits}" if fits > 0 else "the other groups' buffers alone exceed it"
    return ascend_budget.over_headroom(tab, "--mem-fraction-static", flag.span if flag else c.launch.span, fix,
                                       seen="as in vllm-ascend#10839")
