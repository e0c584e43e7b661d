"""The DeepEP buffers one LightLLM rank builds, as `kind: deepep` documents (OpCalls), and LightLLM's own start-up
checks on the same knobs. What each release builds is in releases.py (with its lines).

World = --tp (every GPU of every node); experts = the model's routed experts + redundancy_expert_num x world
(--ep_redundancy_expert_config_path, a JSON file on the serving host: not read, so such a launch is not derived).
"""
from __future__ import annotations

from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.frameworks import Note, OpCall
from moecfg.frameworks.engine_flags import Knobs
from moecfg.frameworks.lightllm import rules
from moecfg.frameworks.lightllm.releases import DEFAULT_T, PREFILL_CAP, Release
from moecfg.frameworks.models import resolve_model, unresolved_reason
from moecfg.frameworks.vllm.calls import add_device

# What a LightLLM user sets for each DeepEP field (named beside the field in the op's findings)
KNOBS = {
    "num_max_dispatch_tokens_per_rank": "the decode cap variable (NUM_MAX_DISPATCH_TOKENS_PER_RANK_DECODE from "
                                        "LightLLM 1.2, NUM_MAX_DISPATCH_TOKENS_PER_RANK in 1.1)",
    "num_rdma_bytes": "LightLLM sizes it from the decode cap variable (get_low_latency_rdma_size_hint)",
    "num_max_tokens_per_rank": f"{PREFILL_CAP} (unset: --batch_max_tokens rounded up to 8)",
    "num_ranks": "--tp (the world: every GPU of every node)",
}
# LightLLM 1.1 runs the normal kernels on its one Buffer too: their SM count is DEEPEP_SMS, and the QP count it
# passes (experts // world) is not a knob of its own
KNOBS_11 = KNOBS | {"num_sms": "DEEPEP_SMS (Buffer.num_sms)",
                    "num_qps_per_rank": "LightLLM 1.1 passes experts // --tp; DEEPEP_SMS sets num_sms"}


def derive(launch, ctx, k: Knobs, rel: Release, version: str, out) -> None:
    notes = out.notes
    bad = k.refused(("--tp", "--dp", "--nnodes", "--graph_max_batch_size", "--batch_max_tokens",
                     "--max_req_total_len"), "LightLLM")
    if bad:
        notes.extend(bad)
        return
    world, dp, nodes = k.int("--tp", 1), k.int("--dp", 1), k.int("--nnodes", 1)
    _start_up(k, rel, version, world, nodes, notes)
    if k.unknown or k.unreadable or world is None or dp is None:
        _unknown(k, notes)
        return
    dims = resolve_model(k.text("--model_dir"), ctx)
    if dims is None:
        notes.append(Note("MC042", unresolved_reason(k.text("--model_dir"), ctx),
                          (k.span("--model_dir") or (launch.span,))[0]))
        return
    if k.given("--ep_redundancy_expert_config_path"):
        notes.append(Note("MC023", "--ep_redundancy_expert_config_path: LightLLM adds the file's redundancy_expert_num "
                          "x world experts; the file is on the serving host and not read, so the DeepEP buffers are "
                          "not derived", k.span("--ep_redundancy_expert_config_path")[0]))
        return
    base = _base(k, dims, world)
    t_decode, t_span, t_why = _cap(k, rel.decode_cap, DEFAULT_T)
    if t_decode is None:
        _unknown(k, notes)
        return
    low = _low_latency(k, rel, base, dims, world, t_decode, t_span, t_why)
    if low is None:
        return _unknown(k, notes)
    out.calls.append(low)
    notes.extend(_decode_cap(k, rel, world, dp, t_decode, t_span))
    if rel.elastic_prefill:
        prefill = _elastic(k, rel, base, dims, world, dp, notes)
        if prefill is not None:
            out.calls.insert(0, prefill)
    for call in out.calls:  # the GPU model, when known, lets the deepep kind's device-memory rules run
        add_device(launch, ctx, call)


def _unknown(k: Knobs, notes: list) -> None:
    notes.extend(k.unknown_notes("LightLLM", "the DeepEP buffers LightLLM builds from it"))


def _start_up(k: Knobs, rel: Release, version: str, world, nodes, notes: list) -> None:
    if world is not None and nodes and nodes > 0 and world % nodes:
        notes.append(Note(rules.WORLD_NODES.code, f"--tp {world} is not a multiple of --nnodes {nodes}: LightLLM "
                          f"asserts world_size % nnodes == 0 at start-up ({rel.ref} lightllm/server/router/manager.py"
                          f"); set --tp to the GPUs of all {nodes} nodes", (k.span("--tp") or k.span("--nnodes"))[0]))
    if rel.ep_flag:
        for flag in ("--llm_prefill_att_backend", "--llm_decode_att_backend"):
            f = k.flags.get(flag)
            bad = [v for v in (f.values if f else ()) if v is not None and v not in ("auto", "fa3", "triton")]
            if bad:
                notes.append(Note(rules.EP_ATTENTION.code, f"{flag} {bad[0]} with --enable_ep_moe: LightLLM {version} "
                                  "asserts auto, fa3 or triton (lightllm/server/api_start.py:150-161); use "
                                  f"{flag} fa3", f.span))


def _base(k: Knobs, dims, world: int) -> tuple[dict, dict, dict]:
    args = {"num_ranks": world, "hidden": dims.hidden, "num_experts": dims.num_experts, "num_topk": dims.topk}
    model = k.span("--model_dir")
    src = {"num_ranks": k.span("--tp"), "hidden": model, "num_experts": model, "num_topk": model}
    why = {"num_ranks": f"{world} <- {k.said('--tp', world)}: LightLLM's world is --tp, all GPUs of all nodes "
                        "(server/router/manager.py: world_size = args.tp)",
           "hidden": f"{dims.hidden} <- {dims.how}", "num_topk": f"{dims.topk} <- {dims.how}",
           "num_experts": f"{dims.num_experts} <- {dims.how} (no --ep_redundancy_expert_config_path: 0 redundant)"}
    return args, src, why


def _cap(k: Knobs, var: str, default: int) -> tuple[int | None, tuple, str]:
    t = k.int(var, default)
    return t, k.span(var), f"{t} <- {k.said(var, t)}"


def _low_latency(k: Knobs, rel: Release, base, dims, world: int, t: int, t_span, t_why) -> OpCall | None:
    args, src, why = (dict(x) for x in base)
    experts = args["num_experts"]
    rdma = fx.low_latency_rdma_size_hint(t, dims.hidden, world, experts)
    qps = experts // world
    one = not rel.elastic_prefill  # 1.1: one Buffer for the normal (prefill) and the low-latency (decode) kernels
    args |= {"mode": "auto" if one else "low_latency", "dtype": "bf16", "num_max_dispatch_tokens_per_rank": t,
             "num_rdma_bytes": rdma, "num_qps_per_rank": qps, "num_nvl_bytes": 10 ** 9 if one else 0}
    src |= {"num_max_dispatch_tokens_per_rank": t_span, "num_rdma_bytes": t_span + k.span("--tp")}
    why |= {"mode": ("auto <- LightLLM 1.1 builds one Buffer with low_latency_mode=True and runs the normal kernels "
                     "(prefill) and the low-latency kernels (decode) on it" if one else
                     "low_latency <- the decode Buffer (prefill runs the ElasticBuffer)") + f" ({rel.ref} {rel.comm})",
            "dtype": "bf16 <- moecfg checks the BF16 payload (LightLLM dispatches FP8 for FP8 checkpoints: the larger "
                     "requirement is checked)",
            "num_max_dispatch_tokens_per_rank": t_why + f" ({rel.env})",
            "num_rdma_bytes": f"{rdma} <- get_low_latency_rdma_size_hint(T {t}, hidden {dims.hidden}, {world} ranks, "
                              f"{experts} experts)",
            "num_qps_per_rank": f"{qps} <- {experts} experts // {world} ranks",
            "num_nvl_bytes": "1000000000 <- int(1e9), LightLLM 1.1's literal" if one else
                             "0 <- not passed (Buffer's default)",
            "env.NVSHMEM_QP_DEPTH": "1024 <- DeepEP's default (LightLLM does not raise it)"}
    depth = k.launch.env.get("NVSHMEM_QP_DEPTH")
    if depth is not None and depth.value is not None:
        args["env"] = {"NVSHMEM_QP_DEPTH": depth.value}
        src["env.NVSHMEM_QP_DEPTH"] = (depth.span,)
        why["env.NVSHMEM_QP_DEPTH"] = f"{depth.value} <- the launch's environment"
    if one:
        sms = k.int("DEEPEP_SMS", 20)
        if sms is None:
            return None
        args["num_sms"] = sms
        src["num_sms"] = k.span("DEEPEP_SMS")
        why["num_sms"] = f"{sms} <- {k.said('DEEPEP_SMS', sms)}: Buffer.set_num_sms(DEEPEP_SMS or Buffer.num_sms) " \
                         f"({rel.ref} lightllm/distributed/communication_op.py:158-166)"
        call = OpCall("serve", "deepep", None, args, why, src, knobs=KNOBS_11)
        call.notes.extend(_internode_qps(k, rel, args))
        return call
    return OpCall("decode", "deepep", None, args, why, src, knobs=KNOBS)


def _internode_qps(k: Knobs, rel: Release, args: dict) -> list[Note]:
    """DeepEP's internode kernels trap unless num_qps_per_rank == num_sms / 2 or >= num_sms (rule MC613): said in
    LightLLM 1.1's knob, DEEPEP_SMS, since the QP count (experts // world) is not one."""
    qps, sms, ranks = args["num_qps_per_rank"], args["num_sms"], args["num_ranks"]
    if ranks <= 8 or qps == sms // 2 or qps >= sms:
        return []
    span = (k.span("DEEPEP_SMS") or k.span("--tp") or (k.launch.span,))[0]
    return [Note("MC613", f"LightLLM 1.1 passes num_qps_per_rank = {args['num_experts']} experts // {ranks} ranks = "
                 f"{qps} and Buffer.num_sms = {sms} ({k.said('DEEPEP_SMS', sms)}); DeepEP's internode kernels trap "
                 f"unless num_qps_per_rank == num_sms / 2 or >= num_sms (csrc/kernels/legacy/internode.cu; "
                 f"{rel.ref} lightllm/distributed/communication_op.py:150-166): set DEEPEP_SMS={qps - qps % 2} or "
                 f"DEEPEP_SMS={2 * qps}", span, covers=("MC613",))]


def _elastic(k: Knobs, rel: Release, base, dims, world: int, dp: int, notes: list) -> OpCall | None:
    args, src, why = (dict(x) for x in base)
    bmt, bmt_how = batch_max_tokens(k, dp)
    if k.given(PREFILL_CAP):
        t, t_span, t_why = _cap(k, PREFILL_CAP, None)
        if t is None:
            _unknown(k, notes)
            return None
        if bmt is not None and t < bmt:
            notes.append(Note(rules.PREFILL_CAP.code, f"{PREFILL_CAP}={t} is below --batch_max_tokens {bmt} "
                              f"({bmt_how}): a prefill batch of up to {bmt} tokens per rank is dispatched through an "
                              f"ElasticBuffer built for {t} ({rel.ref} lightllm/utils/envs_utils.py:71-82, "
                              "triton_kernel/fused_moe/grouped_fused_moe_ep.py:279-292); unset "
                              f"{PREFILL_CAP} or set it to {_up8(bmt)}", t_span[0]))
    elif bmt is None:
        notes.append(Note("MC023", f"--batch_max_tokens: {bmt_how}; the prefill ElasticBuffer LightLLM sizes from it "
                          "is not derived", (k.span("--batch_max_tokens") or (k.launch.span,))[0]))
        return None
    else:
        t, t_span = _up8(bmt), k.span("--batch_max_tokens") + k.span("--dp")
        t_why = f"{t} <- {PREFILL_CAP} unset: --batch_max_tokens {bmt} ({bmt_how}) rounded up to a multiple of 8"
    args |= {"api": "v2", "num_max_tokens_per_rank": t, "use_fp8_dispatch": True, "allow_multiple_reduction": True}
    src |= {"num_max_tokens_per_rank": t_span}
    why |= {"api": f"v2 <- LightLLM {rel.ref} builds a DeepEP V2 ElasticBuffer for prefill ({rel.comm})",
            "num_max_tokens_per_rank": t_why + f" ({rel.env})",
            "use_fp8_dispatch": "True <- LightLLM's literal", "allow_multiple_reduction": "True <- LightLLM's literal"}
    return OpCall("prefill", "deepep", None, args, why, src, knobs=KNOBS)


def batch_max_tokens(k: Knobs, dp: int) -> tuple[int | None, str]:
    """(--batch_max_tokens after LightLLM 1.2's start-up defaults, how) (api_start.py:230-249)."""
    if k.given("--batch_max_tokens"):
        v = k.int("--batch_max_tokens")
        return v, f"--batch_max_tokens {v}" if v is not None else "not known statically"
    if k.on("--disable_chunked_prefill"):
        v = k.int("--max_req_total_len")
        return (v, f"--max_req_total_len {v} with --disable_chunked_prefill") if v is not None else \
            (None, "--max_req_total_len is set by LightLLM from the model's context length (not known statically)")
    return 16384 // max(dp, 1), f"16384 // --dp {dp}, LightLLM's default with chunked prefill"


def _up8(n: int) -> int:
    return (n + 7) // 8 * 8


def _decode_cap(k: Knobs, rel: Release, world: int, dp: int, t: int, t_span) -> list[Note]:
    """MC751: the largest decode CUDA graph LightLLM captures at start-up dispatches more tokens per rank than the
    low-latency cap. Not said when the graphs are off, or for MTP on 1.1 (whose graph batch is not read)."""
    if k.on("--disable_cudagraph") or dp <= 0 or world % dp:
        return []
    mtp = k.int("--mtp_step", 0) or 0
    if mtp and not rel.mtp_graph:
        return []
    batch = k.int("--graph_max_batch_size", 256)
    if batch is None:
        return []
    overlap = k.on("--enable_decode_microbatch_overlap")
    graph = (batch // 2 if overlap else batch) * (mtp + 1 if rel.mtp_graph else 1)
    group = world // dp
    tpsp = k.on("--enable_tpsp_mix_mode") or overlap or k.on("--enable_prefill_microbatch_overlap")
    per_rank = -(-graph // group) if tpsp and group > 1 else graph
    if per_rank <= t:
        return []
    how = f"--graph_max_batch_size {batch}" + (" // 2 (--enable_decode_microbatch_overlap)" if overlap else "") + \
          (f" x (--mtp_step {mtp} + 1)" if mtp else "") + (f", split over {group} ranks (tpsp mix mode)"
                                                            if per_rank != graph else "")
    span = (t_span or k.span("--graph_max_batch_size") or (k.launch.span,))[0]
    return [Note(rules.DECODE_CAP.code, f"LightLLM captures a decode CUDA graph of {per_rank} tokens per rank at "
                 f"start-up ({how}) and DeepEP's low-latency dispatch asserts num_tokens <= "
                 f"num_max_dispatch_tokens_per_rank = {t} ({k.said(rel.decode_cap, t)}; {rel.ref} {rel.graph}); set "
                 f"{rel.decode_cap}={_up8(per_rank)} or lower --graph_max_batch_size to "
                 f"{_max_batch(t, mtp, overlap, group if per_rank != graph else 1, rel)}", span)]


def _max_batch(t: int, mtp: int, overlap: bool, group: int, rel: Release) -> int:
    per = t * group // (mtp + 1 if rel.mtp_graph else 1)
    return per * 2 if overlap else per
