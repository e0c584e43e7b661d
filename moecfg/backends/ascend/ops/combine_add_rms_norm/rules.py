"""combine_add_rms_norm (MC80x): the combine fused with Add + RmsNorm, on top of every dispatch/combine v2 rule.

A3 only (no A2 binary). The attribute `norm_eps` must be given. `residual_x` must be BF16 with shape
(bs, 1, h) and `gamma` BF16 with shape (h,) (write `residual_x_shape` / `gamma_shape` to have the shapes
you pass checked). CANN 8.5 (the op's own tiling) takes only BF16 expand_x (`x_dtype`); 9.0+ also FP16.
zero/copy/const_expert_num = -1 is refused in every release (MC208; 8.5 says "zeroExpertNum is -1").
The 8.5 combine itself only needs local_expert_num > 0, but the paired dispatch (aclnn DispatchV3, same
tiling as dispatch v2) still enforces local_expert_num * ep_world_size <= 2048 (MC202); an info says so.

Elastic scale-down (`elastic_info: true` plus `elastic_scale_down: {ep_world_size: N, ...}`, the ranks
left after a failure): each MoE rank must keep the same number of MoE experts, so the experts still
deployed are local_expert_num * (N - shared ranks left); scale-down is not supported with TP (MC114 /
MC111). The EP window verdict is the code's (MC501, combine v2 window); the seed page documents
`1024^2 * (HCCL_BUFFSIZE - 2) / 2 >= BS * 2 * (H + 128) * (ep * local + K + 1)` instead, reported as an
info with both figures.
"""
from __future__ import annotations

from moecfg.core.diagnostics import Finding, WARNING
from moecfg.core.registry import lazy_module, rule
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.ops.combine_add_rms_norm import formulas as arx
from moecfg.backends.ascend.shared.rules import buffers, finding, where

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.ascend.shared.rules.examples_base")
_F = "ascend-combine-add-rms-norm"
PRODUCT = rule("MC800", "add-rms-norm-product", "error", "combine_add_rms_norm exists only on A3 (no A2 binary)", family=_F,
               source="op config: ascend910_93 only (§4)",
               docs=lambda: dict(
                   why="CANN ships the op only for Atlas A3 (op config ascend910_93, no ascend910b binary): on A2 the "
                       "aclnn call finds no kernel and fails at the first combine.",
                   fail_example=eg.ex(eg.ARN, product="A2"), pass_example=eg.ex(eg.ARN),
                   fix="On A2 use op dispatch_combine_v2 followed by a separate Add + RmsNorm; or deploy on A3."))
NORM_EPS = rule("MC801", "add-rms-norm-norm-eps", "error", "combine_add_rms_norm needs the norm_eps attribute", family=_F,
                source="CV2T[M] L363-428 (attr normEps)",
                docs=lambda: dict(
                    why=eg.ARN_TILING + " The RmsNorm epsilon is the attribute normEps; the op cannot run without it.",
                    fail_example=eg.ex(eg.ARN, norm_eps=None), pass_example=eg.ex(eg.ARN),
                    fix="Add norm_eps with the model's rms_norm_eps (e.g. 1.0e-6)."))
EXPAND_X_DTYPE = rule("MC802", "add-rms-norm-expand-x-dtype", "error", "CANN 8.5: combine_add_rms_norm takes only BF16 expand_x", family=_F,
                      source="R85 combine_add_rms_norm tiling L502-504",
                      docs=lambda: dict(
                          why=eg.ARN_TILING + " CANN 8.5 takes expand_x only as BF16 (tiling L502-504); 9.0 adds FP16.",
                          fail_example=eg.ex(eg.ARN_85, x_dtype="fp16"), pass_example=eg.ex(eg.ARN_85),
                          fix="Use bf16 activations, or CANN 9.0 or newer."))
RESIDUAL = rule("MC803", "add-rms-norm-residual-x", "error", "residual_x is BF16 with shape (bs, 1, h)", family=_F,
                source="CV2T[M] L363-428, L981-1054",
                docs=lambda: dict(
                    why=eg.ARN_TILING + " residual_x (the input of the Add) must be BF16 with shape (bs, 1, h).",
                    fail_example=eg.ex(eg.ARN, residual_x_shape=[128, 1, 4096]),
                    pass_example=eg.ex(eg.ARN, residual_x_shape=[128, 1, 7168]),
                    fix="Pass residual_x as a BF16 tensor of shape (bs, 1, h)."))
GAMMA = rule("MC804", "add-rms-norm-gamma", "error", "gamma is BF16 with shape (h,)", family=_F, source="CV2T[M] L363-428, L981-1054",
             docs=lambda: dict(
                 why=eg.ARN_TILING + " gamma (the RmsNorm weight) must be BF16 with shape (h,).",
                 fail_example=eg.ex(eg.ARN, gamma_dtype="fp16"), pass_example=eg.ex(eg.ARN, gamma_shape=[7168]),
                 fix="Pass gamma as a BF16 tensor of shape (h,)."))
LOCAL_NOTE = rule("MC805", "add-rms-norm-local-experts", "info",
                  "CANN 8.5: the combine itself only needs local_expert_num > 0; the 2048 limit comes from the paired dispatch", family=_F,
                  source="R85 combine_add_rms_norm tiling L1049-1050",
                  docs=lambda: dict(
                      why="Nothing fails in the combine: CANN 8.5's combine_add_rms_norm tiling only needs "
                          "local_expert_num > 0, but the dispatch it is paired with (aclnn DispatchV3) rejects "
                          "local_expert_num * ep_world_size > 2048 (MC202, reported next to this note).",
                      fail_example=eg.ex(eg.ARN_85, bs=16, ep_world_size=16, moe_expert_num=1024, shared_expert_num=4,
                                      shared_expert_rank_num=12, env={"HCCL_BUFFSIZE": 4096}),
                      pass_example=eg.ex(eg.ARN_85), fix="Fix MC202: fewer experts per rank, or more MoE ranks."))
SCALE_DOWN = rule("MC806", "add-rms-norm-elastic-scale-down", "error",
                  "elastic scale-down keeps the MoE experts per rank; elastic_scale_down needs elastic_info", family=_F,
                  source="seed 001 constraints (动态缩容)",
                  docs=lambda: dict(
                      why="After an elastic scale-down the op assumes every remaining MoE rank keeps the same "
                          "local_expert_num (the op page's scale-down constraint); a different count routes tokens to experts "
                          "no rank holds (wrong output or a hang). elastic_scale_down describes the elastic_info tensor, "
                          "which the op reads only with elastic_info.",
                      fail_example=eg.ex(eg.ARN, elastic_info=True, elastic_scale_down={"ep_world_size": 28, "moe_expert_num": 256}),
                      pass_example=eg.ex(eg.ARN, elastic_info=True, elastic_scale_down=eg.SCALE_DOWN_28),
                      fix="Leave moe_expert_num out of elastic_scale_down (moecfg derives local_expert_num * ranks left), "
                          "or set it to that product; set elastic_info: true."))
DOC_WINDOW = rule("MC807", "add-rms-norm-documented-window", "info",
                  "the EP buffer the seed page documents, next to the code's requirement (the verdict)", family=_F,
                  source="seed 001 HCCL_BUFFSIZE; CWS[M] L110-124", tags=("buffer",),
                  docs=lambda: dict(
                      why="Nothing fails: the aclnnMoeDistributeCombineAddRmsNormV2 page sizes HCCL_BUFFSIZE with its "
                          "own formula, which differs from the code's check (MC501, the verdict). Both figures are shown so "
                          "you can tell which one your sizing followed. Hierarchy has no documented formula.",
                      fail_example=eg.ex(eg.ARN),
                      pass_example=eg.ex(eg.ARN, comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": 4096}),
                      fix="Size HCCL_BUFFSIZE by the code's figure; nothing to change while MC501 is silent."))


def product_unsupported(product: str, ruleset_name: str):
    yield Finding(PRODUCT.code, ("product",), f"op combine_add_rms_norm is not available on {product} (CANN "
                  f"{ruleset_name} ships no {product} binary, only Atlas A3); use op dispatch_combine_v2 and a "
                  "separate Add + RmsNorm on A2, or product A3")


def norm_eps(cfg, f):
    eps = cfg.norm_eps
    if eps is None:
        yield finding(NORM_EPS, (), "op combine_add_rms_norm needs `norm_eps` (attr normEps, the model's "
                      "rms_norm_eps, e.g. norm_eps: 1.0e-6)")
    elif eps <= 0:
        yield finding(NORM_EPS, "norm_eps", f"`norm_eps` = {eps:g}: RmsNorm divides by sqrt(mean(x^2) + eps); "
                      "a non-positive eps can divide by zero (the tiling does not check the value)", WARNING)


def expand_x_dtype(cfg, f):
    dtype = cfg.base.x_dtype
    if dtype in ("bf16", "fp16") and dtype not in f.limits.expand_x_dtypes:
        yield finding(EXPAND_X_DTYPE, "x_dtype", f"`x_dtype` = {dtype}: combine_add_rms_norm takes expand_x only as "
                      f"{' or '.join(f.limits.expand_x_dtypes)} ({where(cfg.base, f)}); use bf16 or CANN 9.0+")


def residual_x(cfg, f):
    b = cfg.base
    if cfg.residual_x_dtype not in f.limits.residual_dtypes:
        yield finding(RESIDUAL, "residual_x_dtype", f"`residual_x_dtype` = {cfg.residual_x_dtype}: residual_x must be "
                      f"{'/'.join(f.limits.residual_dtypes)}")
    want = (b.bs, 1, b.h)
    if cfg.residual_x_shape is not None and tuple(cfg.residual_x_shape) != want:
        yield finding(RESIDUAL, "residual_x_shape", f"`residual_x_shape` = {list(cfg.residual_x_shape)} must be "
                      f"(bs, 1, h) = {list(want)}")


def gamma(cfg, f):
    if cfg.gamma_dtype not in f.limits.gamma_dtypes:
        yield finding(GAMMA, "gamma_dtype", f"`gamma_dtype` = {cfg.gamma_dtype}: gamma must be "
                      f"{'/'.join(f.limits.gamma_dtypes)}")
    if cfg.gamma_shape is not None and tuple(cfg.gamma_shape) != (cfg.base.h,):
        yield finding(GAMMA, "gamma_shape", f"`gamma_shape` = {list(cfg.gamma_shape)} must be (h,) = [{cfg.base.h}]")


def local_experts(cfg, f):
    local, ep = f.base.local_moe, cfg.base.ep_world_size
    cap = f.base.limits.local_x_ep_max
    if f.limits.local_x_ep_max is None and local is not None and local * ep > cap:
        yield finding(LOCAL_NOTE, "moe_expert_num", f"local_expert_num * ep_world_size = {local * ep} > {cap}: the "
                      f"CANN {f.ruleset.name} combine_add_rms_norm tiling itself only needs local_expert_num > 0; the "
                      "error (MC202) comes from the dispatch it must be paired with (aclnn DispatchV3)")


def after_scale_down(cfg, f) -> dict | None:
    """The deployment after the scale-down, with defaults filled; None without elastic_scale_down."""
    esd, b = cfg.elastic_scale_down, cfg.base
    if esd is None:
        return None
    ep = esd["ep_world_size"]
    shared = esd["shared_expert_rank_num"] if esd.get("shared_expert_rank_num") is not None else b.shared_expert_rank_num
    local = f.base.local_moe
    moe = esd.get("moe_expert_num")
    if moe is None and local is not None:
        moe = local * (ep - shared)
    moe_ranks = ep - shared
    after_local = moe // moe_ranks if (moe is not None and moe_ranks > 0) else None
    return {"ep_world_size": ep, "shared_expert_rank_num": shared, "moe_expert_num": moe,
            "local_expert_num": after_local}


def elastic_scale_down(cfg, f):
    after, b = after_scale_down(cfg, f), cfg.base
    if after is None:
        return
    path = ("elastic_scale_down",)
    if not b.elastic_info:
        yield finding(SCALE_DOWN, path, "elastic_scale_down describes the elastic_info tensor; set elastic_info: true")
    ep, shared, moe = after["ep_world_size"], after["shared_expert_rank_num"], after["moe_expert_num"]
    if not 2 <= ep <= b.ep_world_size:
        yield finding(SCALE_DOWN, path + ("ep_world_size",), f"`elastic_scale_down.ep_world_size` = {ep} must be in "
                      f"[2, {b.ep_world_size}]: a scale-down keeps at most the ranks the communicator was built with")
        return
    if not 0 <= shared <= b.shared_expert_rank_num or shared >= ep:
        yield finding(SCALE_DOWN, path + ("shared_expert_rank_num",), f"`elastic_scale_down.shared_expert_rank_num` "
                      f"= {shared} must be in [0, {min(b.shared_expert_rank_num, ep - 1)}] (at most the shared ranks "
                      "before, and fewer than the ranks left)")
        return
    local = f.base.local_moe
    if local is None or moe is None:
        return
    want = local * (ep - shared)
    if moe != want:
        yield finding(SCALE_DOWN, path + ("moe_expert_num",), f"`elastic_scale_down.moe_expert_num` = {moe}: each "
                      f"MoE rank must keep local_expert_num = {local} experts after the scale-down, so "
                      f"{local} * ({ep} - {shared}) = {want} experts stay deployed (seed: 动态缩容后本卡部署MOE专家数需与"
                      "缩容前保持一致)")
    elif moe > b.moe_expert_num:
        yield finding(SCALE_DOWN, path + ("moe_expert_num",), f"`elastic_scale_down.moe_expert_num` = {moe} exceeds "
                      f"moe_expert_num = {b.moe_expert_num}: losing ranks cannot add experts")


def documented_ep_bytes(cfg, f) -> int | None:
    """The seed page's EP requirement in bytes (flat algorithms only; None when not computable)."""
    b = cfg.base
    if f.base.layered or not buffers.computable(b, f.base) or f.base.local_moe is None:
        return None
    return arx.add_rms_norm_doc_ep_window_bytes(b.bs, b.h, b.k, b.ep_world_size, f.base.local_moe)


def documented_window(cfg, f):
    doc = documented_ep_bytes(cfg, f)
    reqs = {r.domain: r for r in buffers.requirements(cfg.base, f.base)}
    if doc is None or "ep" not in reqs:
        return
    code = reqs["ep"]
    yield finding(DOC_WINDOW, code.config_path, f"EP buffer: the code (combine v2 window, the verdict) needs "
                  f"{code.required_mb} MB ({code.required_bytes} B); the aclnnMoeDistributeCombineAddRmsNormV2 page "
                  f"documents 1024^2 * (HCCL_BUFFSIZE - 2) / 2 >= BS * 2 * (H + 128) * (ep * local + K + 1), i.e. "
                  f"HCCL_BUFFSIZE >= {fx.ceil_mb(doc)} MB ({doc} B); configured {code.configured_mb} MB")


CHECKS = (norm_eps, expand_x_dtype, residual_x, gamma, local_experts, elastic_scale_down, documented_window)
