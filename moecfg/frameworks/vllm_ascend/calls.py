"""Op-call builders: the arguments vllm-ascend passes (named as the ascend kind's fields), with how each was
derived and the spans of the flags / env entries that fed it."""
from __future__ import annotations

from moecfg.frameworks import Note, OpCall
from moecfg.frameworks.vllm_ascend import choose as C
from moecfg.frameworks.vllm_ascend import formulas as F
from moecfg.frameworks.vllm_ascend import model as M
from moecfg.frameworks.vllm_ascend.cli import Arg
from moecfg.frameworks.vllm_ascend.tokens import spans

ENV_PASSED = ("HCCL_BUFFSIZE", "HCCL_INTRA_PCIE_ENABLE", "HCCL_INTRA_ROCE_ENABLE")


class Builder:
    """Collects arguments, derivation texts and sources of one OpCall."""

    def __init__(self, role: str, op: str):
        self.call = OpCall(role, "ascend", op, {"op": op})  # the kind reads the op from the document

    def put(self, name: str, arg: Arg | None, text: str = "") -> None:
        if arg is None or arg.value is None:
            return
        self.call.arguments[name] = arg.value
        if text or arg.text:
            self.call.derivation[name] = f"{_show(arg.value)} <- {text or arg.text}"
        if arg.spans:
            self.call.sources[name] = arg.spans


def _show(v) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def common(b: Builder, c, ep_arg: Arg, why: str) -> None:
    """product, cann_version, h, k, ep_world_size, moe_expert_num, env: shared by every Ascend op call."""
    b.call.derivation["op"] = f"{b.call.op} <- {why}"
    b.put("product", Arg(c.product, (), f"{c.lctx.product_source or 'settings'}"))
    if c.lctx.cann:
        b.put("cann_version", Arg(c.lctx.cann, (), c.lctx.cann_source or "settings"))
    b.put("ep_world_size", ep_arg)
    dims = c.dims
    if dims is not None:
        src = c.args.model.spans
        b.call.derivation["model"] = dims.how
        b.put("h", Arg(dims.hidden, src, f"hidden of {dims.name}"))
        b.put("k", Arg(dims.topk, src, f"top-k of {dims.name}"))
        r = c.redundant
        if r.value is not None:
            total = dims.num_experts + r.value
            text = f"{dims.num_experts} experts of {dims.name}" + (f" + {r.value} redundant ({r.text}; "
                                                                    f"{c.rel.cite['eplb']})" if r.value else "")
            b.put("moe_expert_num", Arg(total, spans(c.args.model, r), text))
    env = {}
    for name in ENV_PASSED:
        e = c.args.env_value(name)
        if e.text and e.value is not None:
            env[name] = e.value
            b.call.sources[f"env.{name}"] = e.spans
            b.call.derivation[f"env.{name}"] = f"{e.value} <- {e.text} (the mc2 group has no pg_options: the op "\
                f"uses the process HCCL_BUFFSIZE, {c.rel.cite['buffer']})" if name == "HCCL_BUFFSIZE" else e.text
        elif e.text:
            b.call.not_known(Note("MC023", f"{name}: the value is not known statically",
                                  e.spans[0] if e.spans else c.args.start, about=f"env.{name}"))
    if env:
        b.call.arguments["env"] = env


def quant_mode(c) -> Arg | None:
    q = c.quant
    if q.value == "unknown":
        return None
    mode = 2 if q.value in M.DYNAMIC_QUANTS else 0
    return Arg(mode, q.spans, f"{q.text} ({'dynamic int8 dispatch' if mode else 'no dispatch quantisation'})")


def mc2_call(c, t, ep_arg: Arg, phase: str, why: str) -> OpCall:
    b = Builder(phase, "dispatch_combine_v2")
    common(b, c, ep_arg, why)
    b.put("bs", t.per_rank)
    b.put("quant_mode", quant_mode(c))
    gbs = global_bs(c, t, ep_arg)
    b.put("global_bs", gbs)
    if c.product == "A3":
        b.put("tp_world_size", Arg(1, (), f"A3: group_tp = the EP group, tp_world_size=1 ({_args_cite(c)})"))
    if _active_mask(c, gbs.value):
        b.put("x_active_mask", Arg("1d", (), f"mc2_mask passed ({_args_cite(c)})"))
    if c.hierarchical:
        src = c.hier_flag if c.hier_flag.value else c.hier_env
        b.put("expert_scales", Arg(True, src.spans, f"{src.text}: hierarchical communication passes expert_scales"))
    if c.hier_flag.value:
        b.put("comm_alg", Arg("hierarchy", c.hier_flag.spans, f"{c.hier_flag.text} ({c.rel.cite['hierarchy']})"))
    b.put("expert_token_nums_type", Arg(0, (), f"prefix sums ({c.rel.cite['dispatch']})"))
    return b.call


def _args_cite(c) -> str:
    """Where the release passes tp_world_size and x_active_mask (v0.11.0 / v0.13.0: inside the dispatch range)."""
    return c.rel.cite.get("mc2_args", c.rel.cite["dispatch"])


def _active_mask(c, gbs) -> bool:
    rule = c.rel.active_mask
    return (rule == "a3" and c.product == "A3") or (rule == "global_bs_zero" and gbs == 0)


def global_bs(c, t, ep_arg: Arg) -> Arg:
    rule, cite = c.rel.global_bs, c.rel.cite["dispatch"]
    ep = ep_arg.value
    if rule == "zero":
        return Arg(0, (), f"global_bs=0 ({cite})")
    if rule == "always":
        v = t.per_rank.value * ep
        return Arg(v, spans(t.per_rank, ep_arg), f"{t.per_rank.value} tokens per rank x EP {ep} ({cite})")
    skip, why = c.skip_allreduce
    if skip:
        v = t.per_rank.value * ep
        return Arg(v, spans(t.per_rank, ep_arg, c.kv_role), f"{t.per_rank.value} x EP {ep}: {why}")
    return Arg(0, c.kv_role.spans, f"0: {why}")


def skip_allreduce(c, t, setup, mode: Arg) -> tuple[bool, str]:
    """main: a kv_consumer skips the DP all-reduce (global_bs = bs x EP) when decode and max_num_batched_tokens
    both run MC2 and graphs do not split decode / mixed routines, or with the recompute scheduler; never with
    hierarchical communication (VA@182b75e vllm_ascend/utils.py:1099-1147)."""
    cite = c.rel.cite["skip_allreduce"]
    if c.hierarchical:
        return False, f"hierarchical communication needs uniform tokens ({cite})"
    if c.kv_role.value != "kv_consumer":
        return False, f"not a kv_consumer node: the DP all-reduce keeps tokens uniform ({cite})"
    mns, spec, mnbt = t.max_num_seqs.value, t.spec.value, t.max_num_batched_tokens.value
    if t.graphs.value:
        potential = max(t.max_num_tokens.value, min(mnbt, mns * (1 + spec)))
    else:
        potential = min(mns * (1 + spec), 512)
    needs = lambda n: C.choose(setup, n, t.capacity.value)[0] in (C.MC2, C.FUSED)  # noqa: E731
    recompute = c.args.config("--additional-config", *c.rel.recompute_key)
    # cudagraph_mode.separate_routine() (FULL_AND_PIECEWISE, FULL_DECODE_ONLY) bars the prefill case only from
    # v0.25.1rc1 (uniform_cudagraph_mode); earlier releases skip whenever both run MC2
    separate = c.rel.skip_uniform_graphs and str(mode.value) in ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY")
    if not needs(potential):
        return False, f"decode's {potential} tokens leave MC2 ({cite})"
    if needs(mnbt) and not separate:
        return True, f"kv_consumer, decode ({potential}) and max_num_batched_tokens ({mnbt}) both run MC2 ({cite})"
    if recompute.value:
        return True, f"kv_consumer with {recompute.text} ({cite})"
    reason = f"cudagraph_mode {mode.value} separates decode" if needs(mnbt) else \
        f"max_num_batched_tokens {mnbt} leaves MC2"
    return False, f"kv_consumer, but {reason} ({cite})"


def fused_call(c, t, ep_arg: Arg, phase: str, n: int, why: str) -> OpCall:
    op = c.fused.op
    if op == "dispatch_gmm_combine_decode":
        return OpCall(phase, "none", None, {}, why_none=(
            f"{why}; not checked: moecfg has no rules for dispatch_gmm_combine_decode"))
    b = Builder(phase, op)
    common(b, c, ep_arg, why)
    bs = _fused_bs(c, t, phase, n)
    b.put("bs", bs)
    _fused_weights(b, c)
    if op == "mega_moe":
        _mega_moe(b, c, t, ep_arg)
    else:
        _dispatch_ffn_combine(b, c)
    return b.call


_WEIGHT_DTYPES = {"w8a8_dynamic": "int8", "w4a8_dynamic": "int4", None: "bf16"}


def _fused_weights(b: Builder, c) -> None:
    """intermediate_hidden = l2_weights[i].size(0) = moe_intermediate_size (EP: experts are not TP-split). Note:
    vllm-ascend passes 2 x intermediate_size_per_partition as get_symm_buffer_for_mega_moe's intermediate_hidden
    (VA@182b75e moe_comm_method.py:331); the field here is the weight's width the op's tiling checks."""
    inter = getattr(c.dims, "moe_intermediate_size", 0) if c.dims is not None else 0
    if inter:
        b.put("intermediate_hidden", Arg(inter, c.args.model.spans, f"moe_intermediate_size of {c.dims.name} (EP: "
                                         "not TP-split; vllm-ascend passes 2 x this to get_symm_buffer_for_mega_moe)"))
    if c.quant.value in _WEIGHT_DTYPES:
        b.put("weight_dtype", Arg(_WEIGHT_DTYPES[c.quant.value], c.quant.spans, c.quant.text))


def _fused_bs(c, t, phase: str, n: int) -> Arg:
    """x.dim0 per rank: the capacity per TP rank for decode steps; prefill steps of up to max_num_batched_tokens
    are padded and split over TP the same way (VA@182b75e ascend_forward_context.py:150-165)."""
    if phase == "decode":
        return t.per_rank
    mnbt, tp = t.max_num_batched_tokens, t.tp.value
    v = F.ceil_div(mnbt.value, tp)
    return Arg(v, spans(mnbt, t.tp), f"ceil({mnbt.said('max_num_batched_tokens')} / TP {tp}) = {v}: a prefill step "
               f"padded and split over TP ({c.rel.cite['split']})")


def _mega_moe(b: Builder, c, t, ep_arg: Arg) -> None:
    cite = c.rel.cite["mega_moe"]
    nmt = t.per_rank
    b.put("num_max_tokens_per_rank", nmt, f"{nmt.text} (the symmetric buffer is sized once from it, {cite})")
    dims = c.dims
    if c.rel.recv_from_config:
        mmt = mega_moe_max_tokens(b, c)
        if mmt is not None:
            b.put("max_recv_token_num", Arg(mmt.value, mmt.spans, f"{mmt.said('mega_moe_max_tokens default')} "
                                            f"({cite})"))
    elif dims is not None and "moe_expert_num" in b.call.arguments:
        experts, ep = b.call.arguments["moe_expert_num"], ep_arg.value
        recv = F.mega_moe_max_recv(nmt.value, ep, dims.topk, experts)
        b.put("max_recv_token_num", Arg(recv, spans(nmt, ep_arg), f"{nmt.value} x EP {ep} x min(top-k {dims.topk}, "
                                        f"{experts} experts / EP {ep}) ({cite})"))
    q = quant_mode(c)
    if q is not None:
        b.put("dispatch_quant_mode", Arg(q.value, q.spans, f"{q.text} (_get_cann_mega_moe_quant_settings, {cite})"))
        if q.value == 2:  # W8A8 / W4A8: dispatch_quant_out_dtype = ACL int8 (258), moe_utils.py:136-139
            b.put("dispatch_quant_out_dtype", Arg("int8", q.spans, f"int8 for W8A8/W4A8 ({cite})"))


def _dispatch_ffn_combine(b: Builder, c) -> None:
    kind, value = c.rel.dfc_output
    if kind == "fixed":
        cite = c.rel.cite["fused" if c.rel.family == "0.13.0" else "dispatch_ffn_combine"]
        b.put("max_output_size", Arg(value, (), f"fixed in vllm-ascend {c.rel.ref} ({cite})"))
        return
    mmt = mega_moe_max_tokens(b, c)
    if mmt is not None:
        b.put("max_output_size", Arg(mmt.value, mmt.spans, f"{mmt.said('mega_moe_max_tokens default')} "
                                     f"({c.rel.cite['dispatch_ffn_combine']})"))


def mega_moe_max_tokens(b: Builder, c) -> Arg | None:
    """additional_config.mega_moe_max_tokens with the release's default; None when the release refuses it at
    start-up (`mega_moe_max_tokens_note` reports that once per launch)."""
    mmt = c.args.config("--additional-config", "mega_moe_max_tokens", default=c.rel.dfc_output[1])
    return mmt if mega_moe_max_tokens_note(c.args, c.rel) is None and mmt.value is not None else None


def mega_moe_max_tokens_note(args, rel) -> Note | None:
    """MC025 when ascend_config refuses mega_moe_max_tokens at start-up, worded as the code words it: not an int
    ("must be an integer, got str: 65536"), or `<= 0` where the release checks it ("must be a positive integer, got
    0"): every tag read (v0.23.0 ascend_config.py:306-313 @5cb98ca; cited in the release's `dispatch_ffn_combine`).
    A JSON bool passes the isinstance(int) check, as in Python."""
    if rel.dfc_output[0] != "config":
        return None
    mmt = args.config("--additional-config", "mega_moe_max_tokens", default=rel.dfc_output[1])
    if mmt.value is None:
        return None  # not known statically
    if not isinstance(mmt.value, int):
        said = f"must be an integer, got {_py_type(mmt.value)}: {_py_str(mmt.value)}"
    elif mmt.value <= 0 and rel.mmt_positive:
        said = f"must be a positive integer, got {_py_str(mmt.value)}"
    else:
        return None  # fine, or 0 / negative reaching the op (its rules judge them)
    auto = " (0 = auto is only proposed, vllm-ascend#17162)" if mmt.value == 0 and not isinstance(mmt.value, bool) \
        else ""
    return Note("MC025", f"{mmt.text}: vllm-ascend {rel.ref} stops at start-up with ValueError(\"mega_moe_max_tokens "
                f"{said}\"){auto} ({rel.cite['dispatch_ffn_combine']}); set it to a positive integer such as "
                f"{rel.dfc_output[1]}", mmt.spans[0] if mmt.spans else args.start, "error")


def _py_type(value) -> str:
    """type(value).__name__ of the JSON value as Python loads it."""
    return {str: "str", float: "float", list: "list", dict: "dict", bool: "bool"}.get(type(value), type(value).__name__)


def _py_str(value) -> str:
    """f"{value}" of the JSON value as Python loads it (True, not true), clipped."""
    from moecfg.frameworks.values import clipped

    return clipped(str(value), 40)


def mega_moe_max_tokens_scope_note(args, rel) -> Note | None:
    """MC043 (info) when mega_moe_max_tokens is set on a release with MegaMoE where it does not size MegaMoE's
    receive capacity (before #14730 / #15014): there vllm-ascend derives max_recv_token_num itself and the key
    only feeds dispatch_ffn_combine's max_output_size."""
    if not rel.megamoe or rel.recv_from_config or rel.dfc_output[0] != "config":
        return None
    mmt = args.config("--additional-config", "mega_moe_max_tokens")
    if not mmt.spans or mega_moe_max_tokens_note(args, rel) is not None:
        return None  # not set, or refused at start-up (MC025 says so)
    return Note("MC043", f"{mmt.text}: vllm-ascend {rel.ref} uses it only as dispatch_ffn_combine's max_output_size "
                f"({rel.cite['dispatch_ffn_combine']}); MegaMoE's max_recv_token_num is derived by vllm-ascend "
                f"(num_max_tokens_per_rank x EP x min(top-k, experts per rank), {rel.cite['mega_moe']}), whatever "
                "this key says. It sizes MegaMoE's receive capacity only from vllm-ascend#14730 (releases/v0.26.0rc "
                "after the head read) / #15014 (main after 182b75e): for such an image pin "
                "`framework_versions: {vllm-ascend: 0.27}` in .moecfg.yaml", mmt.spans[0])
