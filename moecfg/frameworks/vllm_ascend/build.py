"""A vllm-ascend launch -> the op calls it makes, per phase: `decode` (steps of up to the MC2 token capacity:
decode steps and small prefill chunks) and `prefill` (steps above it, up to max_num_batched_tokens). A PD
decode node (kv_consumer) only runs the first; a PD prefill node (kv_producer) and a plain serve node both.
"""
from __future__ import annotations

from moecfg.core.launch_rules import FUSED_OP_UNKNOWN
from moecfg.frameworks import LaunchContext, Note, OpCall
from moecfg.frameworks.vllm_ascend import calls as B
from moecfg.frameworks.vllm_ascend import choose as C
from moecfg.frameworks.vllm_ascend import formulas as F
from moecfg.frameworks.vllm_ascend import model as M
from moecfg.frameworks.vllm_ascend import tokens as T
from moecfg.frameworks.vllm_ascend.cli import Arg, ServeArgs
from moecfg.frameworks.vllm_ascend.releases import Release
from moecfg.frameworks.vllm_ascend.tokens import spans

KV_ROLES = {"kv_producer": "prefill node", "kv_consumer": "decode node", "kv_both": "prefill + decode node"}


class Ctx:
    """Everything one launch's calls share (kept together so the builders stay small)."""

    def __init__(self, args: ServeArgs, rel: Release, lctx: LaunchContext, product: str, dims):
        self.args, self.rel, self.lctx, self.product, self.dims = args, rel, lctx, product, dims
        self.notes: list[Note] = []
        self.quant, qnotes = M.moe_quant(args, rel, dims)
        self.redundant, rnotes = M.redundant_experts(args, rel)
        self.notes += qnotes + rnotes
        self.fused = C.plan_fused(args, rel, product, dims, self.quant.value, lctx.cann)
        self.notes += self.fused.notes
        mmt = B.mega_moe_max_tokens_note(args, rel) or B.mega_moe_max_tokens_scope_note(args, rel)
        self.notes += [mmt] if mmt else []
        self.kv_role = args.config("--kv-transfer-config", "kv_role")
        self.hier_flag = args.config("--additional-config", "enable_mc2_hierarchy_comm", default=False) \
            if rel.hierarchy_flag else Arg(False)
        roce, pcie = args.env_value("HCCL_INTRA_ROCE_ENABLE"), args.env_value("HCCL_INTRA_PCIE_ENABLE")
        env_pair = roce.value == "0" and pcie.value == "1"  # VA utils.is_hierarchical_communication_enabled
        self.hier_env = Arg(env_pair, spans(roce, pcie), f"{roce.text} and {pcie.text}") if env_pair else Arg(False)

    @property
    def hierarchical(self) -> bool:
        return bool(self.hier_flag.value) or bool(self.hier_env.value)


MEGAMOE_IF = "cann_ops_transformer imports in the image (vllm-ascend runs MegaMoE)"
DFC_IF = "cann_ops_transformer does not import (vllm-ascend runs dispatch_ffn_combine)"


def derive_calls(args: ServeArgs, rel: Release, lctx: LaunchContext, product: str, dims) -> tuple[list, list]:
    """The op calls; when MegaMoE vs dispatch_ffn_combine is unknown (no CANN version), both, each with the
    condition it runs under (its errors are then reported as warnings), calls common to both once."""
    c = Ctx(args, rel, lctx, product, dims)
    if not c.fused.uncertain:
        return _derive(c)
    alt = Ctx(args, rel, lctx, product, dims)
    alt.fused = C.as_dispatch_ffn_combine(c.fused)
    mm_calls, notes = _derive(c)
    seen = len(args.notes)  # reading the flags again adds the same notes to args.notes: keep one copy
    dfc_calls, _ = _derive(alt)
    del args.notes[seen:]
    key = lambda call: (call.role, call.op, repr(sorted(call.arguments.items())))  # noqa: E731
    common = {key(x) for x in mm_calls} & {key(x) for x in dfc_calls}
    for call, cond in [(x, DFC_IF) for x in dfc_calls] + [(x, MEGAMOE_IF) for x in mm_calls]:
        if key(call) not in common:
            call.condition = cond
    out = [x for x in dfc_calls if key(x) not in common] + mm_calls  # MegaMoE's last: the role's main call
    span = c.fused.requested.spans[0] if c.fused.requested.spans else args.start
    notes.append(Note("MC042", f"{c.fused.requested.text}: vllm-ascend runs MegaMoE if {MEGAMOE_IF.split(' (')[0]}, "
                      f"else dispatch_ffn_combine; {FUSED_OP_UNKNOWN}, so both are derived and an "
                      "error of one op only is a warning; give `cann_version` in .moecfg.yaml (>= 9.1: MegaMoE)", span))
    return out, notes


def _derive(c: "Ctx") -> tuple[list, list]:
    args, rel, product, dims = c.args, c.rel, c.product, c.dims
    ep_on = args.flag("--enable-expert-parallel", False, kind=bool)
    torchair = rel.torchair and bool(args.config("--additional-config", "torchair_graph_config", "enabled").value)
    limit = _limit(c) if rel.tp_rank_limits else None
    t = T.torchair(args, rel) if torchair else T.compute(args, rel, limit, c.fused.op == "mega_moe")
    if not t.known:
        return [], c.notes
    pcp = T.pcp_size(args) if rel.ep_has_pcp else Arg(1)
    if pcp.value is None:
        return [], c.notes
    ep = t.dp.value * pcp.value * t.tp.value if ep_on.value else 1
    if not ep_on.value:
        why = (f"--enable-expert-parallel not given: vllm-ascend runs the MoE layers with all-gather (EP 1), no MC2 "
               f"op ({rel.cite['select']})")
        # a dense model (or one moecfg cannot name) has no MoE layers to speak of: nothing to say (MC041 quiet)
        return [OpCall("serve", "none", None, {}, why_none=why, quiet=not (dims and dims.num_experts))], c.notes
    by_pcp = f" x PCP {pcp.value}" if pcp.value > 1 else ""
    ep_arg = Arg(ep, spans(t.dp, pcp, t.tp, ep_on), f"DP {t.dp.value}{by_pcp} x TP {t.tp.value} (the mc2 group, "
                 f"{rel.cite['mc2_group']})")
    setup = C.Setup(rel, product, ep, ep * t.pp.value if rel.family == "0.11.0" else ep,
                    getattr(dims, "num_experts", None), c.quant.value,
                    args.flag("--enable-lora", False, kind=bool).value, M.dynamic_eplb(args, rel), c.fused)
    c.notes += _fused_fallback(c, ep)
    c.skip_allreduce = B.skip_allreduce(c, t, setup, t.mode) if rel.global_bs == "kv_consumer" else (False, "")
    calls = []
    for phase, n in _phases(c, t):
        comm, why = _torchair_choice(ep, phase, rel) if torchair else C.choose(setup, n, t.capacity.value)
        call = _call(c, t, ep_arg, phase, n, comm, why)
        profile = _profile_run(c, t) if phase == "decode" and n == t.capacity.value and not torchair else ""
        if profile and call.kind != "none":
            call.role = "profile"
            if "bs" in call.derivation:
                call.derivation["bs"] += f"; {profile}"
        calls.append(call)
    return calls, c.notes


def _profile_run(c: Ctx, t: T.Tokens) -> str:
    """Why the step at the MC2 capacity is the start-up profile run, not a decode step ("" when it is a decode step):
    decode steps carry at most max_num_seqs x (1 + spec) tokens; profile_run runs one _dummy_run of the capacity
    when max_num_tokens (max_num_batched_tokens) exceeds it and it runs MC2."""
    cap, mnbt = t.capacity.value, t.max_num_batched_tokens.value
    decode = t.max_num_seqs.value * (1 + t.spec.value)
    if cap <= decode or mnbt <= cap or "profile" not in c.rel.cite:
        return ""
    return (f"the start-up profile run: one step of the MC2 capacity, {cap} tokens, as max_num_batched_tokens {mnbt} "
            f"exceeds it ({c.rel.cite['profile']}); decode steps carry at most max_num_seqs x (1 + spec) = {decode}")


def _limit(c: Ctx) -> int:
    """Per-TP-rank token cap on main (VA@182b75e ascend_forward_context.py:191-199)."""
    if c.fused.requested.value == 1 and c.fused.op == "mega_moe":
        return F.MEGA_MOE_TOKENS_PER_RANK_LIMIT
    if c.fused.requested.value == 1 and c.fused.op == "dispatch_ffn_combine":
        return F.DISPATCH_FFN_COMBINE_TOKENS_PER_RANK_LIMIT
    return F.MC2_TOKENS_PER_RANK_LIMIT


def _phases(c: Ctx, t: T.Tokens) -> list[tuple[str, int]]:
    """(role, largest token count of a step): `decode` = steps within the MC2 capacity; `prefill` = steps above
    it up to max_num_batched_tokens. A kv_consumer only decodes: min(max_num_batched_tokens, max_num_seqs x
    (1 + spec)) tokens per step at most, which may still exceed the capacity (graph sizes below the load)."""
    cap, mnbt = t.capacity.value, t.max_num_batched_tokens.value
    out = [("decode", cap)]
    if c.kv_role.value == "kv_consumer":
        load = min(mnbt, t.max_num_seqs.value * (1 + t.spec.value))
        if load > cap:
            out.append(("decode", load))
    elif mnbt > cap:
        out.append(("prefill", mnbt))
    return out


def _torchair_choice(ep: int, phase: str, rel: Release) -> tuple[str, str]:
    """v0.11 torchair: MC2 for decode steps with EP >= 16, all-to-all otherwise (VA@2f1aed9
    ascend_forward_context.py:46-55)."""
    cite = rel.cite["torchair"]
    if phase == "decode" and ep >= F.A2_MIN_EP_FOR_MC2:
        return C.MC2, f"torchair graph, decode, EP {ep} >= 16: MC2 ({cite})"
    reason = "prefill" if phase == "prefill" else f"EP {ep} < 16"
    return C.ALLTOALL, f"torchair graph, {reason}: vllm-ascend uses all-to-all, no MC2 op ({cite})"


def _fused_fallback(c: Ctx, ep: int) -> list[Note]:
    f = c.fused
    if not f.requested.value:
        return []
    span = f.requested.spans[0] if f.requested.spans else c.args.start
    if f.why_off:
        return [Note("MC043", f.why_off, span)]
    if f.op and f.max_ep and ep > f.max_ep:
        return [Note("MC043", f"{f.requested.text}, but EP {ep} > {f.max_ep}: vllm-ascend does not select {f.op} and "
                     f"runs MC2 / all-to-all instead ({c.rel.cite['select']})", span)]
    return []


def _call(c: Ctx, t: T.Tokens, ep_arg: Arg, phase: str, n: int, comm: str, why: str) -> OpCall:
    if comm in (C.ALLTOALL, C.ALLGATHER):
        return OpCall(phase, "none", None, {}, why_none=why)
    if comm == C.FUSED:
        return B.fused_call(c, t, ep_arg, phase, n, why)
    return B.mc2_call(c, t, ep_arg, phase, why)
