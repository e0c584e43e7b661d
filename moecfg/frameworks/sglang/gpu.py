"""SGLang on NVIDIA GPUs with `--moe-a2a-backend deepep` / `deepep_v2`: the DeepEP buffer one rank builds.

Read at SGLang main 2026-08 (S = python/sglang/srt/server_args.py @001067f, D = layers/moe/token_dispatcher/deepep.py
@003a81b, U = layers/moe/utils.py):
- EP size: `--moe-a2a-backend deepep` sets ep_size = tp_size (S `_handle_a2a_moe`).
- one Buffer per process (D `DeepEPBuffer.get_deepep_buffer`, a class-level singleton) built for --deepep-mode:
  normal -> NVL / RDMA = max over the (--deepep-config or DeepEP default) dispatch and combine configs of the normal
  hints with hidden x params_bytes; low_latency -> RDMA = the low-latency hint for T; auto (the default) -> both in
  one Buffer; num_qps_per_rank = num_sms | experts / ranks | max of both.
- T = SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 128, environ.py), asserted <= 1024 (D
  `_DeepEPDispatcherImplBase.__init__`).
- params_bytes: 1 for FP8 / NVFP4 dispatch, else 2 (D `set_deepep_dispatcher_dtype`); the dtype (U
  `get_deepep_output_dtype`): --deepep-dispatcher-output-dtype, else SGLANG_DEEPEP_BF16_DISPATCH, else BF16 with the
  cutlass / flashinfer_cutedsl MoE runners, else FP8 ("the default for most models like DeepSeek-V3").
- num_sms: --deepep-config `normal_dispatch.num_sms` (asserted equal to the combine's), else Buffer.num_sms = 20.
- NVSHMEM_QP_DEPTH: SGLang PR #34923 (merged 2026-08-15) sets max(env, 1024, 2 x (T + 1)) before a low-latency Buffer
  is built; a launch pinned to a release (image tag or framework_versions.sglang) keeps the environment's value
  (DeepEP default 1024): which release first ships #34923 is not known to moecfg.
- deepep_v2: ElasticBuffer sized by its own hint (num_max_tokens_per_rank = T, hidden, num_topk, use_fp8_dispatch,
  allow_hybrid_mode = SGLANG_DEEPEP_ALLOW_HYBRID_MODE).
"""
from __future__ import annotations


from moecfg.backends.deepep.arguments import sglang_buffer_arguments
from moecfg.backends.deepep.ops.v1.config_forms import KEYWORDS, deepep_config_arguments
from moecfg.frameworks import Derivation, LaunchContext, Note, OpCall, budget, image_version
from moecfg.frameworks.flags import FlagSpec
from moecfg.frameworks.models import known_moe, resolve_model, unresolved_reason
from moecfg.frameworks.values import JsonValueError, clipped, finite, integer, load_json
from moecfg.frameworks.sglang import ascend, gpu_rules, releases
from moecfg.frameworks.vllm.calls import add_device, deepep_buffers

S, D, U = "sglang@001067f server_args.py", "sglang@003a81b token_dispatcher/deepep.py", "sglang layers/moe/utils.py"
DEFAULT_T = ascend.DEFAULT_T
FLAGS = ascend.FLAGS + (FlagSpec("--deepep-config"),
                        FlagSpec("--moe-runner-backend"), FlagSpec("--nnodes"))
_BF16_RUNNERS = ("cutlass", "flashinfer_cutedsl")


class Ctx(ascend._Ctx):
    """ascend's flag/env lookups plus the launch's image and settings (for --deepep-config paths)."""

    def __init__(self, launch, flags, ctx):
        super().__init__(launch, flags)
        self.ctx = ctx


# What an SGLang user sets for each DeepEP Buffer field (named beside the field in the op's findings): SGLang sizes
# the buffers itself from --deepep-config and the token cap (DeepEPBuffer.get_deepep_buffer).
SGLANG_KNOBS = {
    "num_nvl_bytes": "SGLang sizes it from --deepep-config: normal_dispatch / normal_combine num_sms and chunk sizes",
    "num_rdma_bytes": "SGLang sizes it from --deepep-config and SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
    "num_max_dispatch_tokens_per_rank": "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
    "num_sms": "--deepep-config normal_dispatch.num_sms",
}


def derive(launch, ctx: LaunchContext, out: Derivation, flags, pick=None) -> None:
    """`flags`: the launch's flags as the package read them with the release's table (passed in, not re-read:
    the package imports this module, not the other way round)."""
    c = Ctx(launch, flags, ctx)
    c.pick = pick
    written = c.flags.get("--moe-a2a-backend")
    if written is not None and written.value is None:  # `--moe-a2a-backend $X`: not SGLang's default "none"
        _unknown(c, out.notes, ("--moe-a2a-backend",))
        return
    backend = c.flags.value("--moe-a2a-backend") or "none"
    role = {"prefill": "prefill", "decode": "decode"}.get(c.flags.value("--disaggregation-mode") or "", "serve")
    if backend not in ("deepep", "deepep_v2"):
        out.calls.append(OpCall(role, "none", None, {}, why_none=f"--moe-a2a-backend {backend}: no DeepEP buffer "
                                "(moecfg derives the deepep and deepep_v2 backends)",
                                quiet=not known_moe(c.flags.value("--model-path"), ctx)))
        return
    if _mega_moe(c, role, out):
        return
    sizes = ascend.read_errors(c.flags, launch)
    if sizes:
        out.notes.extend(sizes)
        return
    dims = resolve_model(c.flags.value("--model-path"), ctx)
    if dims is None:
        out.notes.append(Note("MC042", unresolved_reason(c.flags.value("--model-path"), ctx),
                              (c.span("--model-path") or (launch.span,))[0]))
        return
    call = (_v1 if backend == "deepep" else _v2)(c, dims, role, out.notes)
    if call is None:
        return
    if not _unknown(c, out.notes, gpu_rules.BATCH_FLAGS):
        out.notes.extend(gpu_rules.launch_notes(c, call))
    out.notes.extend(_budget(c, call))
    out.calls.append(call)


def _mega_moe(c: Ctx, role: str, out: Derivation) -> bool:
    """SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE=1: SGLang runs the megamoe backend instead (releases.py): no DeepEP Buffer,
    so no low-latency cap (a T of 0 beside it is not a cap)."""
    value = (c.env_str(releases.MEGA_MOE) or "").lower()
    if value not in ("1", "true", "yes") or not releases.reads_mega_moe_env(getattr(c, "pick", None)):
        return False
    out.calls.append(OpCall(role, "none", None, {}, why_none=f"{releases.MEGA_MOE}={value}: SGLang switches "
                            "--moe-a2a-backend to megamoe (DeepGEMM MegaMoE; sglang==0.5.17 sglang/srt/arg_groups/"
                            "overrides.py:2465-2470): no DeepEP Buffer, no low-latency token cap"))
    return True


def _unknown(c: Ctx, notes: list, names) -> bool:
    """MC023 for each flag whose value is not known statically (`--tp $TP` with TP unset): nothing is guessed."""
    found = [c.flags.get(n) for n in names if c.flags.get(n) is not None and c.flags.get(n).value is None]
    for f in found:
        notes.append(Note("MC023", f"{f.name}: the value is not known statically; what depends on it is not derived "
                          "or checked", f.span))
    return bool(found)


def dtype(c: Ctx) -> tuple[str, str]:
    """(dispatch output dtype, why): U get_deepep_output_dtype on CUDA."""
    flag = c.flags.value("--deepep-dispatcher-output-dtype") or "auto"
    if flag != "auto":
        return flag, f"--deepep-dispatcher-output-dtype {flag}"
    if (c.env_str("SGLANG_DEEPEP_BF16_DISPATCH") or "").lower() in ("1", "true", "yes"):
        return "bf16", "SGLANG_DEEPEP_BF16_DISPATCH (deprecated)"
    runner = c.flags.value("--moe-runner-backend") or "auto"
    if runner in _BF16_RUNNERS:
        return "bf16", f"--moe-runner-backend {runner} quantizes inside the runner ({U} get_deepep_output_dtype)"
    return "fp8", f"auto: FP8, SGLang's default on CUDA ({U} get_deepep_output_dtype: 'the default for most models " \
                  "like DeepSeek-V3'; a quant config naming another dtype is not read by moecfg)"


def _base(c: Ctx, dims) -> tuple[dict, dict, dict]:
    tp = c.int_flag("--tp-size", 1)
    redundant = c.int_flag("--ep-num-redundant-experts", 0)
    model = c.span("--model-path")
    args = {"num_ranks": tp, "num_experts": dims.num_experts + redundant}
    src = {"num_ranks": c.span("--tp-size"), "num_experts": model + c.span("--ep-num-redundant-experts"),
           "hidden": model, "hidden_dim": model, "num_topk": model}
    ep = f" (--ep-size {c.flags.value('--ep-size')} is overridden)" if c.flags.get("--ep-size") else ""
    why = {"num_ranks": f"{tp} <- {c.said('--tp-size', tp)}: --moe-a2a-backend deepep sets ep_size = tp_size{ep} ({S} "
                        "_handle_a2a_moe)",
           "num_experts": f"{args['num_experts']} <- {dims.num_experts} + {redundant} redundant "
                          f"({c.said('--ep-num-redundant-experts', redundant)}) <- {dims.how}",
           "hidden": f"{dims.hidden} <- {dims.how}", "num_topk": f"{dims.topk} <- {dims.how}"}
    return args, src, why


def token_cap(c: Ctx, v2: bool = False) -> tuple[int, tuple, str]:
    """(T, span, why): deepep_v2 reads its own variable from SGLang 0.5.19 (releases.py); both default to 128."""
    var = releases.v2_cap_variable(getattr(c, "pick", None)) if v2 else releases.V1_CAP
    c.cap_var = var
    t = c.env_int(var, DEFAULT_T)
    said = var + ("" if c.env_span(var) else f" (default {DEFAULT_T}, environ.py)")
    return t, c.env_span(var), f"{t} <- {said}"


def deepep_config(c: Ctx, notes: list) -> tuple[dict | None, dict | None, str]:
    """(normal_dispatch, normal_combine, how) from --deepep-config: inline JSON or a JSON file (SGLang
    load_json_config); (None, None, why) when absent or unreadable."""
    flag = c.flags.get("--deepep-config")
    if flag is None:
        return None, None, "DeepEP's default configs for the rank count (Buffer.get_dispatch_config)"
    text = flag.value
    if text is not None and not text.lstrip().startswith("{"):
        from moecfg.sources.contained import read_inside, tree_roots
        from moecfg.sources.files import Unreadable

        roots = tree_roots(c.ctx.settings_dir)
        try:  # inside the checked tree or the settings file's folder only: never a runner's file
            text = read_inside(text.removeprefix("@"), c.ctx.settings_dir or roots[0], roots).decode("utf-8")
        except (Unreadable, UnicodeDecodeError) as exc:
            why = exc if isinstance(exc, Unreadable) else "not UTF-8 text"
            notes.append(Note("MC023", f"--deepep-config {clipped(flag.value, 120)}: the file is not read ({why}); "
                              "DeepEP's default configs are assumed", flag.span))
            return None, None, "DeepEP's default configs (the --deepep-config file is not read)"
    try:
        data = load_json(text) if text is not None else None
    except JsonValueError as exc:
        notes.append(Note("MC021", f"--deepep-config is not valid JSON: {exc}; SGLang stops at start-up", flag.span))
        return None, None, "not valid JSON"
    if not isinstance(data, dict) or not all(isinstance(data.get(k), dict) for k in ("normal_dispatch",
                                                                                      "normal_combine")):
        notes.append(Note("MC021", "--deepep-config must be a JSON object with `normal_dispatch` and `normal_combine` "
                          "objects (SGLang reads both: KeyError otherwise)", flag.span))
        return None, None, "unreadable"
    refused = [(part, k, v) for part in ("normal_dispatch", "normal_combine") for k, v in data[part].items()
               if k in KEYWORDS and (isinstance(v, bool) or not isinstance(v, int) or integer(v) is None)]
    if refused:  # `1e400`, `1.5`, 20 digits: DeepEP's Config(int, ...) refuses them (pybind11 TypeError)
        part, key, value = refused[0]
        notes.append(Note("MC025", f"--deepep-config {part}.{clipped(str(key), 40)} = {clipped(str(value), 40)}: "
                          "SGLang passes it to DeepEP's Config(num_sms, ...), which takes 64-bit integers only and "
                          "refuses it at start-up; write an integer", flag.span))
        return None, None, "refused (a value that is not a 64-bit integer)"
    return data["normal_dispatch"], data["normal_combine"], f"--deepep-config {clipped(flag.value, 60)}"


def _qp_depth(c: Ctx, t: int, low_latency: bool) -> tuple[str | None, str]:
    env = c.env_str("NVSHMEM_QP_DEPTH")
    pinned = image_version(c.launch.image) or c.ctx.version_for("sglang")
    if not low_latency or pinned:
        why = "the launch's environment" if env else "DeepEP's default 1024"
        return env, f"{env or 1024} <- {why}" + (f" (SGLang {pinned} pinned: a release before SGLang PR #34923 "
                                                "is assumed, which does not raise it)" if pinned and low_latency else "")
    current = integer(env) if env is not None else 0
    if current is None:
        return env, f"{env} <- the launch's environment (not an integer)"
    value = max(current, 1024, 2 * (t + 1))
    return str(value), f"{value} <- max(NVSHMEM_QP_DEPTH {env or 'unset'}, 1024, 2 x (T {t} + 1)): SGLang PR #34923 " \
                       "raises it before building a low-latency Buffer (SGLang main; pin the image tag of older releases)"


def _v1(c: Ctx, dims, role: str, notes: list) -> OpCall | None:
    args, src, why = _base(c, dims)
    mode = c.flags.value("--deepep-mode") or "auto"
    if mode not in ("auto", "normal", "low_latency"):
        notes.append(Note("MC023", f"--deepep-mode {mode}: SGLang accepts auto, normal or low_latency", c.span(
            "--deepep-mode")[0] if c.span("--deepep-mode") else c.launch.span))
        return None
    t, t_src, t_why = token_cap(c)
    kind, kwhy = dtype(c)
    params, pwhy = releases.params_bytes(getattr(c, "pick", None), kind)
    dispatch, combine, cwhy = deepep_config(c, notes)
    sms = (dispatch or {}).get("num_sms", 20)
    d4 = _four(dispatch)
    c4 = _four(combine)
    try:
        bufs = sglang_buffer_arguments(mode, args["num_ranks"], dims.hidden, args["num_experts"], params, t, sms,
                                       d4, c4)
    except (ValueError, ZeroDivisionError) as exc:
        notes.append(Note("MC042", f"{exc}: the DeepEP Buffer SGLang builds is not derived", c.launch.span))
        return None
    args |= {"mode": mode, "hidden": dims.hidden, "num_topk": dims.topk, "dtype": "fp8" if params == 1 else "bf16",
             "num_sms": sms, **{k: bufs[k] for k in ("num_nvl_bytes", "num_rdma_bytes", "num_qps_per_rank")}}
    if dispatch is not None:
        args |= {"dispatch_config": dispatch, "combine_config": combine}
    if mode != "normal":
        args["num_max_dispatch_tokens_per_rank"] = t
    depth, dwhy = _qp_depth(c, t, mode != "normal")
    if depth is not None:
        args["env"] = {"NVSHMEM_QP_DEPTH": depth}
    qp_note = _qp_depth_unverified(c, t, t_src, depth) if mode == "low_latency" else None
    hint = f"hidden {dims.hidden} x params_bytes {params}"
    why |= {"mode": f"{mode} <- --deepep-mode {mode}" + ("" if c.flags.get("--deepep-mode") else " (default): one "
                                                         "Buffer for the normal and the low-latency kernels"),
            "dtype": f"{args['dtype']} <- the buffer sizes: SGLang sizes them with params_bytes {params} ({pwhy}), "
                     f"{'1 byte' if params == 1 else '2 bytes'} per element whatever it dispatches (here {kind}: "
                     f"{kwhy})",
            "num_sms": f"{sms} <- " + ("--deepep-config normal_dispatch.num_sms" if dispatch else
                                       "Buffer.num_sms (20)"),
            "num_nvl_bytes": f"{bufs['num_nvl_bytes']} <- " + (f"max normal NVL hint over {cwhy}, {hint} ({D} "
                                                               "get_deepep_buffer)" if mode != "low_latency" else
                                                               "0 (low_latency mode)"),
            "num_rdma_bytes": f"{bufs['num_rdma_bytes']} <- " + {
                "normal": f"max normal RDMA hint over {cwhy}, {hint}",
                "low_latency": f"get_low_latency_rdma_size_hint(T {t}, {dims.hidden}, {args['num_ranks']} ranks, "
                               f"{args['num_experts']} experts)",
                "auto": f"max(normal RDMA hint ({hint}), low-latency hint for T {t})"}[mode],
            "num_qps_per_rank": f"{bufs['num_qps_per_rank']} <- " + {
                "normal": "num_sms", "low_latency": "experts / ranks", "auto": "max(num_sms, experts / ranks)"}[mode],
            "num_max_dispatch_tokens_per_rank": t_why, "env.NVSHMEM_QP_DEPTH": dwhy}
    src |= {"mode": c.span("--deepep-mode"), "num_max_dispatch_tokens_per_rank": t_src,
            "num_rdma_bytes": t_src, "dtype": c.span("--deepep-dispatcher-output-dtype") + c.span(
                "--moe-runner-backend"), "num_sms": c.span("--deepep-config"),
            "dispatch_config": c.span("--deepep-config"), "combine_config": c.span("--deepep-config"),
            "num_nvl_bytes": c.span("--deepep-config"), "env.NVSHMEM_QP_DEPTH": c.env_span("NVSHMEM_QP_DEPTH") or t_src}
    call = OpCall(role, "deepep", None, args, why, src, notes=[qp_note] if qp_note else [], knobs=SGLANG_KNOBS)
    if params == 1 and not _version_known(c):  # main's FP8 sizing stands in for a version the launch does not give
        call.holds_if["MC644"] = ("the launch runs SGLang main after 0.5.23 (no version given: every release 0.5.1 .. "
                                  "0.5.23 sizes these buffers with 2 bytes per element, enough for the BF16 combine)")
    return call


def _version_known(c: Ctx) -> bool:
    """The launch or the settings name the SGLang version (an image tag, framework_versions), or a development
    build; not a launch read as main because it names none (MC040)."""
    pick = getattr(c, "pick", None)
    if pick is not None and pick.known:
        return True
    from moecfg.frameworks.flag_tables import _DEV_TAGS

    tag = (c.launch.image or "").rsplit("/", 1)[-1].partition(":")[2].lower()
    return tag.startswith(_DEV_TAGS)


def _qp_depth_unverified(c: Ctx, t: int, t_src: tuple, depth: str | None) -> Note | None:
    """MC641 as a warning on a pinned release (which does not raise the depth): DeepEP asserts the depth only from
    d981409 (2025-09-25), and SGLang's images build DeepEP 9af0e0d (2025-09-15) or a GB200 fork
    (sgl-project/sglang@004740a docker/Dockerfile:9-10; the CUDA 13.1.1 Dockerfile keeps both): a launch failure
    is not certain, the DeepEP contract (T <= depth / 2 - 1) is still broken."""
    have = integer(depth) if depth is not None else 1024
    need = 2 * (t + 1)
    if have is None or have >= need:
        return None
    said = f"NVSHMEM_QP_DEPTH {depth}" if depth is not None else "NVSHMEM_QP_DEPTH unset (DeepEP's default 1024)"
    return Note("MC641", f"{releases.V1_CAP} = {t} needs NVSHMEM_QP_DEPTH >= 2 * ({t} + 1) = {need}; the launch runs "
                f"with {said} and a pinned SGLang release does not raise it. DeepEP builds at or after d981409 "
                f"(2025-09-25) assert this at the first low-latency dispatch; SGLang's images build DeepEP 9af0e0d or "
                f"a GB200 fork from before that check, so whether this image's DeepEP stops is not known. Set "
                f"NVSHMEM_QP_DEPTH: {need} in the environment or lower {releases.V1_CAP} to {have // 2 - 1}",
                (t_src or (c.launch.span,))[0], severity="warning", covers=("MC641",))


def _four(cfg: dict | None):
    """SGLang's Config keyword mapping -> moecfg's [nvl_send, nvl_recv, rdma_send, rdma_recv] (None: default)."""
    five = deepep_config_arguments(cfg) if cfg is not None else None
    return list(five[1:]) if five else None


def _v2(c: Ctx, dims, role: str, notes: list) -> OpCall | None:
    args, src, why = _base(c, dims)
    t, t_src, t_why = token_cap(c, v2=True)
    kind, kwhy = dtype(c)
    hybrid = (c.env_str("SGLANG_DEEPEP_ALLOW_HYBRID_MODE") or "1").lower() not in ("0", "false", "no")
    args |= {"api": "v2", "num_max_tokens_per_rank": t, "hidden": dims.hidden, "num_topk": dims.topk,
             "use_fp8_dispatch": kind == "fp8", "allow_hybrid_mode": hybrid}
    why |= {"api": "v2 <- --moe-a2a-backend deepep_v2: ElasticBuffer.get_buffer_size_hint sizes the buffer",
            "num_max_tokens_per_rank": t_why, "use_fp8_dispatch": f"{kind == 'fp8'} <- {kind}: {kwhy}",
            "allow_hybrid_mode": f"{hybrid} <- SGLANG_DEEPEP_ALLOW_HYBRID_MODE"
                                 + ("" if c.env_span("SGLANG_DEEPEP_ALLOW_HYBRID_MODE") else " (unset: ElasticBuffer's "
                                                                                             "default True assumed)")}
    src |= {"num_max_tokens_per_rank": t_src, "use_fp8_dispatch": c.span("--deepep-dispatcher-output-dtype"),
            "allow_hybrid_mode": c.env_span("SGLANG_DEEPEP_ALLOW_HYBRID_MODE")}
    return OpCall(role, "deepep", None, args, why, src, knobs=SGLANG_KNOBS)


def _budget(c: Ctx, call: OpCall) -> list[Note]:
    device, how = add_device(c.launch, c.ctx, call)
    if call.arguments.get("api") == "v2":
        from moecfg.backends.deepep.arguments import elastic_buffer_bytes

        a = call.arguments
        size = elastic_buffer_bytes(a["num_ranks"], a["num_max_tokens_per_rank"], a["hidden"], a["num_topk"],
                                    a["use_fp8_dispatch"], allow_hybrid_mode=a["allow_hybrid_mode"])
        bufs = [("deepep_v2_elastic", size, "ElasticBuffer.get_buffer_size_hint")]
    else:
        bufs = deepep_buffers(call.arguments, call.derivation["num_nvl_bytes"].split(" <- ")[1],
                              call.derivation["num_rdma_bytes"].split(" <- ")[1])
    frac_flag = c.flags.get("--mem-fraction-static")
    fraction = finite(frac_flag.value) if frac_flag and frac_flag.value is not None else None  # nan, inf: unknown
    text = f"--mem-fraction-static {frac_flag.value}" if frac_flag else \
        "--mem-fraction-static not given: SGLang picks it from the GPU memory at start-up (not known statically)"
    table = budget.table(bufs, device, how, c.ctx.device_memory_gb, fraction, text)
    call.derived["memory_budget"] = table
    span = frac_flag.span if frac_flag else c.launch.span
    return budget.over_headroom(table, "--mem-fraction-static", span,
                                "lower SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK or use --deepep-mode low_latency "
                                "/ normal (one kernel family, smaller Buffer)")
