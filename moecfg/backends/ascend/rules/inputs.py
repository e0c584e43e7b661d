"""Optional inputs and the global batch (MC4xx).

`global_bs` is 0 or max_bs * ep_world_size: on A3 a non-zero value below bs * ep or not divisible by ep is
refused, and a global_bs above bs * ep (ranks with different bs) cannot be combined with x_active_mask.
`scales` is only for quant_mode 2 (A2 INT32 x excepted). A2 refuses elastic_info. A3 in CANN 8.5 refuses
performance_info (added in 9.0, aclnn V4).
"""
from __future__ import annotations

from moecfg.core.registry import lazy_module, rule
from moecfg.backends.ascend.rules import finding, where

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.ascend.rules.examples_base")
_F = "ascend-inputs"
GLOBAL_BS = rule("MC401", "global-bs", "error", "A3: global_bs is 0 or a multiple of ep_world_size >= bs * ep_world_size", family=_F,
                 source="DV2T[M] L998-1006",
                 docs=lambda: dict(
                     why=eg.TILING, cann_error="globalBS is invalid", fail_example=eg.ex(eg.A3, global_bs=100),
                     pass_example=eg.ex(eg.A3, global_bs=4096), fix="global_bs is 0 or max_bs * ep_world_size."))
GLOBAL_BS_MASK = rule("MC402", "global-bs-with-mask", "error", "A3: variable bs per rank cannot be combined with x_active_mask", family=_F,
                      source="DV2T[M] L1007-1012",
                      docs=lambda: dict(
                          why=eg.TILING,
                          fail_example=eg.ex(eg.A3, global_bs=8192, x_active_mask="1d", env={"HCCL_BUFFSIZE": 2048}),
                          pass_example=eg.ex(eg.A3, global_bs=8192, env={"HCCL_BUFFSIZE": 2048}),
                          fix="Use the same bs on every rank, or drop x_active_mask."))
SCALES = rule("MC403", "scales-without-quant", "error", "scales is passed only with quant_mode 2", family=_F,
              source="DV2A22[M] L787-795, L505-509",
              docs=lambda: dict(
                  why=eg.TILING, cann_error="quant mode and scales not match", fail_example=eg.ex(eg.A3, scales=True),
                  pass_example=eg.ex(eg.A3, scales=True, quant_mode=2), fix="Pass scales only with quant_mode 2."))
ELASTIC = rule("MC404", "elastic-info-unsupported", "error", "A2 refuses elastic_info", family=_F, source="DV2A22[M] L423-427",
               docs=lambda: dict(
                   why=eg.TILING, fail_example=eg.ex(eg.A2, elastic_info=True), pass_example=eg.ex(eg.A2),
                   fix="Remove elastic_info on A2."))
PERF = rule("MC405", "performance-info-unsupported", "error", "A3 in CANN 8.5 refuses performance_info", family=_F,
            source="R85 DV2T L858-860",
            docs=lambda: dict(
                why=eg.TILING, cann_error="performanceInfo should be nullptr.",
                fail_example=eg.ex(eg.A3, cann_version="8.5", performance_info=True),
                pass_example=eg.ex(eg.A3, performance_info=True), fix="performance_info needs CANN 9.0+ on A3."))


def global_bs(cfg, f):
    if cfg.product != "A3" or cfg.global_bs == 0 or cfg.ep_world_size <= 0:
        return
    g, floor = cfg.global_bs, cfg.bs * cfg.ep_world_size
    if g < floor or g % cfg.ep_world_size:
        yield finding(GLOBAL_BS, "global_bs", f"`global_bs` = {g} must be 0 or max_bs * ep_world_size (a multiple of "
                      f"{cfg.ep_world_size}, at least bs * ep_world_size = {floor}); CANN: \"globalBS is invalid\"")
    elif g > floor and cfg.x_active_mask != "none":
        yield finding(GLOBAL_BS_MASK, "x_active_mask", f"global_bs = {g} > bs * ep_world_size = {floor} (different bs "
                      "per rank) cannot be combined with x_active_mask; CANN: \"Different bs on different rank cannot "
                      "work when isActiveMask=true\"")


def scales(cfg, f):
    if cfg.scales and cfg.quant_mode == 0 and not (cfg.product == "A2" and cfg.x_dtype == "int32"):
        yield finding(SCALES, "scales", "scales is passed but quant_mode is 0; pass scales only with quant_mode 2; "
                      "CANN: \"quant mode and scales not match\"")


def optional_inputs(cfg, f):
    if cfg.product == "A2" and cfg.elastic_info:
        yield finding(ELASTIC, "elastic_info", "A2 does not support elastic_info; CANN: \"current does not support "
                      "elasticInfo as input\"")
    if cfg.product == "A3" and cfg.performance_info and not f.limits.performance_info:
        yield finding(PERF, "performance_info", f"performance_info is not supported ({where(cfg, f)}; it needs aclnn "
                      "MoeDistributeDispatchV4, CANN 9.0+); CANN: \"performanceInfo should be nullptr.\"")


CHECKS = (global_bs, scales, optional_inputs)
