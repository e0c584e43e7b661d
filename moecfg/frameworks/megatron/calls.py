"""The buffer one Megatron-LM rank builds for the flex token dispatcher, as a `kind: deepep` document.

NVIDIA/Megatron-LM@d98e8a6 (M = megatron/core/transformer):
- group: tp_ep_group = expert-TP x EP ranks; DeepEP gets num_experts = ETP x E and topk = ETP x k
  (megatron/core/transformer/moe/token_dispatcher.py:1835-1852 MoEFlexTokenDispatcher.__init__); ETP defaults to TP (arguments.py).
- deepep: Buffer(group, nvl, rdma) with nvl / rdma = max over DeepEP's default dispatch and combine configs of the
  normal-mode hints, hidden_bytes = hidden x max(elem_size, 2) (M/moe/fused_a2a.py:24-68 get_hidden_bytes, get_buffer);
  num_sms = --moe-flex-dispatcher-num-sms (or the deprecated --moe-deepep-num-sms) else 20 (token_dispatcher.py:1287).
- hybridep: HybridEPBuffer(hidden_dim, max_num_of_tokens_per_rank = the first batch's tokens, num_local_experts)
  (M/moe/fused_a2a.py:285-346 init_hybrid_ep_buffer); a rank's tokens are seq-length x micro-batch / CP, / TP with
  --sequence-parallel.
"""
from __future__ import annotations

from moecfg.backends.deepep.arguments import hybridep_document, megatron_buffer_arguments
from moecfg.frameworks import Note, OpCall, budget
from moecfg.frameworks.flags import FlagSpec, parse_flags
from moecfg.frameworks.values import clipped, integer, refused
from moecfg.frameworks.megatron import parallel_sizes as P
from moecfg.frameworks.megatron import rules
from moecfg.frameworks.vllm.calls import add_device, deepep_buffers

M = "NVIDIA/Megatron-LM@d98e8a6 megatron/core/transformer/moe"
_INT = ("--tensor-model-parallel-size", "--expert-model-parallel-size", "--expert-tensor-parallel-size",
        "--context-parallel-size", "--num-experts", "--moe-router-topk", "--hidden-size", "--seq-length",
        "--micro-batch-size", "--moe-flex-dispatcher-num-sms", "--moe-deepep-num-sms")
_GTP = ("--tensor-parallel-num-weight-shards", "--expert-tensor-parallel-num-weight-shards")  # a factor of the world
FLAGS = tuple(FlagSpec(n) for n in _INT + ("--pipeline-model-parallel-size", "--yaml-cfg") + _GTP) + (
    FlagSpec("--moe-token-dispatcher-type"), FlagSpec("--moe-flex-dispatcher-backend"),
    FlagSpec("--moe-enable-deepep", takes_value=False), FlagSpec("--sequence-parallel", takes_value=False),
    FlagSpec("--use-checkpoint-args", takes_value=False), FlagSpec("--transformer-impl"))


class _Args:
    def __init__(self, launch, flags):
        self.launch, self.flags, self.notes = launch, flags, []

    def span(self, name):
        f = self.flags.get(name)
        return (f.span,) if f else ()

    def int(self, name, default=None, lo: int = 1):
        """The flag as Megatron's argparse (type=int) reads it, >= lo; None (with a note) otherwise."""
        f = self.flags.get(name)
        if f is None:
            return default
        value = integer(f.value)
        said = any(n.span == f.span for n in self.notes)  # read twice (TP: the group and the tokens), said once
        if value is None:
            if not said:
                self.notes.append(Note("MC023", f"{name} {self._written(f)}: not an integer known statically; the "
                                       "buffer that depends on it is not derived", f.span))
            return None
        if value < lo:
            if not said:
                self.notes.append(refused(name, value, lo, "Megatron-LM", f.span, "the DeepEP buffer"))
            return None
        return value

    @staticmethod
    def _written(f) -> str:
        """The value as written, or a plain word for one that depends on a variable the script does not set."""
        return repr(clipped(f.value)) if f.value is not None else "(its value comes from a variable the script does not set)"

    def said(self, name, value, default_text="default"):
        return f"{name} {value}" if self.flags.get(name) else f"{name} {value} ({default_text})"


def derive_calls(launch, ctx, out, start: int) -> None:
    """`start`: the index of the first argument after the entry script (the package's command_start, passed in)."""
    a = _Args(launch, parse_flags(launch.argv[start:], FLAGS, underscores=False))
    refused = world_refusal(a, start)
    if refused is not None:
        out.notes.append(refused)
        return
    call = _call(a, ctx)
    out.notes.extend(a.notes)
    if call is not None:
        out.calls.append(call)


def _size(a: _Args, name: str, default: int | None) -> int | None:
    """A parallel size as Megatron reads it (its default when absent), None when not a known integer >= 1: the
    world-size check then says nothing (the buffer derivation notes unknown values itself)."""
    f = a.flags.get(name)
    if f is None:
        return default
    value = integer(f.value) if f.value is not None else None
    return value if value is not None and value >= 1 else None


def world_refusal(a: _Args, start: int) -> Note | None:
    """MC983: the world size torchrun starts is not a multiple of TP x PP x CP or of expert-TP x EP x PP."""
    if any(w.value is None for w in a.flags.positionals) or any(a.flags.get(f) for f in P.SIZES_ELSEWHERE + _GTP):
        return None  # a size may hide in an unknown word, or come from a checkpoint / YAML file / the GTP factor
    world = P.world(a.launch, start, absent_known=False)
    tp, pp, cp, ep = (_size(a, n, 1) for n in ("--tensor-model-parallel-size", "--pipeline-model-parallel-size",
                                               "--context-parallel-size", "--expert-model-parallel-size"))
    etp = _size(a, "--expert-tensor-parallel-size", tp)
    experts = _size(a, "--num-experts", None) if a.flags.get("--num-experts") else 0
    if world.size is None or None in (tp, pp, cp, ep, etp, experts):
        return None
    bad = P.indivisible(world.size, tp, pp, cp, ep, etp, experts > 0)
    if bad is None:
        return None
    src = f"{P.MEGATRON} {'megatron/core/parallel_state.py:874-884' if bad.expert else 'megatron/training/arguments.py:432'}"
    named = a.flags.get(bad.flag) if bad.fit else None  # the finding sits at the flag it fixes
    span = named.span if named else world.spans[0] if world.spans else a.launch.span
    return Note(rules.WORLD_INDIVISIBLE.code, f"world size {world.size} ({world.how}) is not a multiple of {bad.text} = "
                f"{bad.product}: Megatron {'raises RuntimeError when it builds the expert groups' if bad.expert else 'asserts it at argument parsing'} "
                f"({src}); {bad.fix(world.size)}, or launch a multiple of {bad.product} processes", span)


def _backend(a: _Args) -> tuple[str, str]:
    if a.flags.boolean("--moe-enable-deepep"):
        return "deepep", "--moe-enable-deepep (deprecated)"
    name = a.flags.value("--moe-flex-dispatcher-backend") or "deepep"
    return name, a.said("--moe-flex-dispatcher-backend", name)


def _unknown_words(a: _Args) -> bool:
    """Words the reader could not know (unset variables, an array extended only in some branches): flags may
    hide in them."""
    unknown = [w for w in a.flags.positionals if w.value is None]
    if unknown:
        a.notes.append(Note("MC023", f"{len(unknown)} argument word(s) of the Megatron command are not known statically "
                            "(unset variables, an array such as MOE_ARGS extended only inside an `if`): the MoE dispatcher settings may be "
                            "among them, so no buffer is derived; write the flags literally or check an expanded "
                            "command (`set -x` output)", unknown[0].span))
    return bool(unknown)


def _call(a: _Args, ctx) -> OpCall | None:
    if not a.flags.get("--moe-token-dispatcher-type") and _unknown_words(a):
        return None
    if a.flags.value("--transformer-impl") == "inference_optimized":
        return OpCall("train", "none", None, {}, why_none="--transformer-impl inference_optimized: in inference the MoE "
                      "layers dispatch with the NVLS / NCCL all-gather-v dispatcher of --inference-moe-token-dispatcher-"
                      f"type ({M}/moe_layer.py:392-411), no DeepEP buffer")
    if a.flags.boolean("--use-checkpoint-args"):  # forced over the command line (_set_arg force=True)
        a.notes.append(Note("MC023", "--use-checkpoint-args: the number of experts and the router's top-k come "
                            "from the checkpoint's arguments, over the command line (NVIDIA/Megatron-LM@d98e8a6 "
                            "megatron/training/checkpointing.py:2256-2268, 2305-2312 load_args_from_checkpoint), "
                            "not known statically: no dispatcher buffer is derived", a.span("--use-checkpoint-args")[0]))
        return None
    if not a.flags.get("--num-experts") or a.flags.value("--num-experts") == "0":  # dense: nothing to say (no MC041)
        return OpCall("train", "none", None, {}, why_none="no --num-experts: a dense model, no MoE dispatch", quiet=True)
    written = a.flags.get("--moe-token-dispatcher-type")
    if written is not None and written.value is None:  # `--moe-token-dispatcher-type $X`: not Megatron's default
        a.notes.append(Note("MC023", "--moe-token-dispatcher-type is set to a value not known statically: the "
                            "dispatcher (and any DeepEP buffer) is not derived", written.span))
        return None
    kind = a.flags.value("--moe-token-dispatcher-type") or "allgather"
    backend, btext = _backend(a)
    experts, ep = a.int("--num-experts", lo=0), a.int("--expert-model-parallel-size", 1)
    if kind != "flex":
        if a.flags.get("--moe-flex-dispatcher-backend") or a.flags.get("--moe-enable-deepep"):
            span = (a.span("--moe-flex-dispatcher-backend") or a.span("--moe-enable-deepep"))[0]
            a.notes.append(Note(rules.BACKEND_UNUSED.code, f"{btext} has no effect with --moe-token-dispatcher-type "
                                f"{kind}: only the flex dispatcher reads it; add --moe-token-dispatcher-type flex", span))
        return OpCall("train", "none", None, {}, why_none=f"--moe-token-dispatcher-type {kind}: NCCL "
                      f"{'all-gather' if kind == 'allgather' else 'all-to-all'}, no DeepEP buffer")
    if experts is None or ep is None:
        if experts is None and not a.flags.get("--num-experts"):
            return OpCall("train", "none", None, {}, why_none="no --num-experts: a dense model, no MoE dispatch")
        return None
    if experts == 0:
        return OpCall("train", "none", None, {}, why_none="--num-experts 0: a dense model, no MoE dispatch")
    if experts % ep:
        a.notes.append(Note(rules.EXPERTS_DIVISIBLE.code, f"--num-experts {experts} is not a multiple of "
                            f"--expert-model-parallel-size {ep}: Megatron asserts it at argument parsing; use an EP "
                            "size that divides it", (a.span("--expert-model-parallel-size") or a.span("--num-experts"))[0]))
        return None
    if backend not in ("deepep", "hybridep"):
        return OpCall("train", "none", None, {}, why_none=f"{btext}: NCCL EP, not modelled by moecfg")
    tp = a.int("--tensor-model-parallel-size", 1)
    etp = a.int("--expert-tensor-parallel-size", tp)
    hidden = a.int("--hidden-size")
    if None in (tp, etp, hidden):
        if hidden is None and not a.flags.get("--hidden-size"):
            a.notes.append(Note("MC042", "--hidden-size is not given: the dispatcher buffer is not derived",
                                a.launch.span))
        return None
    return (_deepep if backend == "deepep" else _hybridep)(a, ctx, experts, ep, etp, hidden, btext)


def _common(a, experts, ep, etp, hidden):
    ranks = etp * ep
    group = f"{ranks} <- expert-TP {etp} x {a.said('--expert-model-parallel-size', ep)} (tp_ep_group, " \
            f"{M}/token_dispatcher.py:1835-1852)"
    src = {"num_ranks": a.span("--expert-model-parallel-size") + a.span("--expert-tensor-parallel-size") +
           a.span("--tensor-model-parallel-size")}
    return ranks, group, src


def _deepep(a, ctx, experts, ep, etp, hidden, btext) -> OpCall | None:
    ranks, group, src = _common(a, experts, ep, etp, hidden)
    if ranks <= 1:
        a.notes.append(Note(rules.SINGLE_RANK.code, "the flex dispatcher with DeepEP needs expert-TP x EP > 1 (Megatron "
                            "asserts 'DeepEP dispatcher requires TPxEP > 1'); set --expert-model-parallel-size > 1",
                            (a.span("--moe-token-dispatcher-type") or (a.launch.span,))[0]))
        return None
    topk = a.int("--moe-router-topk", 2)
    sms = a.int("--moe-flex-dispatcher-num-sms") or a.int("--moe-deepep-num-sms") or 20
    if topk is None:
        return None
    try:
        bufs = megatron_buffer_arguments(ranks, hidden, 2, sms)
    except ValueError as exc:
        a.notes.append(Note("MC042", f"{exc}: the DeepEP buffer Megatron sizes is not derived", a.launch.span))
        return None
    args = {"mode": "normal", "num_ranks": ranks, "hidden": hidden, "num_experts": etp * experts,
            "num_topk": etp * topk, "dtype": "bf16", "num_sms": sms, "num_nvl_bytes": bufs["num_nvl_bytes"],
            "num_rdma_bytes": bufs["num_rdma_bytes"]}
    hint = f"max over DeepEP's default dispatch/combine configs for {ranks} ranks of the normal-mode hint, " \
           f"hidden_bytes = {hidden} x 2 ({M}/fused_a2a.py:36-68 get_buffer)"
    derivation = {"mode": f"normal <- --moe-token-dispatcher-type flex, {btext}", "num_ranks": group,
                  "hidden": f"{hidden} <- --hidden-size {hidden}",
                  "num_experts": f"{etp * experts} <- expert-TP {etp} x --num-experts {experts} (DeepEP sees ETP x E)",
                  "num_topk": f"{etp * topk} <- expert-TP {etp} x {a.said('--moe-router-topk', topk)}",
                  "dtype": "bf16 <- Megatron sizes with max(elem_size, 2) bytes per element",
                  "num_sms": f"{sms} <- --moe-flex-dispatcher-num-sms, else 20 ({M}/token_dispatcher.py:1287-1292)",
                  "num_nvl_bytes": f"{bufs['num_nvl_bytes']} <- {hint}", "num_rdma_bytes": f"{bufs['num_rdma_bytes']} <- {hint}"}
    sources = src | {"hidden": a.span("--hidden-size"), "num_experts": a.span("--num-experts"),
                     "num_topk": a.span("--moe-router-topk"), "num_sms": a.span("--moe-flex-dispatcher-num-sms"),
                     "mode": a.span("--moe-token-dispatcher-type")}
    call = OpCall("train", "deepep", None, args, derivation, sources)
    _budget(a, ctx, call, deepep_buffers(args, hint, hint))
    return call


def _tokens(a) -> tuple[int | None, str]:
    seq, mbs, cp = a.int("--seq-length"), a.int("--micro-batch-size", 1), a.int("--context-parallel-size", 1)
    tp = a.int("--tensor-model-parallel-size", 1)
    if seq is None or mbs is None or cp is None or tp is None:  # written but not known: a.int said so (MC023)
        return None, "--seq-length not given" if a.flags.get("--seq-length") is None else ""
    sp = tp if a.flags.boolean("--sequence-parallel") and tp > 1 else 1
    tokens = -(-seq * mbs // (cp * sp))
    return tokens, f"--seq-length {seq} x {a.said('--micro-batch-size', mbs)} / CP {cp}" + \
        (f" / TP {tp} (--sequence-parallel)" if sp > 1 else "") + f" = {tokens}"


def _hybridep(a, ctx, experts, ep, etp, hidden, btext) -> OpCall | None:
    ranks, group, src = _common(a, experts, ep, etp, hidden)
    tokens, ttext = _tokens(a)
    if tokens is None:
        if ttext:
            a.notes.append(Note("MC042", f"{ttext}: HybridEP sizes its buffer by the tokens of the first batch; give "
                                "--seq-length and --micro-batch-size", a.launch.span))
        return None
    doc = hybridep_document(ranks, hidden, tokens, experts // ep)
    args = {k: v for k, v in doc.items() if k != "kind"}
    derivation = {"api": f"hybridep <- --moe-token-dispatcher-type flex, {btext}", "num_ranks": group,
                  "hidden_dim": f"{hidden} <- --hidden-size {hidden}",
                  "max_num_of_tokens_per_rank": f"{tokens} <- {ttext} (the first batch sizes the buffer, "
                                                f"{M}/fused_a2a.py:285-346 init_hybrid_ep_buffer)",
                  "num_local_experts": f"{experts // ep} <- --num-experts {experts} / EP {ep}"}
    sources = src | {"hidden_dim": a.span("--hidden-size"), "num_local_experts": a.span("--num-experts"),
                     "max_num_of_tokens_per_rank": a.span("--seq-length") + a.span("--micro-batch-size"),
                     "api": a.span("--moe-flex-dispatcher-backend")}
    call = OpCall("train", "deepep", None, args, derivation, sources)
    add_device(a.launch, ctx, call)
    return call


def _budget(a, ctx, call, bufs) -> None:
    device, how = add_device(a.launch, ctx, call)
    call.derived["memory_budget"] = budget.table(bufs, device, how, ctx.device_memory_gb, None,
                                                 "training: no memory fraction (weights, gradients, optimizer state and "
                                                 "activations share the device with the buffers)")
