"""The DeepEP Buffer one rtp-llm rank builds (releases.py has every line read), as a `kind: deepep` document, and
rtp-llm's own start-up checks on the same options. Options come from the command line, else their variables."""
from __future__ import annotations

from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.frameworks import Note, OpCall
from moecfg.frameworks.engine_flags import Knobs
from moecfg.frameworks.models import known_moe, resolve_model, unresolved_reason
from moecfg.frameworks.rtp_llm import rules
from moecfg.frameworks.rtp_llm.releases import ACCL, SETUP, WRAPPER
from moecfg.frameworks.vllm.calls import add_device
from moecfg.frameworks.values import integer

KNOBS = {
    "num_max_dispatch_tokens_per_rank": "--concurrency_limit / CONCURRENCY_LIMIT (over --tp_size, rounded up)",
    "num_rdma_bytes": "rtp-llm sizes it from --concurrency_limit (get_low_latency_rdma_size_hint)",
    "num_ranks": "--tp_size x --dp_size (TP_SIZE / DP_SIZE)",
    "num_experts": "the model's experts + --redundant_expert (REDUNDANT_EXPERT)",
    "num_qps_per_rank": "--deep_ep_num_sm (DEEP_EP_NUM_SM) // 2",
}
_SWITCHES = ("--use_deepep_moe", "--use_deepep_internode", "--use_deepep_low_latency", "--use_mori_ep")
_TRUE, _FALSE = ("yes", "true", "t", "1", "on"), ("no", "false", "f", "0", "off")


def boolean(k: Knobs, name: str) -> bool | None:
    """str2bool (server_args/util.py:6-15) of the option as given; None when not given or not known (a text it
    refuses stops argparse: kept with the unreadable values)."""
    text = k.text(name) if k.given(name) else None
    low = (text or "").lower()
    if text is not None and low not in _TRUE + _FALSE and (name, k.span(name)[0], text) not in k.unreadable:
        k.unreadable.append((name, k.span(name)[0], text))
    return True if low in _TRUE else False if low in _FALSE else None


def derive(launch, ctx, k: Knobs, out) -> None:
    bad = k.refused(("--tp_size", "--dp_size", "--concurrency_limit", "--local_world_size"), "rtp-llm")
    if bad:
        out.notes.extend(bad)
        return
    tp, dp, ep_given = k.int("--tp_size", 1), k.int("--dp_size", 1), k.int("--ep_size", 0)
    if k.unknown or k.unreadable or None in (tp, dp, ep_given):
        return _unknown(k, out.notes)
    ep, bad = _ep_size(k, tp, dp, ep_given)
    if bad:
        out.notes.append(bad)
        return
    role = (k.text("--role_type") or "PDFUSION").upper()
    modes, why = _modes(k, tp, dp, ep, role)
    if k.unknown or k.unreadable:
        return _unknown(k, out.notes)
    phase = {"PREFILL": "prefill", "DECODE": "decode"}.get(role, "serve")
    model = k.text("--checkpoint_path")
    if modes is None:
        out.calls.append(OpCall(phase, "none", None, {}, why_none=why, quiet=not known_moe(model, ctx)))
        return
    if isinstance(modes, str):  # not known statically, or a buffer moecfg does not derive
        code = "MC042" if why == "not derived" else "MC023"
        out.notes.append(Note(code, modes, (k.span("--local_world_size") or (launch.span,))[0]))
        return
    if k.unknown:
        return _unknown(k, out.notes)
    dims = resolve_model(model, ctx)
    if dims is None:
        out.notes.append(Note("MC042", unresolved_reason(model, ctx), (k.span("--checkpoint_path") or
                                                                       (launch.span,))[0]))
        return
    if k.unknown or k.unreadable:
        return _unknown(k, out.notes)
    low_latency, internode = modes
    call = _low_latency(k, dims, tp, ep, why) if low_latency else _normal(k, dims, ep, internode, why)
    if call is not None:
        call.role = phase
        add_device(launch, ctx, call)  # the GPU model, when known: the deepep kind's device-memory rules run
        out.calls.append(call)
    else:
        _unknown(k, out.notes)


def _unknown(k: Knobs, notes: list) -> None:
    notes.extend(k.unknown_notes("rtp-llm", "the DeepEP Buffer rtp-llm builds from it"))


def _ep_size(k: Knobs, tp: int, dp: int, ep: int) -> tuple[int, Note | None]:
    """server_config_setup.py:274-293: 0 -> tp x dp; 1 = pure TP (dp must be 1); anything else must be tp x dp."""
    span = (k.span("--ep_size") or k.span("--dp_size") or (k.launch.span,))[0]
    if ep == 0:
        return tp * dp, None
    if ep == 1 and dp != 1:
        return 1, Note(rules.EP_SIZE.code, f"{k.said('--ep_size', 1)} (pure TP) with {k.said('--dp_size', dp)}: "
                       f"rtp-llm asserts dp_size == 1 in pure TP mode ({SETUP}:277-283); drop --ep_size (EP = "
                       f"tp x dp = {tp * dp}) or set --dp_size 1", span)
    if ep not in (1, tp * dp):
        return ep, Note(rules.EP_SIZE.code, f"{k.said('--ep_size', ep)} is neither 1 nor --tp_size x --dp_size = "
                        f"{tp} x {dp} = {tp * dp}: rtp-llm asserts it at start-up ({SETUP}:290-293); drop --ep_size "
                        "(0 derives tp x dp)", span)
    return ep, None


def _modes(k: Knobs, tp: int, dp: int, ep: int, role: str):
    """((low_latency, internode) | None when no DeepEP Buffer | a text when not known, why): auto_configure_deepep."""
    moe, ll = boolean(k, "--use_deepep_moe"), boolean(k, "--use_deepep_low_latency")
    single = ep == 1
    pure_tp = tp > 1 and dp == 1 and ep == tp
    all_gather = boolean(k, "--use_all_gather")
    all_gather = True if all_gather is None and not k.given("--use_all_gather") else all_gather
    if all_gather and not ll and (single or not moe) and (single or pure_tp):
        return None, (f"{'one GPU' if single else f'pure TP (--tp_size {tp}, --dp_size 1)'}: rtp-llm keeps the "
                      f"all-gather MoE path (--use_all_gather, {SETUP}:102-115); no DeepEP Buffer is built")
    if all(not k.given(s) for s in _SWITCHES):
        return _auto(k, ep, role)
    internode = boolean(k, "--use_deepep_internode")
    moe = bool(moe)  # MoeConfig defaults (ConfigModules.h:285-287): moe false, internode false, low latency true
    ll = True if ll is None else ll
    said = ", ".join(f"{s} {k.text(s)}" for s in _SWITCHES if k.given(s))
    if not moe:
        return None, f"{said}: use_deepep_moe stays false (MoeConfig's default): no DeepEP Buffer is built"
    if boolean(k, "--enable_ffn_disaggregate"):
        return ("--enable_ffn_disaggregate: rtp-llm builds ACCL-EP's M2N low-latency buffer "
                f"({WRAPPER}:599-643), which moecfg does not derive"), "not derived"
    default = "" if k.given(_SWITCHES[2]) else "--use_deepep_low_latency unset: MoeConfig default true, "
    how = f"{said} (explicit; {default}{SETUP}:133-141)"
    return (ll, bool(internode)), how


def _auto(k: Knobs, ep: int, role: str):
    """_apply_auto_deepep_config (server_config_setup.py:166-241) from the role, --world_size and
    --local_world_size (both default 1: a launcher usually sets WORLD_SIZE, so unset they are not known)."""
    world = k.int("--world_size") if k.given("--world_size") else None
    local = k.int("--local_world_size") if k.given("--local_world_size") else None
    if world is None or (world > 1 and local is None):
        return ("--use_deepep_moe / --use_deepep_internode / --use_deepep_low_latency not given: rtp-llm picks them "
                "from --role_type, --world_size and --local_world_size (WORLD_SIZE / LOCAL_WORLD_SIZE, usually set by "
                "the job's launcher): not known statically; set them or the sizes"), ""
    if world == 1:
        return None, f"{k.said('--world_size', 1)}: one GPU, no DeepEP Buffer ({SETUP}:184-201)"
    if role not in ("PDFUSION", "PREFILL", "DECODE"):
        return None, f"--role_type {role}: no DeepEP MoE on this role"
    multi_node = world > local
    how = (f"auto ({SETUP}:166-241): --role_type {role}, {k.said('--world_size', world)} over "
           f"{k.said('--local_world_size', local)} ({'several nodes' if multi_node else 'one node'})")
    return (role == "DECODE", multi_node), how


def _base(k: Knobs, dims, ep: int, how: str) -> tuple[dict, dict, dict]:
    redundant = k.int("--redundant_expert", 0) or 0
    experts = dims.num_experts + redundant
    args = {"num_ranks": ep, "hidden": dims.hidden, "num_experts": experts, "num_topk": dims.topk, "dtype": "bf16"}
    model = k.span("--checkpoint_path")
    src = {"num_ranks": k.span("--tp_size") + k.span("--dp_size") + k.span("--ep_size"), "hidden": model,
           "num_experts": model + k.span("--redundant_expert"), "num_topk": model}
    why = {"num_ranks": f"{ep} <- EP size: {k.said('--tp_size', k.int('--tp_size', 1))} x "
                        f"{k.said('--dp_size', k.int('--dp_size', 1))} ({SETUP}:284-287)",
           "hidden": f"{dims.hidden} <- {dims.how}", "num_topk": f"{dims.topk} <- {dims.how}",
           "num_experts": f"{experts} <- {dims.num_experts} ({dims.how}) + {k.said('--redundant_expert', redundant)}",
           "dtype": "bf16 <- moecfg checks the BF16 payload (the larger requirement)", "mode": how}
    return args, src, why


def _low_latency(k: Knobs, dims, tp: int, ep: int, how: str) -> OpCall | None:
    limit = k.int("--concurrency_limit", 32)
    sp = (k.text("--sp_type") or "").strip()
    gen = k.int("--gen_num_per_cycle", 1) if sp else 0
    if limit is None or gen is None:
        return None
    total = limit * (gen + 1) if sp else limit
    per_rank = -(-total // tp)
    t = per_rank // 128 * 128 + (128 if per_rank % 128 else 0) if per_rank > 128 else (64 if per_rank <= 64 else 128)
    args, src, why = _base(k, dims, ep, how)
    cap = k.span("--concurrency_limit")
    rdma = fx.low_latency_rdma_size_hint(t, dims.hidden, ep, args["num_experts"])
    qps = args["num_experts"] // ep
    args |= {"mode": "low_latency", "num_max_dispatch_tokens_per_rank": t, "num_nvl_bytes": 0,
             "num_rdma_bytes": rdma, "num_qps_per_rank": qps}
    cap = k.span("--concurrency_limit") + k.span("--sp_type") + k.span("--gen_num_per_cycle") + k.span("--tp_size")
    src |= {"mode": tuple(s for n in _SWITCHES for s in k.span(n)), "num_max_dispatch_tokens_per_rank": cap,
            "num_rdma_bytes": cap, "num_qps_per_rank": src["num_experts"]}
    mtp = f" x ({k.said('--gen_num_per_cycle', gen)} + 1) (--sp_type {sp})" if sp else ""
    small = "" if per_rank > 128 else (" (BF16 / FP8 per-block / FP4 checkpoints; a per-tensor FP8 or W4A8 checkpoint "
                                       "rounds to a multiple of 8 instead)")
    why |= {"mode": f"low_latency <- {how}",
            "num_max_dispatch_tokens_per_rank": f"{t} <- {k.said('--concurrency_limit', limit)}{mtp} = {total} "
                                                f"over --tp_size {tp} = {per_rank}, rounded up{small} "
                                                f"({WRAPPER}:219-268, :691-703)",
            "num_rdma_bytes": f"{rdma} <- get_low_latency_rdma_size_hint(T {t}, hidden {dims.hidden}, {ep} ranks, "
                              f"{args['num_experts']} experts) ({WRAPPER}:558-585)",
            "num_qps_per_rank": f"{qps} <- experts / ep_size ({WRAPPER}:578)",
            "num_nvl_bytes": "0 <- rtp-llm's literal",
            "env.NVSHMEM_QP_DEPTH": "1024 <- DeepEP's default (rtp-llm does not raise it)"}
    _qp_depth(k, args, src, why)
    call = OpCall("serve", "deepep", None, args, why, src, knobs=KNOBS, condition=ACCL)
    call.notes.extend(_cap_notes(k, t, tp, gen + 1 if sp else 1, cap))
    return call


def _limit_for(t_max: int, tp: int, factor: int) -> int:
    """The largest --concurrency_limit whose token cap stays <= t_max (rounded up to 128s above 128)."""
    per_rank = t_max // 128 * 128 if t_max >= 128 else t_max
    return per_rank * tp // factor


def _cap_notes(k: Knobs, t: int, tp: int, factor: int, spans: tuple) -> list[Note]:
    """DeepEP's low-latency limits on T (MC643: <= 1024; MC641: NVSHMEM_QP_DEPTH >= 2 (T + 1)) said in rtp-llm's
    knobs: T comes from --concurrency_limit (CONCURRENCY_LIMIT), not from a variable of its own."""
    span = (spans or (k.launch.span,))[0]
    out = []
    if t > 1024:
        out.append(Note("MC643", f"rtp-llm sizes the low-latency Buffer for T = {t} tokens per rank "
                        f"(--concurrency_limit over --tp_size, rounded up); DeepEP's low-latency kernels count at most "
                        f"1024 (FINISHED_SUM_TAG): set CONCURRENCY_LIMIT / --concurrency_limit <= "
                        f"{_limit_for(1024, tp, factor)}", span, covers=("MC643",)))
    depth_env = k.launch.env.get("NVSHMEM_QP_DEPTH")
    depth = integer(depth_env.value) if depth_env is not None and depth_env.value is not None else 1024
    if depth is not None and 2 * (t + 1) > depth:
        out.append(Note("MC641", f"T = {t} tokens per rank needs NVSHMEM_QP_DEPTH >= 2 x ({t} + 1) = {2 * (t + 1)} "
                        f"(it is {depth}{'' if depth_env else ', DeepEP default'}; rtp-llm does not raise it): set "
                        f"NVSHMEM_QP_DEPTH={2 * (t + 1)} or CONCURRENCY_LIMIT / --concurrency_limit <= "
                        f"{_limit_for(depth // 2 - 1, tp, factor)}", span, covers=("MC641",)))
    return out


def _normal(k: Knobs, dims, ep: int, internode: bool, how: str) -> OpCall | None:
    args, src, why = _base(k, dims, ep, how)
    sms = k.int("--deep_ep_num_sm", 0)
    if sms is None:
        return None
    ibgda = (k.launch.env.get("ACCL_NORMAL_MODE").value if "ACCL_NORMAL_MODE" in k.launch.env else "IBRC") == "IBGDA"
    if internode:
        qps = max(sms // 2, args["num_experts"] // ep) if ibgda else sms // 2
        nvl, rdma = int(2e9), int(1e9)
        qwhy = (f"max(--deep_ep_num_sm {sms} // 2, experts / ep_size) (ACCL_NORMAL_MODE=IBGDA)" if ibgda else
                f"{k.said('--deep_ep_num_sm', sms)} // 2 (ACCL_NORMAL_MODE IBRC, the default: ACCL-EP's own RC "
                "transport, not upstream DeepEP's NVSHMEM QPs, so the count is not checked)")
    else:
        qps, nvl, rdma, qwhy = 1, int(2e9), 0, "1 (intranode)"
    args |= {"mode": "normal", "num_nvl_bytes": nvl, "num_rdma_bytes": rdma}
    if ibgda or not internode:
        args["num_qps_per_rank"] = qps
    if sms:
        args["num_sms"] = sms
    src |= {"num_qps_per_rank": k.span("--deep_ep_num_sm"), "mode": tuple(s for n in _SWITCHES for s in k.span(n))}
    why |= {"mode": f"normal <- {how}", "num_nvl_bytes": f"{nvl} <- rtp-llm's literal int(2e9) ({WRAPPER}:514-540)",
            "num_rdma_bytes": f"{rdma} <- " + ("int(1e9) (internode)" if internode else "0 (intranode)"),
            "num_qps_per_rank": f"{qps} <- {qwhy} ({WRAPPER}:520-538)"}
    return OpCall("serve", "deepep", None, args, why, src, knobs=KNOBS, condition=ACCL)


def _qp_depth(k: Knobs, args: dict, src: dict, why: dict) -> None:
    depth = k.launch.env.get("NVSHMEM_QP_DEPTH")
    if depth is not None and depth.value is not None:
        args["env"] = {"NVSHMEM_QP_DEPTH": depth.value}
        src["env.NVSHMEM_QP_DEPTH"] = (depth.span,)
        why["env.NVSHMEM_QP_DEPTH"] = f"{depth.value} <- the launch's environment"
