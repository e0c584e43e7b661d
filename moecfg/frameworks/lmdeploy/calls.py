"""An LMDeploy launch on Ascend -> the MC2 call dlinfer makes, per phase, with how each argument was derived.

Read at DeepLink-org/dlinfer@689f5a0 (tag v0.2.7 = the dlinfer-ascend 0.2.7 wheel) dlinfer/vendor/ascend/moe.py:
143-249 `fused_moe_mc2` (main @a50184e: L410-522, unchanged arguments): npu_moe_distribute_dispatch_v2 /
combine_v2 with moe_expert_num = local experts x ep_size (L162-164), global_bs 0 (L171, L225), quant_mode 0 (L163),
group_tp = the EP group with tp_world_size 1, tp_rank_id 0 (L181-186), x_active_mask (L188-191),
expert_token_nums_type 0, shared_expert_rank_num 0. The rows per rank: LMDeploy pads the step's tokens to
ceil(max tokens across DP / tp) x tp and splits them over the attention-TP ranks (op_backend.py get_pad_info +
dlinfer moe.py moe_prepare), and selects MC2 only when max tokens across DP <= the MC2 capacity (releases.py), so a
rank's x.dim0 is at most capacity / tp. The EP group is created without pg_options
(lmdeploy/pytorch/distributed.py:218 @1208bf0, `_build_ep_group`): the op's window is the process HCCL_BUFFSIZE.
"""
from __future__ import annotations

from moecfg.core.launch_rules import PRODUCT_UNKNOWN
from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.lmdeploy import dist, rules
from moecfg.frameworks.lmdeploy.releases import Release, cite
from moecfg.frameworks.models import known_moe, resolve_model, unresolved_reason
from moecfg.frameworks.values import finite, integer, refused, size_notes, unknown_buffsize, unreadable_notes

DL = "DeepLink-org/dlinfer@689f5a0 dlinfer/vendor/ascend/moe.py"
OPB = "lmdeploy/pytorch/backends/dlinfer/ascend/op_backend.py"
ASCEND_MAX_BATCH = 256  # lmdeploy/utils.py get_max_batch_size('ascend') (L412-413 @1208bf0)
MC2_TOKEN_CAP = 512  # init_mc2_token_capacity: min(..., 512)
A2_MIN_WORLD = 16  # select_moe_comm_type: A2 needs dp_size x tp_size >= 16
SIZES = ("--tp", "--dp", "--ep")
CAPACITY = ("--max-batch-size", "--speculative-num-draft-tokens", "--speculative-dflash-block-size")
INTS = SIZES + ("--max-batch-size", "--max-prefill-token-num", "--speculative-num-draft-tokens", "--nnodes",
                "--node-rank", "--speculative-dflash-block-size")
KNOBS = {
    "bs": "LMDeploy: ceil(min(--max-batch-size x (1 + draft tokens), 512) / TP per DP group)",
    "ep_world_size": "--ep",
}


class _Launch:
    """The flags of one launch with their spans and defaults (the release's own)."""

    def __init__(self, launch, flags, version: str):
        from moecfg.frameworks.lmdeploy.cli import defaults

        self.launch, self.flags, self.defaults, self.version = launch, flags, defaults(version), version

    def cite(self, anchor: str) -> str:
        """The release's own lines for `anchor` (every anchor LMDeploy's messages use is in every release read)."""
        return cite(self.version, anchor)

    def span(self, *names) -> tuple:
        return tuple(self.flags.get(n).span for n in names if self.flags.get(n))

    def at(self, name: str):
        f = self.flags.get(name)
        return f.span if f else self.launch.span

    def int(self, name: str):
        """The flag's int, the release's default when absent; None when given but not known statically or not an
        int (`--max-batch-size $BS`): a default never stands in for a value the launch sets."""
        f = self.flags.get(name)
        if f is None:
            return self.defaults.get(name)
        return integer(f.value) if f.value is not None else None

    def said(self, name: str, value) -> str:
        if value is None:
            return f"{name} (not known statically)"
        return f"{name} {value}" if self.flags.get(name) else f"{name} {value} (default)"


def derive(launch, ctx: LaunchContext, flags, rel: Release, version: str, out: Derivation,
           assumed: Note | None = None) -> None:
    """`assumed`: the MC040 note when the release was not given, added only to launches with expert parallelism."""
    c = _Launch(launch, flags, version)
    stop = size_notes(flags, SIZES, "LMDeploy") + unreadable_notes(flags, launch.env, INTS[len(SIZES):], ())
    out.notes.extend(stop)
    if any(n.span in c.span(*SIZES) for n in stop):
        return
    tp, dp, ep = (c.int(n) for n in SIZES)
    out.notes.extend(_engine_config(c))
    unsized = _unsized(c)  # a size of the MC2 capacity not known: the call is not derived from a default
    out.notes.extend(unsized)
    if any(n.code == "MC025" for n in unsized):
        return
    if dp > 1 and tp == 1 and ep == 1:
        out.notes.append(Note(rules.DP_NEEDS_TP_OR_EP.code, f"--dp {dp} with --tp 1 and --ep 1: LMDeploy's launch_server "
                              f"asserts tp > 1 or ep > 1 before starting anything ({c.cite('dp_needs_tp_or_ep')}); give the devices "
                              f"with --tp (e.g. --tp {dp}: --tp / --dp per DP group) or --ep", c.at("--dp")))
        return
    groups, failed = dist.groups(tp, dp, ep)
    if groups is None:
        out.notes.append(Note(rules.DIST_CONFIG.code, f"--tp {tp} --dp {dp} --ep {ep}: LMDeploy's DistConfig stops "
                              f"every engine process with AssertionError '{failed}' ({c.cite('dist_config')}); "
                              f"{dist.fix_for(tp, dp, ep)}", c.at("--tp" if "mlp_tp" in failed else "--dp")))
        return
    out.notes.extend(_nodes(c, dp))
    model = flags.positionals[0] if flags.positionals else None
    model_text = model.value if model else None
    if ep == 1:
        out.calls.append(OpCall("serve", "none", None, {}, why_none=f"{c.said('--ep', 1)}: LMDeploy runs the MoE layers "
                                f"with TP {tp} (moe_tp = --tp), no expert-parallel collective",
                                quiet=not known_moe(model_text, ctx)))
        return
    out.notes.extend([assumed] if assumed else [])
    if any(n.span in c.span(*CAPACITY) for n in unsized):
        return
    if ctx.product not in ("A2", "A3"):
        out.notes.append(Note("MC042", f"{PRODUCT_UNKNOWN}: LMDeploy picks MC2, all-gather (A2) or all-to-all (A3) by "
                              "product; give `--product A3` or `product:` in .moecfg.yaml", launch.span))
        return
    dims = resolve_model(model_text, ctx)
    if dims is None:
        out.notes.append(Note("MC042", unresolved_reason(model_text, ctx), model.span if model else launch.span))
    elif dims.num_experts % ep:
        out.notes.append(_experts_note(c, dims, ep))
    out.calls.extend(_calls(c, ctx, rel, groups, dims))


def _engine_config(c: _Launch) -> list[Note]:
    f = c.flags.get("--cache-max-entry-count")
    value = finite(f.value) if f and f.value is not None else None
    if value is None or 0 < value < 1:
        return []
    return [Note(rules.ENGINE_CONFIG.code, f"--cache-max-entry-count {f.value}: the PyTorch engine (the one LMDeploy runs "
                 f"on Ascend) asserts 0 < cache_max_entry_count < 1 ({c.cite('cache_fraction')}, 'invalid "
                 "cache_max_entry_count'); give the fraction of free device memory for the KV cache, e.g. 0.8", f.span)]


def _unsized(c: _Launch) -> list[Note]:
    """MC025 for --max-prefill-token-num < 0 (PytorchEngineConfig asserts >= 0, messages.py:516-523); MC023 for an
    integer flag given a value not known statically (`$BS`, `<bs>`: unreadable_notes names texts no int() reads)
    and for a negative batch or draft size, whose scheduling moecfg does not derive."""
    notes = []
    for name in INTS[len(SIZES):]:
        f = c.flags.get(name)
        value = c.int(name) if f is not None else None
        if f is not None and f.value is None:
            notes.append(Note("MC023", f"{name}: the value is not known statically; what depends on it is not "
                              "derived or checked", f.span))
        elif value is not None and value < 0 and name == "--max-prefill-token-num":
            notes.append(refused(name, value, 0, f"LMDeploy's PytorchEngineConfig ({c.cite('engine_asserts')})", f.span,
                                 "the prefill steps"))
        elif value is not None and value < 0 and name in CAPACITY:
            notes.append(Note("MC023", f"`{name} {value}`: a negative size; LMDeploy's MC2 token capacity is not "
                              "derived from it", f.span))
    return notes


def _nodes(c: _Launch, dp: int) -> list[Note]:
    if dp <= 1:  # one API server: --nnodes / --node-rank are TurboMind's (the PyTorch engine spans nodes with Ray)
        return []
    nnodes, rank = c.int("--nnodes"), c.int("--node-rank")
    if nnodes is None or rank is None:
        return []
    problem = dist.nodes_problem(dp, nnodes, rank)
    if not problem:
        return []
    at = c.at("--node-rank") if "--node-rank" in problem.split(":")[0] else c.at("--nnodes")
    return [Note(rules.NODES.code, f"{problem} ({c.cite('dp_per_node')}); make --dp a multiple of --nnodes and number "
                 "the nodes 0 .. nnodes - 1", at)]


def _experts_note(c: _Launch, dims, ep: int) -> Note:
    per = -(-dims.num_experts // ep)
    last = dims.num_experts - per * (ep - 1)
    return Note(rules.EXPERTS.code, f"{dims.num_experts} routed experts of {dims.name} over --ep {ep}: LMDeploy gives "
                f"ceil({dims.num_experts} / {ep}) = {per} experts per rank and {max(last, 0)} to the last "
                f"(dlinfer moe.py ep_expert_list), so dlinfer's moe_expert_num = local x EP is {per * ep} on the first "
                f"ranks and {max(last, 0) * ep} on the last: the MC2 ranks disagree; choose --ep dividing "
                f"{dims.num_experts}", c.at("--ep"))


def capacity(c: _Launch, rel: Release, attn_tp: int) -> tuple[int, str, tuple]:
    """(MC2 token capacity of one DP rank's step, how, spans): init_mc2_token_capacity."""
    given = c.int("--max-batch-size")
    batches = given if given else ASCEND_MAX_BATCH  # 0 / absent: get_max_batch_size('ascend')
    how = c.said("--max-batch-size", batches) if given else \
        f"--max-batch-size {ASCEND_MAX_BATCH} (the Ascend default, utils.get_max_batch_size)"
    spec, spec_how = _spec_tokens(c) if rel.spec_capacity else (0, "")
    tokens = min(batches * (1 + spec), MC2_TOKEN_CAP)
    cap = -(-tokens // attn_tp) * attn_tp
    factor = f" x (1 + {spec_how})" if rel.spec_capacity else ""
    text = (f"min({how}{factor}, 512) = {tokens}, rounded up to a multiple of TP {attn_tp} = {cap} "
            f"({c.cite('mc2_capacity')} init_mc2_token_capacity)")
    return cap, text, c.span("--max-batch-size", "--speculative-num-draft-tokens", "--speculative-algorithm")


def _spec_tokens(c: _Launch) -> tuple[int, str]:
    algo = c.flags.value("--speculative-algorithm")
    if not algo:
        return 0, "0 draft tokens: no --speculative-algorithm"
    block = c.int("--speculative-dflash-block-size")
    if algo == "dflash" and block:
        return block - 1, f"--speculative-dflash-block-size {block} - 1 draft tokens"
    n = c.int("--speculative-num-draft-tokens")
    return n, f"{c.said('--speculative-num-draft-tokens', n)} ({algo})"


def _calls(c: _Launch, ctx: LaunchContext, rel: Release, g: dist.Groups, dims) -> list[OpCall]:
    """The MC2 call (role `decode`: the steps within the capacity) and the steps that run another path (`none`,
    quiet when the model is not known to be MoE)."""
    cap, cap_text, cap_src = capacity(c, rel, g.attn_tp)
    quiet = dims is None
    prefill = c.int("--max-prefill-token-num")
    if ctx.product == "A2" and g.dp * g.attn_tp < A2_MIN_WORLD:
        return [OpCall("serve", "none", None, {}, why_none=f"A2, dp {g.dp} x tp {g.attn_tp} = {g.dp * g.attn_tp} < 16: "
                       f"LMDeploy runs every MoE layer with all-gather, no MC2 op ({c.cite('moe_comm_type')} select_moe_comm_type)",
                       quiet=quiet)]
    other = "all-gather" if ctx.product == "A2" else "all-to-all"
    if ctx.product == "A3" and rel.a3_decode_only:
        why = f"A3: MC2 for decode steps of up to {cap} tokens per DP rank, {other} for prefill ({c.cite('moe_comm_type')})"
        rest = f"A3: prefill steps (any size) run {other}, no MC2 op ({c.cite('moe_comm_type')} select_moe_comm_type)"
        calls = [_mc2(c, ctx, g, dims, cap, cap_text, cap_src, why)]
        return calls + [OpCall("prefill", "none", None, {}, why_none=rest, quiet=quiet)]
    need = f"dp {g.dp} x tp {g.attn_tp} >= 16 and " if ctx.product == "A2" else ""
    why = f"{ctx.product}: MC2 when {need}the step's tokens <= {cap} (decode, and prefill chunks that small) ({c.cite('moe_comm_type')})"
    calls = [_mc2(c, ctx, g, dims, cap, cap_text, cap_src, why)]
    if prefill is None or prefill > cap:
        calls.append(OpCall("prefill", "none", None, {}, why_none=f"{ctx.product}: steps above {cap} tokens "
                            f"({c.said('--max-prefill-token-num', prefill)}) run {other}, no MC2 op "
                            f"({c.cite('moe_comm_type')} select_moe_comm_type)", quiet=quiet))
    return calls


def _mc2(c: _Launch, ctx, g: dist.Groups, dims, cap: int, cap_text: str, cap_src: tuple, why: str) -> OpCall:
    call = OpCall("decode", "ascend", "dispatch_combine_v2", {"op": "dispatch_combine_v2"}, knobs=dict(KNOBS))
    put = _putter(call)
    call.derivation["op"] = f"dispatch_combine_v2 <- {why}"
    put("product", ctx.product, f"{ctx.product_source or 'settings'}")
    if ctx.cann:
        put("cann_version", ctx.cann, "settings")
    bs = cap // g.attn_tp
    put("bs", bs, f"capacity {cap} / TP {g.attn_tp}: MC2 runs only while max tokens across DP <= {cap}, padded to TP and "
        f"split over the {g.attn_tp} attention-TP ranks (get_pad_info, moe_prepare); capacity = {cap_text}",
        cap_src + c.span("--tp", "--dp", "--ep"))
    put("ep_world_size", g.ep, f"{c.said('--ep', g.ep)}: dlinfer's ep_size = DistConfig.ep (the world of {g.world} "
        f"devices: --tp {g.tp} per DP group x --dp {g.dp}; {c.cite('dist_config')})", c.span("--ep"))
    if dims is not None:
        model = c.span()
        span = (c.flags.positionals[0].span,) if c.flags.positionals else model
        call.derivation["model"] = dims.how
        put("h", dims.hidden, f"hidden of {dims.name}", span)
        put("k", dims.topk, f"top-k of {dims.name}", span)
        local = -(-dims.num_experts // g.ep)
        put("moe_expert_num", local * g.ep, f"{local} local experts x EP {g.ep} ({dims.num_experts} experts of "
            f"{dims.name}, ceil(E / EP) per rank: ep_expert_list, {c.cite('ep_expert_list')}; {DL}:164)",
            span + c.span("--ep"))
    put("quant_mode", 0, f"fixed by dlinfer ({DL}:163)")
    put("global_bs", 0, f"fixed by dlinfer ({DL}:171, 225)")
    put("tp_world_size", 1, f"group_tp = the EP group, tp_world_size 1 ({DL}:181-186)")
    put("x_active_mask", "1d", f"the rank's real tokens, padding masked ({c.cite('pad_info')} get_pad_info; "
        f"{DL}:188-191)")
    put("expert_token_nums_type", 0, f"{DL}:172")
    _env(c, call)
    return call


def _putter(call: OpCall):
    def put(name: str, value, text: str, spans: tuple = ()) -> None:
        call.arguments[name] = value
        call.derivation[name] = f"{value} <- {text}"
        if spans:
            call.sources[name] = spans
    return put


def _env(c: _Launch, call: OpCall) -> None:
    e = c.launch.env.get("HCCL_BUFFSIZE")
    if e is None:
        return  # unset: HCCL's default is what runs
    unknown = unknown_buffsize(e)
    if unknown is not None:  # set, but not known statically (`$BUF`) or no int: no buffer verdict from HCCL's default
        call.not_known(unknown)
        return
    value = integer(e.value)
    call.arguments["env"] = {"HCCL_BUFFSIZE": value}
    call.sources["env.HCCL_BUFFSIZE"] = (e.span,)
    call.derivation["env.HCCL_BUFFSIZE"] = (f"{value} <- HCCL_BUFFSIZE: LMDeploy creates the EP group without "
                                            f"pg_options ({c.cite('ep_group')}), so MC2 uses the process HCCL buffer")
