"""The DeepEP Buffer one vLLM rank builds, as a `kind: deepep` document (OpCall), from a `vllm serve` launch.

- EP group = DP x TP ranks with --enable-expert-parallel (vllm/distributed/parallel_state.py: EP spans DP x PCP x TP).
- deepep_high_throughput: num_nvl_bytes = VLLM_DEEPEP_BUFFER_SIZE_MB MiB; across nodes (unless
  VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE) num_rdma_bytes = the same and num_qps_per_rank = num_sms // 2 = 10,
  else 0 and 1 (A2A DeepEPHTAll2AllManager._make_all2all_kwargs; num_sms = 20, DeepEPAll2AllManagerBase).
- deepep_low_latency: T = VLLM_MOE_DP_CHUNK_SIZE (FusedMoEConfig.max_num_tokens); num_rdma_bytes =
  get_low_latency_rdma_size_hint(T, hidden, ranks, experts incl. EPLB redundant); num_qps_per_rank = local experts;
  num_nvl_bytes = VLLM_DEEPEP_BUFFER_SIZE_MB MiB (A2A DeepEPLLAll2AllManager._make_all2all_kwargs).
vLLM chunks every MoE forward into VLLM_MOE_DP_CHUNK_SIZE tokens per DP rank, so no batch exceeds T; vLLM does not
raise NVSHMEM_QP_DEPTH (DeepEP's default 1024 allows T <= 511: rule MC641 of the deepep kind).
"""
from __future__ import annotations

from moecfg.backends.deepep.arguments import vllm_buffer_arguments
from moecfg.frameworks import Note, OpCall
from moecfg.frameworks import budget
from moecfg.frameworks.gpu_device import device_of
from moecfg.frameworks.values import integer
from moecfg.frameworks.models import known_moe, resolve_model, unresolved_reason
from moecfg.frameworks.vllm import rules
from moecfg.frameworks.vllm.releases import A2A, ENVS, MOE

DEFAULT_BACKEND = "allgather_reducescatter"
DEEPEP = ("deepep_high_throughput", "deepep_low_latency")
_OTHER = {  # why no DeepEP Buffer runs with the other backends
    "allgather_reducescatter": "all-gather (dispatch) and reduce-scatter (combine) over the EP group (NCCL)",
    "naive": "broadcasts over the EP group (NCCL)",
    "pplx": "pplx-kernels (removed from vLLM, PR #33724)",
    "flashinfer_all2allv": "FlashInfer all2allv (MNNVL)",
    "flashinfer_nvlink_one_sided": "FlashInfer NVLink one-sided all-to-all",
    "flashinfer_nvlink_two_sided": "FlashInfer NVLink two-sided all-to-all",
    "mori": "AMD MoRI kernels", "nixl_ep": "NIXL EP (its own elastic buffer)",
    "deepep_v2": "DeepEP V2 ElasticBuffer (not derived by moecfg for vLLM yet: check it as a `kind: deepep`, `api: v2` "
                 "document)",
}


def _int(arg) -> int | None:
    return integer(arg.value)


def backend(launch, args, release) -> tuple[str, tuple, str, list[Note]]:
    """(backend, spans, how, notes) as this vLLM version reads it."""
    flag, env = args.flags.get("--all2all-backend"), launch.env.get("VLLM_ALL2ALL_BACKEND")
    notes = []
    if flag and not release.flag:
        notes.append(Note(rules.BACKEND_IGNORED.code, f"--all2all-backend does not exist in vLLM {release.ref}: argparse "
                          "stops the launch (`unrecognized arguments`); set VLLM_ALL2ALL_BACKEND instead", flag.span,
                          rules.OLD_FLAG))
    if env and not release.env:
        notes.append(Note(rules.BACKEND_IGNORED.code, f"VLLM_ALL2ALL_BACKEND={env.value} is ignored by vLLM "
                          f"{release.ref}: the backend is {flag.value if flag else DEFAULT_BACKEND}"
                          f"{'' if flag else ' (the default)'}; pass --all2all-backend {env.value}", env.span))
    elif env and flag and release.flag and env.value != flag.value:
        notes.append(Note(rules.BACKEND_IGNORED.code, f"VLLM_ALL2ALL_BACKEND={env.value} and --all2all-backend "
                          f"{flag.value} disagree: the flag wins (PR #26732); drop the variable", env.span))
    if flag and release.flag and flag.value:
        return flag.value, (flag.span,), f"--all2all-backend {flag.value}", notes
    if env and release.env and env.value:
        return env.value, (env.span,), f"VLLM_ALL2ALL_BACKEND={env.value}", notes
    return DEFAULT_BACKEND, (), f"{DEFAULT_BACKEND} (vLLM's default, vllm/config/parallel.py)", notes


def _role(args) -> str:
    kv_role = args.config("--kv-transfer-config", "kv_role").value
    return {"kv_producer": "prefill", "kv_consumer": "decode"}.get(kv_role, "serve")


def derive_call(launch, args, ctx, release) -> tuple[OpCall | None, list[Note]]:
    name, spans, how, notes = backend(launch, args, release)
    ep = args.flag("--enable-expert-parallel", False, bool)
    role = _role(args)
    if not ep.value:
        if name in DEEPEP:
            notes.append(Note(rules.NO_EXPERT_PARALLEL.code, f"{how} without --enable-expert-parallel: the MoE layers "
                              "are tensor-parallel and DeepEP never runs; add --enable-expert-parallel", spans[0]
                              if spans else launch.span))
        return OpCall(role, "none", None, {}, why_none="no --enable-expert-parallel: the MoE layers are tensor-"
                      "parallel (all-reduce), no expert all-to-all runs",
                      quiet=not known_moe(args.model.value, ctx)), notes
    if name not in DEEPEP:
        what = _OTHER.get(name, f"backend {name!r}")
        return OpCall(role, "none", None, {}, why_none=f"{how}: {what}; no DeepEP Buffer is built"), notes
    return _deepep(launch, args, ctx, name, spans, how, role, notes)


def _deepep(launch, args, ctx, name, spans, how, role, notes):
    from moecfg.frameworks.vllm_ascend.tokens import at_least

    dp, tp = (at_least(args, args.flag(f, 1), 1) for f in ("--data-parallel-size", "--tensor-parallel-size"))
    dims = resolve_model(args.model.value, ctx)
    if dims is None:
        notes.append(Note("MC042", unresolved_reason(args.model.value, ctx), (args.model.spans or (launch.span,))[0]))
    if dp.value is None or tp.value is None:
        notes.append(Note("MC042", "the EP size (--data-parallel-size x --tensor-parallel-size) is not known "
                          "statically: the DeepEP Buffer is not derived", (dp.spans + tp.spans or (launch.span,))[0]))
    if dims is None or dp.value is None or tp.value is None:
        return None, notes
    ranks = dp.value * tp.value
    redundant, red_src, red_text = _redundant(args)
    experts = dims.num_experts + redundant
    mb_arg = args.env_value("VLLM_DEEPEP_BUFFER_SIZE_MB", "1024")
    chunk_arg = args.env_value("VLLM_MOE_DP_CHUNK_SIZE", "256")
    mb, chunk = _int(mb_arg), _int(chunk_arg)
    if mb is None or chunk is None:
        bad = mb_arg if mb is None else chunk_arg
        notes.append(Note("MC023", f"{bad.text or bad.value}: not an integer vLLM can read; the DeepEP Buffer is not "
                          "derived", (bad.spans or (launch.span,))[0]))
        return None, notes
    bufs = vllm_buffer_arguments(name, ranks, dims.hidden, experts, max_num_tokens=chunk, buffer_size_mb=mb)
    force = launch.env.get("VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE")
    if name == "deepep_high_throughput" and force and (force.value or "0").strip() not in ("0", ""):
        bufs |= {"num_rdma_bytes": 0, "num_qps_per_rank": 1}
    mode = "low_latency" if name == "deepep_low_latency" else "normal"
    arguments = {"mode": mode, "num_ranks": ranks, "hidden": dims.hidden, "num_experts": experts,
                 "num_topk": dims.topk, "dtype": "bf16", "num_sms": 20,
                 "num_nvl_bytes": bufs["num_nvl_bytes"], "num_rdma_bytes": bufs["num_rdma_bytes"],
                 "num_qps_per_rank": bufs["num_qps_per_rank"]}
    sources = {"mode": spans, "num_ranks": dp.spans + tp.spans, "hidden": args.model.spans,
               "num_topk": args.model.spans, "num_experts": args.model.spans + red_src,
               "num_nvl_bytes": mb_arg.spans, "num_rdma_bytes": mb_arg.spans + chunk_arg.spans,
               "num_qps_per_rank": args.model.spans + dp.spans + tp.spans}
    nodes = "across nodes" if ranks > 8 else "within a node"
    derivation = {
        "mode": f"{mode} <- {how} ({A2A})",
        "num_ranks": f"{ranks} <- {dp.said('--data-parallel-size 1')} x {tp.said('--tensor-parallel-size 1')} "
                     "(--enable-expert-parallel: EP = DP x TP)",
        "hidden": f"{dims.hidden} <- {dims.how}", "num_topk": f"{dims.topk} <- {dims.how}",
        "num_experts": f"{experts} <- {dims.num_experts} routed + {redundant} redundant ({red_text})",
        "dtype": "bf16 <- moecfg checks the BF16 payload (vLLM dispatches FP8 only for block-FP8 checkpoints: the "
                 "larger requirement is checked)",
        "num_sms": f"20 <- DeepEPAll2AllManagerBase.num_sms ({A2A})",
        "num_nvl_bytes": f"{bufs['num_nvl_bytes']} <- {mb_arg.said('VLLM_DEEPEP_BUFFER_SIZE_MB 1024 (default)')} MiB "
                         f"({ENVS})",
    }
    if mode == "low_latency":
        arguments["num_max_dispatch_tokens_per_rank"] = chunk
        sources["num_max_dispatch_tokens_per_rank"] = chunk_arg.spans
        derivation |= {
            "num_max_dispatch_tokens_per_rank": f"{chunk} <- {chunk_arg.said('VLLM_MOE_DP_CHUNK_SIZE 256 (default)')} "
                                                f"({MOE})",
            "num_rdma_bytes": f"{bufs['num_rdma_bytes']} <- get_low_latency_rdma_size_hint(T {chunk}, hidden "
                              f"{dims.hidden}, {ranks} ranks, {experts} experts)",
            "num_qps_per_rank": f"{bufs['num_qps_per_rank']} <- {experts} experts // {ranks} ranks (local experts)"}
    else:
        inter = bufs["num_rdma_bytes"] > 0
        derivation |= {
            "num_rdma_bytes": f"{bufs['num_rdma_bytes']} <- " + (f"VLLM_DEEPEP_BUFFER_SIZE_MB MiB ({ranks} ranks: "
                              f"{nodes})" if inter else f"0 ({ranks} ranks {nodes}, or "
                              "VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE)"),
            "num_qps_per_rank": f"{bufs['num_qps_per_rank']} <- " + ("num_sms // 2 = 10 (internode)" if inter
                                                                      else "1 (intranode)")}
    _env(launch, arguments, sources, derivation)
    call = OpCall(role, "deepep", None, arguments, derivation, sources)
    notes += _budget(launch, args, ctx, call)
    return call, notes


def _redundant(args) -> tuple[int, tuple, str]:
    """EPLB redundant experts: --eplb-config num_redundant_experts (JSON values may be strings) with --enable-eplb."""
    if not args.flag("--enable-eplb", False, bool).value:
        return 0, (), "no --enable-eplb"
    cfg = args.config("--eplb-config", "num_redundant_experts")
    old = args.flag("--num-redundant-experts", None)
    arg = cfg if cfg.value is not None else old
    n = integer(arg.value) if arg.value is not None else 0
    n = 0 if n is None or n < 0 else n  # vLLM refuses a negative count (MC023 names an unreadable one)
    return n, arg.spans, arg.text or "--enable-eplb, num_redundant_experts 0 (default)"


def _env(launch, arguments, sources, derivation) -> None:
    depth = launch.env.get("NVSHMEM_QP_DEPTH")
    if depth is not None and depth.value is not None:
        arguments["env"] = {"NVSHMEM_QP_DEPTH": depth.value}
        sources["env.NVSHMEM_QP_DEPTH"] = (depth.span,)
        derivation["env.NVSHMEM_QP_DEPTH"] = f"{depth.value} <- the launch's environment"
    else:
        derivation["env.NVSHMEM_QP_DEPTH"] = "1024 <- DeepEP's default (vLLM does not raise it)"


def add_device(launch, ctx, call: OpCall) -> tuple[str | None, str]:
    """Put the GPU model (and a memory override) into the call, so the deepep kind's MC901/MC902 run."""
    device, how = device_of(launch, ctx)
    if device:
        call.arguments["device"] = device
        call.derivation["device"] = f"{device} <- {how}"
    if ctx.device_memory_gb is not None:
        call.arguments["device_memory_gb"] = ctx.device_memory_gb
        call.derivation["device_memory_gb"] = f"{ctx.device_memory_gb:g} <- device_memory_gb in .moecfg.yaml"
    return device, how


def deepep_buffers(args: dict, nvl_from: str, rdma_from: str) -> list[tuple[str, int, str]]:
    from moecfg.backends.deepep.ops.v1.formulas import NUM_WORKSPACE_BYTES

    return [("deepep_nvl", args["num_nvl_bytes"], nvl_from), ("deepep_rdma", args["num_rdma_bytes"], rdma_from),
            ("deepep_workspace", NUM_WORKSPACE_BYTES, "DeepEP NUM_WORKSPACE_BYTES (32 MiB, csrc/kernels/configs.cuh)")]


def _budget(launch, args, ctx, call: OpCall) -> list[Note]:
    device, how = add_device(launch, ctx, call)
    util = args.flag("--gpu-memory-utilization", 0.9, float)
    bufs = deepep_buffers(call.arguments, "VLLM_DEEPEP_BUFFER_SIZE_MB", call.derivation["num_rdma_bytes"].split(" <- ")[1])
    fraction_text = util.said("--gpu-memory-utilization 0.9 (default)")
    table = budget.table(bufs, device, how, ctx.device_memory_gb, util.value, fraction_text)
    call.derived["memory_budget"] = table
    span = (util.spans or (launch.span,))[0]
    fix = "lower VLLM_DEEPEP_BUFFER_SIZE_MB" + (" or VLLM_MOE_DP_CHUNK_SIZE" if call.arguments["mode"] ==
                                                "low_latency" else "")
    return budget.over_headroom(table, "--gpu-memory-utilization", span, fix)

