"""Communication algorithm (MC3xx): which `comm_alg` each product and release accepts, and what each
algorithm refuses.

A3 accepts "", "fullmesh_v1", "fullmesh_v2", and "hierarchy" since CANN 9.0 (the ops-transformer docs
say A3 ignores comm_alg; the code does not). `fullmesh_v2`: BS <= 256, K <= 12; in 8.5 also no
elastic_info, special experts, 2-D x_active_mask or variable BS; 8.5-9.1 not with tp_world_size = 2; and
from 9.0 its UB estimate must fit the core's 192 KB. `hierarchy` (A3): no shared-expert ranks,
elastic_info, special experts, 2-D mask or performance_info; expert_scales is mandatory; every rank must
send max_bs tokens. A2 accepts "" (the HCCL_INTRA_PCIE_ENABLE=1 / HCCL_INTRA_ROCE_ENABLE=0 environment
then selects hierarchy), "fullmesh" and "hierarchy"; since 9.0 an ep_world_size <= 8 always runs
fullmesh. Combine v2 on A3 does not validate comm_alg at all (a typo silently means flat); dispatch does.
"""
from __future__ import annotations

from moecfg.core.diagnostics import WARNING
from moecfg.core.registry import lazy_module, rule
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.shared.rules import finding, where

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.ascend.shared.rules.examples_base")
_F = "ascend-comm-alg"
UNSUPPORTED = rule("MC301", "comm-alg-unsupported", "error", "comm_alg accepted by this product and release", family=_F,
                   source="DV2A22[M] L799-808 (A3), L90-130 (A2); R85 DV2T L552-554",
                   docs=lambda: dict(
                       why=eg.TILING, cann_error="commAlg is not support",
                       fail_example=eg.ex(eg.A3, comm_alg="fullmesh"),
                       pass_example=eg.ex(eg.A3, comm_alg="fullmesh_v1"),
                       fix="Use a comm_alg the product and release accept (the message lists them)."))
RESOLVED = rule("MC302", "comm-alg-resolved", "info", "how an implicit comm_alg was resolved (A2 env vars, small EP)", family=_F,
                source="DV2A22[M] L90-130",
                docs=lambda: dict(
                    why="Informational: which algorithm the op will actually run, since the buffer and limits depend on it.",
                    fail_example=eg.ex(eg.A2, comm_alg='""', expert_scales=True,
                                    env={"HCCL_BUFFSIZE": 2048, "HCCL_INTRA_PCIE_ENABLE": 1, "HCCL_INTRA_ROCE_ENABLE": 0}),
                    pass_example=eg.ex(eg.A2), fix="Set comm_alg explicitly."))
FM2_BS = rule("MC303", "fullmesh-v2-bs", "error", "fullmesh_v2: bs <= 256", family=_F, source="DV2T[M] L920-927",
              docs=lambda: dict(
                  why=eg.TILING, cann_error="When comm_alg is fullmesh_v2, bs should be between [1, 256]",
                  fail_example=eg.ex(eg.A3, comm_alg="fullmesh_v2", bs=512, env={"HCCL_BUFFSIZE": 4096}),
                  pass_example=eg.ex(eg.A3, comm_alg="fullmesh_v2"),
                  fix="bs <= 256 with fullmesh_v2, or use fullmesh_v1."))
FM2_K = rule("MC304", "fullmesh-v2-top-k", "error", "fullmesh_v2: k <= 12", family=_F, source="DV2T[M] L929-932",
             docs=lambda: dict(
                 why=eg.TILING, fail_example=eg.ex(eg.A3, comm_alg="fullmesh_v2", k=16),
                 pass_example=eg.ex(eg.A3, comm_alg="fullmesh_v2"),
                 fix="k <= 12 with fullmesh_v2, or use fullmesh_v1."))
FM2_FEATURE = rule("MC305", "fullmesh-v2-unsupported-feature", "error",
                   "fullmesh_v2 refuses elastic_info, special experts, 2-D mask, variable BS (8.5) and tp = 2 (8.5-9.1)", family=_F,
                   source="R85 DV2T L633-643, L701-703",
                   docs=lambda: dict(
                       why=eg.TILING, cann_error="Cannot support elasticInfo when comm_alg = fullmesh_v2",
                       fail_example=eg.ex(eg.A3, cann_version="8.5", comm_alg="fullmesh_v2", elastic_info=True),
                       pass_example=eg.ex(eg.A3, cann_version="8.5", comm_alg="fullmesh_v2"),
                       fix="Drop the feature or use fullmesh_v1 (or a newer CANN where the restriction is lifted)."))
HIER_FEATURE = rule("MC306", "hierarchy-unsupported-feature", "error",
                    "hierarchy refuses shared-expert ranks, elastic_info, special experts, 2-D mask, performance_info", family=_F,
                    source="DV2T[M] L794-800, L933-944",
                    docs=lambda: dict(
                        why=eg.TILING,
                        fail_example=eg.ex(eg.A3, comm_alg="hierarchy", expert_scales=True, elastic_info=True, env={"HCCL_BUFFSIZE": 4096}),
                        pass_example=eg.ex(eg.A3, comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": 4096}),
                        fix="hierarchy runs without shared-expert ranks, elastic_info, special experts, 2-D masks and performance_info."))
HIER_SCALES = rule("MC307", "hierarchy-expert-scales", "error", "hierarchy needs the expert_scales input", family=_F,
                   source="DV2T[M] L207-384 (A3); DV2A22[M] L419-422 (A2)",
                   docs=lambda: dict(
                       why=eg.TILING, cann_error="expertScales is null.",
                       fail_example=eg.ex(eg.A3, comm_alg="hierarchy", env={"HCCL_BUFFSIZE": 4096}),
                       pass_example=eg.ex(eg.A3, comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": 4096}),
                       fix="Pass expert_scales (the routing weights) to dispatch."))
HIER_VARBS = rule("MC308", "hierarchy-variable-bs", "error", "A3 hierarchy: every rank sends max_bs tokens (bs == global_bs / ep)", family=_F,
                  source="CWS[M] L75-79",
                  docs=lambda: dict(
                      why=eg.TILING, cann_error="Layered cannot support variableBs",
                      fail_example=eg.ex(eg.A3, comm_alg="hierarchy", expert_scales=True, global_bs=8192, env={"HCCL_BUFFSIZE": 8192}),
                      pass_example=eg.ex(eg.A3, comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": 4096}),
                      fix="With hierarchy every rank sends max_bs tokens: global_bs = bs * ep_world_size (or 0)."))
FM2_UB = rule("MC310", "fullmesh-v2-ub-overflow", "error", "A3 fullmesh_v2: the kernel's UB estimate fits 192 KB (CANN 9.0+)", family=_F,
              source="DV2T[M] L1592-1738, L1897-1900",
              docs=lambda: dict(
                  why=eg.TILING, cann_error="Current scenario is exceeds the size limit",
                  fail_example=eg.ex(eg.A3, comm_alg="fullmesh_v2", bs=256, h=8192, k=12, ep_world_size=516, moe_expert_num=1024,
                                  shared_expert_num=4, shared_expert_rank_num=4, x_active_mask="2d", zero_expert_num=1,
                                  elastic_info=True, env={"HCCL_BUFFSIZE": 10240}),
                  pass_example=eg.ex(eg.A3, comm_alg="fullmesh_v2"), fix="Lower bs, h or k, or use fullmesh_v1."))


def accepted(cfg, f):
    lim = f.limits
    if cfg.product == "A3":
        if cfg.comm_alg not in lim.comm_algs:
            shown = ", ".join(repr(a) for a in lim.comm_algs)
            hint = ""
            if cfg.comm_alg == "hierarchy":
                hint = "; A3 hierarchy needs CANN 9.0 or newer"
            elif cfg.comm_alg == "fullmesh":
                hint = "; `fullmesh` is the A2 name, A3 uses fullmesh_v1 or fullmesh_v2"
            yield finding(UNSUPPORTED, "comm_alg", f"`comm_alg` = {cfg.comm_alg!r} is not accepted by dispatch v2 "
                          f"({where(cfg, f)}); accepted: {shown}{hint}")
        return
    if f.alg:
        if f.alg_reason:
            yield finding(RESOLVED, "comm_alg", f"resolved comm_alg: {f.alg} ({f.alg_reason})"
                          + ("; set comm_alg explicitly (the torch_npu docs recommend 'hierarchy')" if cfg.comm_alg in ("", "0") else ""))
        return
    hint = "; fullmesh_v1/fullmesh_v2 are A3 names" if cfg.comm_alg.startswith("fullmesh_") else ""
    yield finding(UNSUPPORTED, "comm_alg", f"`comm_alg` = {cfg.comm_alg!r} is not accepted on A2 ({where(cfg, f)}); "
                  f"accepted: '', 'fullmesh', 'hierarchy'{hint}; CANN: \"commAlg is not support\"")


def fullmesh_v2(cfg, f):
    if cfg.product != "A3" or f.alg != "fullmesh_v2":
        return
    lim = f.limits
    if cfg.bs > lim.fm2_bs_max:
        yield finding(FM2_BS, "bs", f"`bs` = {cfg.bs} exceeds {lim.fm2_bs_max} with comm_alg fullmesh_v2; use "
                      "fullmesh_v1 or bs <= 256; CANN: \"When comm_alg is fullmesh_v2, bs should be between [1, 256]\"")
    if cfg.k > lim.fm2_k_max:
        yield finding(FM2_K, "k", f"`k` = {cfg.k} exceeds {lim.fm2_k_max} with comm_alg fullmesh_v2; CANN: "
                      "\"When comm_alg is fullmesh_v2, topK should be between [1, 12]\"")
    features = {
        "elastic": (cfg.elastic_info, "elastic_info", "elastic_info"),
        "special": (cfg.special_experts > 0, "zero_expert_num", "zero/copy/const experts"),
        "mask2d": (cfg.x_active_mask == "2d", "x_active_mask", "a 2-D x_active_mask"),
        "variable_bs": (f.global_bs is not None and f.global_bs > cfg.bs * cfg.ep_world_size, "global_bs",
                        "different bs on different ranks (global_bs > bs * ep_world_size)"),
        "tp2": (cfg.tp_world_size == 2, "tp_world_size", "tp_world_size = 2"),
    }
    for key in lim.fm2_rejects:
        on, path, label = features[key]
        if on:
            yield finding(FM2_FEATURE, path, f"comm_alg fullmesh_v2 does not support {label} ({where(cfg, f)})")


def hierarchy(cfg, f):
    if not f.layered:
        return
    if not cfg.expert_scales:
        yield finding(HIER_SCALES, "expert_scales", f"comm_alg hierarchy needs the expert_scales input "
                      f"({cfg.product}); set expert_scales: true and pass it; CANN: \"expertScales is null.\"")
    if cfg.product == "A2":
        if cfg.zero_expert_num or cfg.copy_expert_num:
            yield finding(HIER_FEATURE, "zero_expert_num", "the torch_npu docs say A2 hierarchy does not support "
                          "zero/copy experts (the tiling code does not check it)", WARNING)
        return
    lim = f.limits
    features = {
        "elastic": (cfg.elastic_info, "elastic_info", "elastic_info"),
        "special": (cfg.special_experts > 0, "zero_expert_num", "zero/copy/const experts"),
        "mask2d": (cfg.x_active_mask == "2d", "x_active_mask", "a 2-D x_active_mask"),
        "performance_info": (cfg.performance_info, "performance_info", "performance_info"),
    }
    for key in lim.hier_rejects:
        on, path, label = features[key]
        if on:
            yield finding(HIER_FEATURE, path, f"comm_alg hierarchy does not support {label} ({where(cfg, f)})")
    if cfg.shared_expert_rank_num != 0:
        yield finding(HIER_FEATURE, "shared_expert_rank_num", f"comm_alg hierarchy does not support shared-expert "
                      f"ranks (shared_expert_rank_num = {cfg.shared_expert_rank_num}); set it to 0")
    if lim.legacy_tp and cfg.tp_world_size > lim.hierarchy.tp_max:
        yield finding(HIER_FEATURE, "tp_world_size", f"comm_alg hierarchy needs tp_world_size <= {lim.hierarchy.tp_max} "
                      f"({where(cfg, f)})")
    if f.max_bs is not None and cfg.bs != f.max_bs:
        yield finding(HIER_VARBS, "global_bs", f"comm_alg hierarchy cannot run with different bs per rank: bs = {cfg.bs}, "
                      f"max_bs = global_bs / ep_world_size = {f.max_bs}; CANN: \"Layered cannot support variableBs\"")


def fullmesh_v2_ub(cfg, f):
    lim = f.limits
    if cfg.product != "A3" or f.alg != "fullmesh_v2" or not lim.fm2_ub_check:
        return
    if min(cfg.bs, cfg.h, cfg.k, cfg.moe_expert_num) <= 0 or f.moe_ranks <= 0:
        return
    ub = ub_bytes(cfg, f)
    if ub > lim.ub_bytes:
        yield finding(FM2_UB, "h", f"fullmesh_v2 UB estimate {ub} bytes exceeds the {lim.ub_bytes}-byte UB of an AIV "
                      f"core (bs = {cfg.bs}, h = {cfg.h}, k = {cfg.k}); reduce bs or h, drop the mask, or use "
                      "fullmesh_v1; CANN: \"Current scenario is exceeds the size limit\"")


def ub_bytes(cfg, f) -> int:
    return fx.a3_fullmesh_v2_ub_bytes(
        bs=cfg.bs, h=cfg.h, k=cfg.k, moe_expert_num=cfg.moe_expert_num,
        shared_expert_rank_num=cfg.shared_expert_rank_num, shared_expert_num=f.shared_num,
        quant_mode=cfg.quant_mode, has_scales=cfg.scales, scales_col=cfg.h, scales_tsize=4,
        has_mask=cfg.x_active_mask != "none", is_expert_mask=cfg.x_active_mask == "2d",
        special_experts=cfg.special_experts, elastic=cfg.elastic_info, ep_world_size=cfg.ep_world_size,
        aiv_num=f.limits.aiv_num)


CHECKS = (accepted, fullmesh_v2, hierarchy, fullmesh_v2_ub)
