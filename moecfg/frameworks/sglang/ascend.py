"""SGLang on Ascend with `--moe-a2a-backend deepep`: the sgl-kernel-npu DeepEP calls per phase.

Read at SGLang main 2026-08 (S = python/sglang/srt/server_args.py @001067f, D = layers/moe/token_dispatcher/deepep.py
@003a81b, U = layers/moe/utils.py, P = distributed/parallel_state.py):
- EP size: `--moe-a2a-backend deepep` sets ep_size = tp_size (S `_handle_a2a_moe`); with --enable-dp-attention each
  DP group of tp/dp ranks shares one attention batch and scatters it over its ranks before the MoE.
- mode: --deepep-mode auto resolves to normal for batches with extend (prefill) tokens and to low_latency for
  decode batches (U `DeepEPMode.resolve`); --disaggregation-mode prefill/decode keeps one phase.
- normal tokens per rank: --chunked-prefill-size, divided by dp with DP attention (S `_handle_data_parallelism`),
  over the attention-TP ranks.
- low latency: T = SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 128, environ.py), asserted <= 1024 (D
  `_DeepEPDispatcherImplBase.__init__`); decode tokens per rank = cuda-graph batch per DP rank x draft tokens.
- dispatch dtype: --deepep-dispatcher-output-dtype, else SGLANG_DEEPEP_BF16_DISPATCH, else the quant config, else
  BF16 on NPU (U `get_deepep_output_dtype`); SGLang then sets DEEP_NORMAL_MODE_USE_INT8_QUANT itself (D
  `set_deepep_dispatcher_dtype`) and passes use_fp8 to low_latency_dispatch.
- DeepEP's group and window: on NPU create_moe_dispatcher passes `_get_deepep_comm_group(a2a_backend)` =
  get_moe_ep_group().device_group (layers/moe/fused_moe_triton/layer.py: read in stored copies the index serves
  without repository or commit; sglang PR #29030 "[NPU] use standalone group for moe ep", dated 2026-06-23, describes
  the same change), and initialize_model_parallel builds _MOE_EP as its own group named "moe_ep" on NPU even when
  ep == tp ("NPU requires a standalone group for MOE expert parallelism": `if moe_ep_size ==
  tensor_model_parallel_size and not _is_npu: _MOE_EP = _TP`, P @0005973a). GroupCoordinator creates each device
  group with pg_options = get_torch_distributed_pg_options(group_name): a name containing "moe" gets
  hccl_buffer_size = int(DEEPEP_HCCL_BUFFSIZE or HCCL_BUFFSIZE or 200) (P @0005973a, sglang PR #17804), so the
  window sgl-kernel-npu's Buffer uses (group._get_backend(npu).get_hccl_comm_name, deep_ep/buffer.py L68-69
  @f425bdf) is the value its tilings check (DEEPEP_HCCL_BUFFSIZE, else HCCL_BUFFSIZE, mc2_tiling_utils.h L22-41).
  Before PR #29030 (copies of layer.py likewise unnamed) SGLang passed get_tp_group().device_group (name "tp": no
  option, the window was HCCL_BUFFSIZE, HCCL's 200 MB when unset) and aliased _MOE_EP to _TP when ep == tp. moecfg
  derives every SGLang version as main 2026-08 (which release first ships PR #29030 was not found), so a launch of
  an older image gets the newer window: set both variables alike there.
"""
from __future__ import annotations

from moecfg.backends.ascend.ops.sgl_deepep import formulas as sgl_formulas
from moecfg.core.launch_rules import PRODUCT_UNKNOWN
from moecfg.backends.ascend.ops.sgl_deepep.fields import ENV_FIELDS
from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall
from moecfg.frameworks.flags import Flags, FlagSpec
from moecfg.frameworks.values import integer, size_notes, unreadable_notes
from moecfg.frameworks.models import known_moe, resolve_model, unresolved_reason
from moecfg.frameworks.sglang import npu_memory, rules

S, D, U = "server_args.py @001067f", "token_dispatcher/deepep.py @003a81b", "layers/moe/utils.py"
DEFAULT_T = 128  # environ.py SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK = EnvInt(128)
FLAGS = (
    FlagSpec("--model-path", ("--model",)), FlagSpec("--tp-size", ("--tp",)), FlagSpec("--dp-size", ("--dp",)),
    FlagSpec("--ep-size", ("--ep", "--expert-parallel-size")), FlagSpec("--enable-dp-attention", takes_value=False),
    FlagSpec("--moe-a2a-backend"), FlagSpec("--deepep-mode"), FlagSpec("--deepep-dispatcher-output-dtype"),
    FlagSpec("--chunked-prefill-size"), FlagSpec("--max-running-requests"), FlagSpec("--cuda-graph-max-bs"),
    FlagSpec("--cuda-graph-bs", nargs="+"), FlagSpec("--speculative-num-draft-tokens"),
    FlagSpec("--speculative-algorithm"), FlagSpec("--ep-num-redundant-experts"), FlagSpec("--device"),
    FlagSpec("--disaggregation-mode"), FlagSpec("--quantization"), FlagSpec("--max-prefill-tokens"),
    FlagSpec("--context-length"), FlagSpec("--mem-fraction-static"),
    FlagSpec("--pp-size", ("--pipeline-parallel-size",)),
)
SIZE_FLAGS = ("--tp-size", "--dp-size", "--ep-size", "--pp-size")  # parallel sizes: >= 1 (SGLang refuses 0)
INT_FLAGS = SIZE_FLAGS + ("--chunked-prefill-size", "--context-length", "--cuda-graph-max-bs", "--max-prefill-tokens",
                          "--ep-num-redundant-experts", "--max-running-requests", "--speculative-num-draft-tokens")
INT_ENVS = ("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",)


def read_errors(flags, launch) -> list:
    """What stops the derivation before it starts: a size SGLang refuses (MC025), an integer no int() reads."""
    return size_notes(flags, SIZE_FLAGS, "SGLang") + unreadable_notes(flags, launch.env, INT_FLAGS, INT_ENVS)
ENV_NAMES = tuple(f.name for f in ENV_FIELDS)


class _Ctx:
    """The flags and env of one launch, with spans: small lookups the phase derivations share."""

    def __init__(self, launch, flags: Flags):
        self.launch, self.flags = launch, flags

    def span(self, flag: str):
        f = self.flags.get(flag)
        return (f.span,) if f else ()

    def said(self, flag: str, value) -> str:
        """`--tp-size 8` as written, or `--tp-size 1 (default)` for a flag the launch does not contain."""
        return f"{flag} {value}" if self.flags.get(flag) else f"{flag} {value} (default)"

    def int_flag(self, flag: str, default=None):
        text = self.flags.value(flag)
        return default if text is None or integer(text) is None else integer(text)

    def env_int(self, name: str, default=None):
        e = self.launch.env.get(name)
        value = integer(e.value) if e and e.value is not None else None
        return default if value is None else value

    def env_str(self, name: str) -> str | None:
        e = self.launch.env.get(name)
        return e.value if e else None

    def env_span(self, name: str):
        e = self.launch.env.get(name)
        return (e.span,) if e else ()


def derive(launch, ctx: LaunchContext, flags: Flags, out: Derivation) -> None:
    c = _Ctx(launch, flags)
    backend = flags.value("--moe-a2a-backend") or "none"
    if backend != "deepep":
        out.calls.append(OpCall("serve", "none", None, {}, why_none=f"--moe-a2a-backend {backend}: SGLang on Ascend "
                                "runs no sgl-kernel-npu DeepEP collective (moecfg models the deepep backend)",
                                quiet=not known_moe(flags.value("--model-path"), ctx)))
        return
    sizes = read_errors(flags, launch)
    if sizes:
        out.notes.extend(sizes)
        return
    if ctx.product not in ("A2", "A3"):
        out.notes.append(Note("MC042", f"{PRODUCT_UNKNOWN} (SGLang on Ascend, DeepEP): the HCCL buffer depends on "
                              "it; give `--product A3` or `product:` in .moecfg.yaml", launch.span))
        return
    model_text = flags.value("--model-path")
    dims = resolve_model(model_text, ctx)
    if dims is None:
        out.notes.append(Note("MC042", unresolved_reason(model_text, ctx), (c.span("--model-path") or (launch.span,))[0]))
        return
    base, src, why = _common(c, ctx, dims)
    phases = _phases(c)
    out.notes.extend(rules.launch_notes(c, ctx, phases, prefill_tokens))
    if "normal" in phases:
        out.calls.append(_normal_call(c, phases["normal"], base, src, why))
    if "low_latency" in phases:
        out.calls.append(_ll_call(c, phases["low_latency"], base, src, why))
    unknown = unknown_buffer_vars(c)
    for call in out.calls:
        if unknown:  # no verdict on a buffer size nobody knows, and no memory table built from a default
            call.unknown += ("hccl_buffer_size", *(f"env.{n}" for n in unknown))
            call.notes.append(Note("MC023", f"{' / '.join(unknown)}: the value is not known statically",
                                   c.env_span(unknown[0])[0], about=f"env.{unknown[0]}"))
        else:  # the per-rank HCCL memory table (npu_memory.py, MC954)
            call.notes.extend(npu_memory.budget(c, ctx, call, *parallel(c)))


def unknown_buffer_vars(c: _Ctx) -> list[str]:
    """The buffer variables the launch sets to a value moecfg cannot know (`export HCCL_BUFFSIZE=$BUF`)."""
    return [n for n in ("DEEPEP_HCCL_BUFFSIZE", "HCCL_BUFFSIZE") if n in c.launch.env and c.launch.env[n].value is None]


def _phases(c: _Ctx) -> dict:
    """{mode: role}: which DeepEP modes run and for which batches."""
    mode = c.flags.value("--deepep-mode") or "auto"
    disagg = c.flags.value("--disaggregation-mode") or "null"
    if mode == "normal":
        return {"normal": "serve" if disagg == "null" else disagg}
    if mode == "low_latency":
        return {"low_latency": "serve" if disagg == "null" else disagg}
    roles = {"prefill": {"normal": "prefill"}, "decode": {"low_latency": "decode"}}
    return roles.get(disagg, {"normal": "prefill", "low_latency": "decode"})


def parallel(c: _Ctx) -> tuple[int, int, int]:
    """(tp, dp, attention-TP ranks per DP group)."""
    tp, dp = c.int_flag("--tp-size", 1), c.int_flag("--dp-size", 1)
    dpa = c.flags.boolean("--enable-dp-attention") and dp > 1
    return tp, (dp if dpa else 1), (max(tp // dp, 1) if dpa else tp)


def _common(c: _Ctx, ctx: LaunchContext, dims) -> tuple[dict, dict, dict]:
    tp, dp, attn_tp = parallel(c)
    redundant = c.int_flag("--ep-num-redundant-experts", 0)
    env = {n: c.launch.env[n].value for n in ENV_NAMES if n in c.launch.env and c.launch.env[n].value is not None}
    args = {"product": ctx.product, "h": dims.hidden, "k": dims.topk, "ep_world_size": tp,
            "num_experts": dims.num_experts + redundant, "env": env}
    window, window_var, window_why = moe_ep_window(c)
    if window is not None:
        args["hccl_buffer_size"] = window
    model = c.span("--model-path")
    src = {"ep_world_size": c.span("--tp-size"), "h": model, "k": model,
           "num_experts": model + c.span("--ep-num-redundant-experts"),
           "hccl_buffer_size": c.env_span(window_var) if window_var else (),
           **{f"env.{n}": c.env_span(n) for n in env}}
    ep_note = f" (--ep-size {c.flags.value('--ep-size')} is overridden)" if c.flags.get("--ep-size") else ""
    why = {"product": f"{ctx.product} <- {ctx.product_source or 'settings'}",
           "ep_world_size": f"{tp} <- {c.said('--tp-size', tp)}: --moe-a2a-backend deepep sets ep_size = tp_size{ep_note} "
           f"({S} _handle_a2a_moe)",
           "h": f"{dims.hidden} <- {dims.how}", "k": f"{dims.topk} <- {dims.how}",
           "num_experts": f"{dims.num_experts} + {redundant} redundant "
                          f"({c.said('--ep-num-redundant-experts', redundant)}) <- {dims.how}",
           "hccl_buffer_size": window_why,
           "env": "the launch's environment (sgl-kernel-npu reads these variables)"}
    return args, src, why


def moe_ep_window(c: _Ctx) -> tuple[int | None, str | None, str]:
    """(MB, the variable it came from or None for the default, why): the hccl_buffer_size option of the "moe_ep"
    group DeepEP runs on (module docstring). None when SGLang's int() would refuse the text (moecfg says nothing)."""
    var = next((n for n in ("DEEPEP_HCCL_BUFFSIZE", "HCCL_BUFFSIZE") if c.env_str(n)), None)  # `or`: "" is unset
    text = c.env_str(var) if var else "200"
    value = integer(text) if text.strip().isdigit() else None
    why = (f"{value if value is not None else text} <- int(DEEPEP_HCCL_BUFFSIZE or HCCL_BUFFSIZE or 200) = "
           f"{var or 'the default 200'}: DeepEP runs on SGLang's standalone NPU group \"moe_ep\" (layer.py "
           "_get_deepep_comm_group, sglang PR #29030) whose name contains \"moe\", so get_torch_distributed_pg_options "
           "gives it this hccl_buffer_size (parallel_state.py @0005973a, sglang PR #17804)")
    return value, var, why


def _int8_dispatch(c: _Ctx) -> tuple[bool, str]:
    """(int8 dispatch, why): SGLang's dispatcher output dtype on NPU (U get_deepep_output_dtype)."""
    dtype = c.flags.value("--deepep-dispatcher-output-dtype") or "auto"
    if dtype != "auto":
        return dtype in ("fp8", "int8"), f"--deepep-dispatcher-output-dtype {dtype}"
    if (c.env_str("SGLANG_DEEPEP_BF16_DISPATCH") or "").lower() in ("1", "true", "yes"):
        return False, "SGLANG_DEEPEP_BF16_DISPATCH (deprecated)"
    quant = c.flags.value("--quantization")
    extra = f"; --quantization {quant}: its quant config may name an int8 dispatch moecfg cannot read (assumed " \
            "BF16, the larger buffer)" if quant else ""
    return False, f"auto: BF16 on NPU ({U} get_deepep_output_dtype){extra}"


def prefill_tokens(c: _Ctx) -> tuple[int | None, str]:
    """Tokens one rank dispatches for the largest prefill batch, or None when the launch does not bound it.

    With chunking the batch holds at most --chunked-prefill-size new tokens (divided by dp with DP attention, S
    `_handle_data_parallelism`); with chunking off at most max(--max-prefill-tokens (16384), --context-length) (the
    flag's help: "the real bound will be the maximum of this value and the model's maximum context length")."""
    tp, dp, attn_tp = parallel(c)
    chunk = c.int_flag("--chunked-prefill-size")
    mpt, ctx_len = c.int_flag("--max-prefill-tokens"), c.int_flag("--context-length")
    if chunk is not None and chunk > 0:
        per_dp = chunk // dp
        batch, text = per_dp, f"--chunked-prefill-size {chunk}" + (
            f" // dp {dp} = {per_dp} ({S} _handle_data_parallelism)" if dp > 1 else "")
        if mpt is not None and mpt < per_dp:
            batch, text = mpt, f"--max-prefill-tokens {mpt} (< the chunk {per_dp})"
    elif ctx_len is not None:
        batch = max(mpt if mpt is not None else 16384, ctx_len)
        text = (f"--chunked-prefill-size {chunk} (chunking off): max(--max-prefill-tokens "
                f"{mpt if mpt is not None else '16384 (default)'}, --context-length {ctx_len}) = {batch}")
    else:
        return None, "--chunked-prefill-size " + ("not given" if chunk is None else f"{chunk} (chunking off)") + \
            " and no --context-length"
    tokens = -(-batch // attn_tp)
    return tokens, f"{text} per DP group, over {attn_tp} attention-TP ranks = {tokens}"


def prefill_spans(c: _Ctx) -> tuple:
    return sum((c.span(f) for f in ("--chunked-prefill-size", "--max-prefill-tokens", "--context-length",
                                    "--dp-size", "--tp-size")), ())


def _normal_call(c: _Ctx, role: str, base: dict, src: dict, why: dict) -> OpCall:
    args, sources, derivation = dict(base, op="sgl_deepep_normal"), dict(src), dict(why)
    tokens, text = decode_tokens(c) if role == "decode" else prefill_tokens(c)
    if tokens is None and role == "decode":
        tokens, text = 1, text + ": assumed 1"
    if tokens is None:
        e = base["env"]
        r, t = e.get("DEEPEP_NORMAL_LONG_SEQ_ROUND"), e.get("DEEPEP_NORMAL_LONG_SEQ_PER_ROUND_TOKENS")
        default = sgl_formulas.MAX_TOKENS_PER_ROUND  # 1 round x 8192 tokens (deep_ep.cpp L72-73)
        tokens = integer(r) * integer(t) if integer(r) is not None and integer(t) is not None else default
        text += f": assumed the DeepEP normal capacity {tokens} (ROUND x PER_ROUND_TOKENS), see MC962"
    args["bs"] = tokens
    sources["bs"] = prefill_spans(c)
    derivation["bs"] = f"{tokens} <- {text}"
    int8, qwhy = _int8_dispatch(c)
    args["quant_mode"] = "int8" if int8 else "bf16"
    sources["quant_mode"] = c.span("--deepep-dispatcher-output-dtype")
    derivation["quant_mode"] = f"{args['quant_mode']} <- {qwhy}; SGLang sets DEEP_NORMAL_MODE_USE_INT8_QUANT to match " \
                               f"({D} set_deepep_dispatcher_dtype)"
    return OpCall(role, "ascend", "sgl_deepep_normal", args, derivation, sources)


def decode_tokens(c: _Ctx) -> tuple[int | None, str]:
    """Tokens one rank dispatches in a decode step (cuda-graph batch per DP rank x draft tokens), or None."""
    tp, dp, attn_tp = parallel(c)
    graph = c.flags.get("--cuda-graph-bs")
    sizes = [integer(v) for v in (graph.values if graph else ()) if v and v.isdigit() and integer(v) is not None]
    if sizes:
        reqs, text = max(sizes), f"max(--cuda-graph-bs) = {max(sizes)}"
    elif c.int_flag("--cuda-graph-max-bs"):
        reqs, text = c.int_flag("--cuda-graph-max-bs"), f"--cuda-graph-max-bs {c.int_flag('--cuda-graph-max-bs')}"
    elif c.int_flag("--max-running-requests"):
        mrr = c.int_flag("--max-running-requests")
        reqs, text = mrr // dp, f"--max-running-requests {mrr} // dp {dp}"  # floor, as gpu_rules._running
    else:
        return None, "no --cuda-graph-bs, --cuda-graph-max-bs or --max-running-requests"
    draft = c.int_flag("--speculative-num-draft-tokens", 1) if c.flags.get("--speculative-algorithm") else 1
    tokens = -(-reqs * draft // attn_tp)
    return tokens, f"{text} requests per DP rank x {draft} tokens each, over {attn_tp} attention-TP ranks = {tokens}"


def _ll_call(c: _Ctx, role: str, base: dict, src: dict, why: dict) -> OpCall:
    args, sources, derivation = dict(base, op="sgl_deepep_low_latency"), dict(src), dict(why)
    t = c.env_int("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK", DEFAULT_T)
    args["num_max_dispatch_tokens_per_rank"] = t
    sources["num_max_dispatch_tokens_per_rank"] = c.env_span("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK")
    derivation["num_max_dispatch_tokens_per_rank"] = f"{t} <- SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK " \
        f"(default {DEFAULT_T}); global_bs = T x {base['ep_world_size']} ranks"
    if role == "serve":  # --deepep-mode low_latency: prefill chunks go through the low-latency dispatch too
        tokens, text = prefill_tokens(c)
        sources["bs"] = prefill_spans(c)
    else:
        tokens, text = decode_tokens(c)
        sources["bs"] = c.span("--cuda-graph-bs") + c.span("--cuda-graph-max-bs") + c.span("--max-running-requests")
    args["bs"] = tokens if tokens is not None else t
    derivation["bs"] = f"{args['bs']} <- {text}" + ("" if tokens is not None else f": assumed T = {t}")
    int8, qwhy = _int8_dispatch(c)
    args["use_fp8"] = int8
    sources["use_fp8"] = c.span("--deepep-dispatcher-output-dtype")
    derivation["use_fp8"] = f"{int8} <- {qwhy}; sgl-kernel-npu maps use_fp8 to quant_mode int8 (buffer.py L667-674)"
    return OpCall(role, "ascend", "sgl_deepep_low_latency", args, derivation, sources)
