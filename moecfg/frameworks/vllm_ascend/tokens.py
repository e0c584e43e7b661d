"""The token side of a vllm-ascend launch: parallel sizes, speculative tokens, the MC2 token capacity and the
tokens per rank the MoE op receives, each as a traced `Arg` (value, the spans that fed it, how it was derived).
"""
from __future__ import annotations

from moecfg.core.record import record
from moecfg.frameworks import Note
from moecfg.frameworks.values import clipped, refused
from moecfg.frameworks.vllm_ascend import formulas as F
from moecfg.frameworks.vllm_ascend.cli import Arg, ServeArgs
from moecfg.frameworks.vllm_ascend.releases import Release

# vLLM's defaults when the flag is absent, for a device with < 70 GiB (Atlas A2 / A3: 64 GB per NPU / die):
# vllm/engine/arg_utils.py default_max_num_seqs / default_max_num_batched_tokens for OPENAI_API_SERVER.
DEFAULT_MAX_NUM_SEQS = 256
DEFAULT_MAX_NUM_BATCHED_TOKENS = 2048
_DEFAULT_SRC = "vLLM's API-server default for a < 70 GiB device (vllm/engine/arg_utils.py)"


def spans(*args: Arg) -> tuple:
    out = []
    for a in args:
        out.extend(s for s in a.spans if s not in out)
    return tuple(out)


@record(slots=True)
class Tokens:
    """Token arithmetic of one launch (all Args; value None when a needed flag is unknown)."""

    tp: Arg
    dp: Arg
    pp: Arg
    max_num_seqs: Arg
    max_num_batched_tokens: Arg
    spec: Arg
    graphs: Arg  # bool: are CUDA/ACL graphs captured (the capacity follows the largest capture size)
    mode: Arg  # cudagraph mode after vllm-ascend's fix-ups (NONE, PIECEWISE, FULL_DECODE_ONLY, ...)
    max_num_tokens: Arg  # tokens across the TP group the capacity is computed from
    limit: int | None  # per-TP-rank cap (main)
    per_rank: Arg  # ceil(max_num_tokens / TP), capped: MC2's bs and the capacity / TP
    capacity: Arg  # mc2_tokens_capacity = per_rank x TP: a step with more tokens leaves the MC2 path

    @property
    def known(self) -> bool:
        return all(a.value is not None for a in (self.tp, self.dp, self.max_num_seqs, self.max_num_batched_tokens,
                                                 self.per_rank))


def read_sizes(args: ServeArgs) -> tuple[Arg, Arg, Arg, Arg, Arg, Arg]:
    tp = args.flag("--tensor-parallel-size", 1)
    dp = args.flag("--data-parallel-size", 1)
    pp = args.flag("--pipeline-parallel-size", 1)
    mns = args.flag("--max-num-seqs", DEFAULT_MAX_NUM_SEQS)
    mnbt = args.flag("--max-num-batched-tokens", DEFAULT_MAX_NUM_BATCHED_TOKENS)
    if not mns.text and mns.value is not None:
        mns = Arg(mns.value, (), f"max_num_seqs {mns.value} ({_DEFAULT_SRC})")
    if not mnbt.text and mnbt.value is not None:
        mnbt = Arg(mnbt.value, (), f"max_num_batched_tokens {mnbt.value} ({_DEFAULT_SRC})")
    spec = args.config("--speculative-config", "num_speculative_tokens", default=0)
    if spec.value is None:
        spec = Arg(0, spec.spans, spec.text)
    checked = [at_least(args, a, lo) for a, lo in ((tp, 1), (dp, 1), (pp, 1), (mns, 1), (mnbt, 1), (spec, 0))]
    return tuple(checked)


def at_least(args: ServeArgs, a: Arg, lo: int) -> Arg:
    """An int >= lo, else None with an MC023 note (vLLM rejects the launch, so nothing is derived from it)."""
    v = a.value
    if v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= lo):
        return a
    span = a.spans[0] if a.spans else args.start
    name = (a.text or "value").split(" ", 1)[0].split("=", 1)[0]
    if isinstance(v, int) and not isinstance(v, bool):  # vLLM's own refusal: an error, with the framework's words
        args.notes.append(refused(name, v, lo, "vLLM", span))
    else:
        args.notes.append(Note("MC023", f"{a.text or 'value'}: {clipped(v)!r} is not an integer vLLM reads; the "
                               "op arguments that depend on it are not derived", span))
    return Arg(None, a.spans, a.text)


def pcp_size(args: ServeArgs) -> Arg:
    return at_least(args, args.flag("--prefill-context-parallel-size", 1), 1)


def graph_mode(args: ServeArgs, rel: Release) -> tuple[Arg, Arg]:
    """(graphs captured?, cudagraph mode after vllm-ascend's platform fix-ups)."""
    eager = args.flag("--enforce-eager", False, kind=bool)
    mode = args.config("--compilation-config", "cudagraph_mode", default="FULL_AND_PIECEWISE")
    level = args.config("--compilation-config", "mode")
    if level.value is None:
        level = args.config("--compilation-config", "level")
    name = str(mode.value).upper()
    if rel.family == "0.11.0" and name == "FULL_AND_PIECEWISE":
        name = "PIECEWISE"  # VA@2f1aed9 vllm_ascend/platform.py:207-208
    if eager.value:
        return Arg(False, eager.spans, "--enforce-eager: no graphs"), Arg("NONE", eager.spans, "--enforce-eager")
    if rel.family != "0.11.0" and (name == "NONE" or level.value == 0):
        src = mode if name == "NONE" else level
        return Arg(False, src.spans, f"{src.text}: no graphs"), Arg("NONE", src.spans, src.text)
    return Arg(True, mode.spans, f"graphs on ({mode.said('default cudagraph_mode')})"), Arg(name, mode.spans, mode.text)


def _int_list(arg: Arg) -> list[int] | None:
    v = arg.value
    if isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in v):
        return v
    return None


def _flag_list(args: ServeArgs, name: str) -> tuple[list[int] | None, Arg]:
    f = args.flags.get(name)
    if f is None or f.value is None:
        return None, Arg(None)
    try:
        sizes = [int(x) for x in f.value.split()]
    except ValueError:
        return None, Arg(None)
    return (sizes, Arg(f.value, (f.span,), f"{name} {f.value}")) if sizes and min(sizes) >= 1 else (None, Arg(None))


def max_num_tokens(args: ServeArgs, rel: Release, mns: Arg, mnbt: Arg, spec: Arg, graphs: Arg, mode: Arg,
                   mega_moe: bool = False) -> Arg:
    """Tokens the MC2 capacity is computed from, per release (see formulas.py for each source)."""
    if mega_moe and rel.megamoe_prefill_fix:
        return Arg(mnbt.value, mnbt.spans, f"{mnbt.said('max_num_batched_tokens')} (MegaMoE runs: its buffer is "
                   f"sized for a whole prefill step, \"Fix MegaMoe prefill buffer sizing\"; {rel.cite['capacity']})")
    if rel.prefill_mc2:
        pm = args.config("--additional-config", "enable_prefill_mc2", default=False)
        if pm.value:
            return Arg(mnbt.value, spans(pm, mnbt), f"{mnbt.said('max_num_batched_tokens')} ({pm.text}; "
                       f"{rel.cite['capacity']})")
    q = f"(1 + {spec.value} speculative)" if spec.value else "1"
    if not graphs.value:
        tokens = F.eager_tokens(mns.value, spec.value, rel.eager_cap)
        cap = f", capped at {rel.eager_cap}" if rel.eager_cap else ""
        return Arg(tokens, spans(mns, spec, graphs), f"{mns.said('max_num_seqs')} x {q}{cap} = {tokens} without "
                   f"graphs ({graphs.text}; {rel.cite['capacity']})")
    user = args.config("--compilation-config", "cudagraph_capture_sizes")
    sizes = _int_list(user)
    if sizes is None:
        sizes, user = _flag_list(args, "--cudagraph-capture-sizes")
    if rel.family == "0.11.0":
        return _v011_tokens(args, rel, mns, mnbt, spec, mode, sizes, user)
    umax = args.config("--compilation-config", "max_cudagraph_capture_size")
    if not isinstance(umax.value, int) or isinstance(umax.value, bool) or umax.value < 1:
        umax = at_least(args, args.flag("--max-cudagraph-capture-size", None), 1)
    tokens = F.ascend_max_capture(mns.value, mnbt.value, spec.value, sizes, umax.value)
    if tokens < 1:  # every capture size above max_num_batched_tokens: no graphs are captured
        return max_num_tokens(args, rel, mns, mnbt, spec, Arg(False, user.spans, f"{user.text}: no size fits"), mode)
    if sizes:
        how = f"largest of {user.text} <= max_num_batched_tokens {mnbt.value}"
    elif umax.value is not None:
        how = f"min({umax.text}, max_num_batched_tokens {mnbt.value})"
    else:
        how = (f"min({mns.said('max_num_seqs')} x {q} = {mns.value * (1 + spec.value)}, {F.GRAPH_TOKEN_CAP}, "
               f"max_num_batched_tokens {mnbt.value})")
    out = Arg(tokens, spans(mns, spec, mnbt, user, umax), f"{how} = {tokens} (max_cudagraph_capture_size, "
              f"{rel.cite['capture']})")
    return _tp_aligned(args, rel, out, sizes, mnbt.value)


def _tp_aligned(args: ServeArgs, rel: Release, tokens: Arg, sizes: list[int] | None, mnbt: int) -> Arg:
    """main + enable_shared_expert_dp, TP > 1: capture sizes kept only at multiples of TP (formulas.tp_aligned_max)."""
    sdp = args.config("--additional-config", "enable_shared_expert_dp", default=False)
    tp = args.flag("--tensor-parallel-size", 1).value or 1
    if rel.family != "main" or not sdp.value or tp <= 1:
        return tokens
    ladder = sorted(s for s in set(sizes) if s <= mnbt) if sizes else F.ascend_ladder(tokens.value)
    aligned = F.tp_aligned_max(ladder, tp)
    if aligned == tokens.value:
        return tokens
    return Arg(aligned, spans(tokens, sdp), f"{tokens.text}; {sdp.text}: largest capture size that is a multiple of "
               f"TP {tp} = {aligned} (VA@182b75e platform.py:1043-1064)")


def _v011_tokens(args, rel, mns, mnbt, spec, mode, sizes, user) -> Arg:
    cgs, cgs_arg = _flag_list(args, "--cuda-graph-sizes")
    largest = F.v011_max_capture(mns.value, mnbt.value, cgs, sizes)
    how = (f"largest of {user.text}" if sizes else f"largest capture size of {cgs_arg.text}" if cgs else
           f"vLLM 0.11 ladder up to min(2 x {mns.said('max_num_seqs')}, 512) <= max_num_batched_tokens "
           f"{mnbt.value}") + f" = {largest}"
    tokens = largest
    if mode.value == "PIECEWISE" and rel.spec_enlarge:
        tokens = F.v011_spec_enlarged(largest, mns.value, spec.value)
        if tokens != largest:
            how += f", x (1 + {spec.value}) for speculative decoding = {tokens} ({rel.cite['spec_enlarge']})"
    return Arg(tokens, spans(mns, mnbt, spec, user, cgs_arg), f"{how} ({rel.cite['capture']})")


def compute(args: ServeArgs, rel: Release, limit: int | None, mega_moe: bool = False) -> Tokens:
    tp, dp, pp, mns, mnbt, spec = read_sizes(args)
    graphs, mode = graph_mode(args, rel)
    empty = Arg(None)
    if any(a.value is None for a in (tp, mns, mnbt, spec)) or (tp.value or 0) < 1:
        return Tokens(tp, dp, pp, mns, mnbt, spec, graphs, mode, empty, limit, empty, empty)
    mnt = max_num_tokens(args, rel, mns, mnbt, spec, graphs, mode, mega_moe)
    per = F.tokens_per_tp_rank(mnt.value, tp.value, limit)
    capped = f" (ceil {F.ceil_div(mnt.value, tp.value)}, capped at {limit} per rank)" if limit is not None and \
        F.ceil_div(mnt.value, tp.value) > limit else ""
    per_rank = Arg(per, spans(mnt, tp), f"{mnt.text} -> / TP {tp.value} = {per}{capped} ({rel.cite['capacity']})")
    capacity = Arg(per * tp.value, per_rank.spans, f"{per} x TP {tp.value} = {per * tp.value} "
                   f"({rel.cite['capacity']})")
    return Tokens(tp, dp, pp, mns, mnbt, spec, graphs, mode, mnt, limit, per_rank, capacity)


def torchair(args: ServeArgs, rel: Release) -> Tokens:
    """v0.11 torchair graph mode: its own capacity (formulas.torchair_capacity)."""
    tp, dp, pp, mns, mnbt, spec = read_sizes(args)
    graphs, mode = Arg(True, (), "torchair graphs"), Arg("TORCHAIR")
    empty = Arg(None)
    if any(a.value is None for a in (tp, mns, spec)) or (tp.value or 0) < 1:
        return Tokens(tp, dp, pp, mns, mnbt, spec, graphs, mode, empty, None, empty, empty)
    cap = F.torchair_capacity(mns.value, spec.value, tp.value)
    how = "lcm" if spec.value > 1 else "rounded up to a multiple of"
    src = spans(mns, spec, tp, args.config("--additional-config", "torchair_graph_config", "enabled"))
    capacity = Arg(cap, src, f"{mns.said('max_num_seqs')} x (1 + {spec.value}) = {mns.value * (1 + spec.value)}, "
                   f"{how} TP {tp.value} = {cap} ({rel.cite['torchair']})")
    per_rank = Arg(cap // tp.value, src, f"{capacity.text} -> / TP {tp.value} = {cap // tp.value}")
    return Tokens(tp, dp, pp, mns, mnbt, spec, graphs, mode, capacity, None, per_rank, capacity)
