"""Which MoE communication vllm-ascend runs for a step of `n` tokens: MC2 (dispatch/combine v2), fused MC2
(MegaMoE / dispatch_ffn_combine / dispatch_gmm_combine_decode), all-to-all or all-gather — per release.
"""
from __future__ import annotations

from moecfg.core.record import field, record
from moecfg.frameworks import Note
from moecfg.frameworks.vllm_ascend import formulas as F
from moecfg.frameworks.vllm_ascend.cli import Arg, ServeArgs
from moecfg.frameworks.vllm_ascend.releases import Release

MC2, FUSED, ALLTOALL, ALLGATHER = "MC2", "FUSED_MC2", "ALLTOALL", "ALLGATHER"


@record(slots=True)
class Fused:
    """The fused-MC2 request and what vllm-ascend makes of it."""

    requested: Arg  # 0 / 1 / 2 (env VLLM_ASCEND_ENABLE_FUSED_MC2 or additional_config.enable_fused_mc2)
    op: str | None = None  # "mega_moe" | "dispatch_ffn_combine" | "dispatch_gmm_combine_decode" | None (off)
    max_ep: int = 0
    why_off: str = ""  # when requested but vllm-ascend turns it off (MC043)
    uncertain: bool = False  # MegaMoE vs dispatch_ffn_combine hangs on `cann_ops_transformer` in the image (unknown)
    notes: list[Note] = field(default_factory=list)


@record(frozen=True, slots=True)
class Setup:
    """What the op choice depends on besides the token count."""

    rel: Release
    product: str
    ep: int
    world_over_pp: int  # world_size_across_dp / pipeline_parallel_size
    experts: int | None  # logical routed experts (A2 experts-per-device rule on main)
    quant: str | None  # MoE quantisation: w8a8_dynamic, w4a8_dynamic, None (bf16)
    lora: bool
    dynamic_eplb: bool
    fused: Fused


def megamoe_available(cann: str | None) -> bool:
    """vllm-ascend takes MegaMoE when `cann_ops_transformer` imports (VA@182b75e ascend_config.py:27). moecfg
    cannot see the image's packages: the settings' CANN answers -- >= 9.1.0 (where MegaMoE first appears,
    cann/ops-transformer branch 9.1.0) or `latest`: MegaMoE; older: dispatch_ffn_combine. Without a CANN version
    both are derived (`Fused.uncertain`, build.py)."""
    if not cann or cann == "latest":
        return True
    try:
        major, minor = (int(x) for x in cann.split(".")[:2])
    except ValueError:
        return True
    return (major, minor) >= (9, 1)


def fused_request(args: ServeArgs, rel: Release) -> Arg:
    """additional_config.enable_fused_mc2 wins over env VLLM_ASCEND_ENABLE_FUSED_MC2 (main,
    VA@182b75e ascend_config.py:160-165, 361-372); v0.13 reads the env only (VA@6281c12 envs.py:137-138)."""
    if rel.fused_config_key:
        key = args.config("--additional-config", "enable_fused_mc2")
        if key.value is not None:
            return key
    env = args.env_value("VLLM_ASCEND_ENABLE_FUSED_MC2", "0")
    try:
        return Arg(int(env.value), env.spans, env.text) if env.value is not None else Arg(None, env.spans, env.text)
    except ValueError:
        return Arg(None, env.spans, env.text)


def plan_fused(args: ServeArgs, rel: Release, product: str, dims, quant: str | None, cann: str | None) -> Fused:
    req = fused_request(args, rel) if rel.fused != "none" else Arg(0)
    fused = Fused(req)
    span = req.spans[0] if req.spans else args.start
    allowed = rel.fused_values
    if isinstance(req.value, (bool, float)) and req.value in allowed:
        # JSON true / 1.0 pass `assert self.enable_fused_mc2 in (0, 1)` and `== 1` as Python compares them
        # (VA@182b75e ascend_config.py:166,169,175,181); the MiniMax-M2 tutorial writes `"enable_fused_mc2":true`
        req = Arg(int(req.value), req.spans, req.text)
    if req.value is not None and req.value not in allowed:
        fused.requested = Arg(0, req.spans, req.text)
        fused.notes.append(Note("MC023", f"{req.text}: vllm-ascend accepts only {allowed} (it fails at start-up: "
                                f"{rel.cite['fused']}); fused MC2 is not derived", span, "error"))
        return fused
    if not req.value:
        return fused
    if product != "A3":
        fused.why_off = f"{req.text}: vllm-ascend only selects fused MC2 on A3 ({rel.cite['select']}); {product} runs MC2 / all-gather"
        return fused
    if rel.fused == "v013":
        return _plan_v013(fused, rel, quant)
    if rel.fused == "dfc" or not rel.megamoe:
        return _plan_dfc(fused, rel)
    if not megamoe_available(cann):
        fused.op, fused.max_ep = "dispatch_ffn_combine", F.A3_DISPATCH_FFN_COMBINE_MAX_EP
        return fused
    if dims is None:
        fused.notes.append(Note("MC042", f"{req.text}: whether vllm-ascend keeps MegaMoE depends on the model's "
                                "hidden and moe_intermediate_size; add the model to `models:` in .moecfg.yaml", span))
        return fused
    bad = _megamoe_unsupported(dims, quant)
    if bad:
        fused.why_off = (f"{req.text}, but {bad}: vllm-ascend sets enable_fused_mc2 = 0 and runs MC2 / all-to-all "
                         f"instead of MegaMoE ({rel.cite['fused']})")
        return fused
    fused.op, fused.max_ep, fused.uncertain = "mega_moe", F.A3_MEGA_MOE_MAX_EP, not cann
    if not getattr(dims, "moe_intermediate_size", 0):
        fused.notes.append(Note("MC042", f"{req.text}: moe_intermediate_size of {dims.name} is unknown; assuming it "
                                "is within MegaMoE's [1024, 3072] % 512 (else vllm-ascend falls back to MC2); give "
                                "the model's config.json in `models:`", span))
    return fused


def _plan_v013(fused: Fused, rel: Release, quant: str | None) -> Fused:
    """v0.13: fused MC2 only with w8a8_dynamic MoE weights; 1 = dispatch_ffn_combine (EP <= 32, not the MTP
    draft, no dynamic EPLB), 2 = dispatch_gmm_combine_decode (VA@6281c12 ascend_forward_context.py:256-275)."""
    if quant != "w8a8_dynamic":
        fused.why_off = (f"{fused.requested.text}, but the MoE weights are {quant or 'bf16'} (not w8a8_dynamic): "
                         f"vllm-ascend runs MC2 / all-to-all ({rel.cite['select']})")
        return fused
    if fused.requested.value == 2:
        fused.op = "dispatch_gmm_combine_decode"
    else:
        fused.op, fused.max_ep = "dispatch_ffn_combine", F.A3_DISPATCH_FFN_COMBINE_MAX_EP
    return fused


def _plan_dfc(fused: Fused, rel: Release) -> Fused:
    """v0.18.0-v0.24.0rc1: no MegaMoE; 1 = dispatch_ffn_combine (EP <= 32), 2 = dispatch_gmm_combine_decode
    (decode steps only; cited in the release's `select`)."""
    if fused.requested.value == 2:
        fused.op = "dispatch_gmm_combine_decode"
    else:
        fused.op, fused.max_ep = "dispatch_ffn_combine", F.A3_DISPATCH_FFN_COMBINE_MAX_EP
    return fused


def _megamoe_unsupported(dims, quant: str | None) -> str:
    """vllm-ascend's MegaMoE gate (VA@182b75e ascend_config.py:401-441): '' when MegaMoE is kept."""
    if not F.in_range(dims.hidden, F.MEGA_MOE_HIDDEN):
        return f"hidden {dims.hidden} is outside [1024, 8192] or not a multiple of 512"
    inter = getattr(dims, "moe_intermediate_size", 0)
    if inter and not F.in_range(inter, F.MEGA_MOE_INTERMEDIATE):
        return f"moe_intermediate_size {inter} is outside [1024, 3072] or not a multiple of 512"
    if quant is not None and quant not in F.MEGA_MOE_QUANTS:
        return f"the MoE quantisation {quant} is not W8A8/W4A8"
    return ""


def choose(s: Setup, n: int, capacity: int, draft: bool = False) -> tuple[str, str]:
    """(comm type, why) for a step of n tokens."""
    r = s.rel
    cite = r.cite["select"]
    if s.ep <= 1:
        return ALLGATHER, f"EP size {s.ep}: all-gather ({cite})"
    if s.lora and r.family == "main":
        return ALLTOALL, f"LoRA with expert parallel: all-to-all ({cite})"
    if s.product == "A2":
        return _a2(s, n, capacity, cite)
    return _a3(s, n, capacity, cite, draft)


def _a2(s: Setup, n: int, capacity: int, cite: str) -> tuple[str, str]:
    limit = s.rel.a2_max_experts_per_device
    per_device = s.experts // s.world_over_pp if (limit and s.experts) else None
    if s.world_over_pp < F.A2_MIN_EP_FOR_MC2:
        return ALLGATHER, f"A2, EP {s.world_over_pp} < {F.A2_MIN_EP_FOR_MC2}: vllm-ascend uses all-gather, no MC2 op ({cite})"
    if limit and per_device is not None and per_device > limit:
        return ALLGATHER, (f"A2, {s.experts} experts / EP {s.world_over_pp} = {per_device} experts per device > "
                           f"{limit}: vllm-ascend uses all-gather, no MC2 op ({cite})")
    if n > capacity:
        other = ALLTOALL if (s.rel.family == "0.11.0" and s.quant == "w4a8_dynamic") else ALLGATHER
        return other, (f"A2, {n} tokens > MC2 capacity {capacity}: vllm-ascend uses "
                       f"{'all-to-all' if other == ALLTOALL else 'all-gather'}, no MC2 op ({cite})")
    return MC2, f"A2, EP {s.world_over_pp} >= {F.A2_MIN_EP_FOR_MC2}, {n} tokens <= capacity {capacity}: MC2 ({cite})"


def _a3(s: Setup, n: int, capacity: int, cite: str, draft: bool) -> tuple[str, str]:
    f = s.fused
    if f.op and not (s.rel.fused == "v013" and (draft or s.dynamic_eplb)):
        fits = f.max_ep == 0 or s.ep <= f.max_ep
        decode_only = f.op == "dispatch_gmm_combine_decode"
        if fits and not (decode_only and n > capacity):
            return FUSED, f"A3, {f.requested.text}, EP {s.ep} <= {f.max_ep or 'any'}: fused MC2 {f.op} ({cite})"
    if n <= capacity:
        return MC2, f"A3, {n} tokens <= MC2 capacity {capacity}: MC2 ({cite})"
    return ALLTOALL, (f"A3, {n} tokens > MC2 capacity {capacity}: vllm-ascend uses all-to-all, no MC2 op ({cite})")


def as_dispatch_ffn_combine(f: Fused) -> Fused:
    """The same request when `cann_ops_transformer` does not import: vllm-ascend's dispatch_ffn_combine."""
    return Fused(f.requested, "dispatch_ffn_combine", F.A3_DISPATCH_FFN_COMBINE_MAX_EP)
