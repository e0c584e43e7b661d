"""Optional inputs and the global batch (MC4xx).

`global_bs` is 0 or max_bs * ep_world_size: on A3 a non-zero value below bs * ep or not divisible by ep is
refused, and a global_bs above bs * ep (ranks with different bs) cannot be combined with x_active_mask.
`scales` is only for quant_mode 2 (A2 INT32 x excepted). A2 refuses elastic_info. A3 in CANN 8.5 refuses
performance_info (added in 9.0, aclnn V4).

`api` names the entry point when it is not torch_npu: aclnnMoeDistributeDispatchV2/CombineV2 take no
elastic_info, special experts or their tensors, V3 adds them, V4 adds performance_info (MC406). `aclnn_v5`
is context mode: graph ops MoeDistributeDispatchV3/CombineV3 (A3 only, CANN 9.0+) with a `ccl_buffer_size`
(bytes) instead of an HCCL communicator; the window is ccl_buffer_size - 1 MB, and comm_alg hierarchy is
refused by combine since 9.1 and by dispatch too on master (MC407). Combine's special experts read extra
tensors: copy experts need `ori_x`, const experts `ori_x`, `const_expert_alpha_1/2` and `const_expert_v`;
A2 takes none of the const tensors (MC408).
"""
from __future__ import annotations

from moecfg.core.diagnostics import WARNING
from moecfg.core.registry import lazy_module, rule
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.shared.rules import finding, where

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.ascend.shared.rules.examples_base")
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

_DOC = ("product: A3\ncann_version: latest\nbs: 128\nh: 7168\nk: 8\nep_world_size: 32\nmoe_expert_num: 256\n"
        "env:\n  HCCL_BUFFSIZE: 1024\n")
API_INPUTS = rule(
    "MC406", "aclnn-api-inputs", "error", "the chosen aclnn entry point has the inputs used (V2: no elastic_info or "
    "special experts; V2/V3: no performance_info)", family=_F,
    source="libochao-huawei/ops-transformer@5778144 mc2/moe_distribute_dispatch_v2/op_api/aclnn_moe_distribute_dispatch_v2.cpp "
    "L28-43, _v3.cpp L28-44, _v4.cpp; mc2/moe_distribute_combine_v2/op_api/aclnn_moe_distribute_combine_v2/v3/v4.cpp L29-44",
    why="aclnnMoeDistributeDispatchV2 / CombineV2 have no elasticInfo, zero/copy/const expert counts or the combine's "
    "ori_x / const_expert_* tensors (the base is called with nullptr and 0), and V3 has no performanceInfo: a caller "
    "of those entry points cannot pass the feature, so the deployment silently runs without it.",
    cann_error="(none: the argument does not exist in that aclnn signature)",
    fail_example=_DOC + "api: aclnn_v3\nperformance_info: true\n",
    pass_example=_DOC + "api: aclnn_v4\nperformance_info: true\n",
    fix="Call aclnnMoeDistributeDispatchV4 / CombineV4 (or torch_npu, which uses V4 where present), or drop the input.")
CONTEXT = rule(
    "MC407", "context-mode", "error", "aclnn V5 context mode: A3, CANN 9.0+, ccl_buffer_size >= 1 MB, no comm_alg "
    "hierarchy (combine 9.1+, dispatch master)", family=_F,
    source="libochao-huawei/ops-transformer@5778144 mc2/moe_distribute_dispatch_v3/op_host/moe_distribute_dispatch_v3_def.cpp "
    "L106, L149-150; CWS[M] L141-153; DV2T[M] L713-719; CV2T[M] L330-334; v9.1.0.pre CV2T L298-301; v9.0.0 CWS L92-93, L130-133",
    why="aclnnMoeDistributeDispatchV5 / CombineV5 run the graph ops MoeDistributeDispatchV3 / CombineV3 on a "
    "caller-made mc2 context: the op has no A2 (ascend910b) kernel, does not exist before CANN 9.0 (8a88dd6, "
    "2026-03-05), takes its window from the ccl_buffer_size attribute instead of HCCL_BUFFSIZE (the first 1 MB is "
    "state), and refuses the layered hierarchy algorithm.",
    cann_error="hierarchy does not support mc2 context mode",
    fail_example=_DOC + "api: aclnn_v5\nccl_buffer_size: 2147483648\ncomm_alg: hierarchy\nexpert_scales: true\n",
    pass_example=_DOC + "api: aclnn_v5\nccl_buffer_size: 2147483648\n",
    fix="Use context mode on A3 with CANN 9.0+, a flat comm_alg, and ccl_buffer_size >= the window + 1 MB (bytes).")
SPECIAL_TENSORS = rule(
    "MC408", "special-expert-tensors", "error", "combine: copy experts need ori_x; const experts need ori_x, "
    "const_expert_alpha_1/2 and const_expert_v (A2: no const tensors)", family=_F,
    source="CV2T[M] L1484-1507; CV2A22[M] L419-435; R85 CV2T L974-978; R90 CV2T L1213-1217",
    why="A copy expert returns the token itself, so combine reads the original x (ori_x); a const expert computes "
    "alpha_1 * x + alpha_2 * v and reads all four tensors. Without them combine's tiling refuses the call.",
    cann_error="oriX must exist when copyExpertNum > 0",
    fail_example=_DOC + "copy_expert_num: 2\n",
    pass_example=_DOC + "copy_expert_num: 2\nori_x: true\n",
    fix="Pass ori_x for copy experts; ori_x, const_expert_alpha_1, const_expert_alpha_2 and const_expert_v for "
    "const experts (A2: const experts are not supported).")
_V2_MISSING = (("elastic_info", "elastic_info"), ("zero_expert_num", "zero experts"), ("copy_expert_num", "copy experts"),
               ("const_expert_num", "const experts"), ("ori_x", "ori_x"), ("const_expert_alpha_1", "const_expert_alpha_1"),
               ("const_expert_alpha_2", "const_expert_alpha_2"), ("const_expert_v", "const_expert_v"))
_CONST_TENSORS = ("ori_x", "const_expert_alpha_1", "const_expert_alpha_2", "const_expert_v")


def api_inputs(cfg, f):
    used = []
    if cfg.api == "aclnn_v2":
        used = [(name, what) for name, what in _V2_MISSING if getattr(cfg, name)]
    if cfg.api in ("aclnn_v2", "aclnn_v3") and cfg.performance_info:
        used.append(("performance_info", "performance_info"))
    for name, what in used:
        need = "aclnn V4" if name == "performance_info" else "aclnn V3 or V4"
        yield finding(API_INPUTS, name, f"`{name}`: aclnnMoeDistributeDispatch/Combine{cfg.api[-2:].upper()} has no "
                      f"{what} argument; call {need} (or torch_npu) to use it, or drop it")


def context_mode(cfg, f):
    lim, ccl = f.limits, cfg.ccl_buffer_size
    if not cfg.context_mode:
        if ccl is not None:
            yield finding(CONTEXT, "ccl_buffer_size", "`ccl_buffer_size` is only read by api: aclnn_v5 (context mode); "
                          f"with api {cfg.api} the window is HCCL_BUFFSIZE / hccl_buffer_size", WARNING)
        return
    if cfg.product != "A3" or lim.context_rejects is None:
        why = "has no A2 (ascend910b) kernel" if cfg.product != "A3" else "does not exist before CANN 9.0"
        yield finding(CONTEXT, "api", f"api aclnn_v5 (context mode, op MoeDistributeDispatchV3) {why} ({where(cfg, f)}); "
                      "use api torch_npu or aclnn_v4 with HCCL_BUFFSIZE")
        return
    if ccl is None:
        yield finding(CONTEXT, "api", "api aclnn_v5 (context mode) needs `ccl_buffer_size` (bytes of the mc2 context's "
                      "CCL buffer): the window is ccl_buffer_size - 1 MB")
    elif ccl < 0:
        yield finding(CONTEXT, "ccl_buffer_size", f"`ccl_buffer_size` = {ccl} must be >= 0; CANN: \"cclBuffSizePtr is "
                      "invalid.\"")
    elif ccl < fx.MB and lim.context_window_wraps:
        yield finding(CONTEXT, "ccl_buffer_size", f"`ccl_buffer_size` = {ccl} bytes is below the 1 MB state area: CANN "
                      f"computes the window ccl_buffer_size - 1 MB in uint64, which wraps, so its size check passes and "
                      f"the kernel overruns the buffer ({where(cfg, f)}); set ccl_buffer_size >= the window + 1048576")
    if f.alg in lim.context_rejects:
        yield finding(CONTEXT, "comm_alg", f"comm_alg {f.alg} is refused in context mode ({where(cfg, f)}); use a flat "
                      "algorithm; CANN: \"hierarchy does not support mc2 context mode\" (dispatch), \"does not support "
                      "comm with context\" (combine)")


def special_tensors(cfg, f):
    if cfg.copy_expert_num > 0 and not cfg.ori_x:
        yield finding(SPECIAL_TENSORS, "copy_expert_num", f"`copy_expert_num` = {cfg.copy_expert_num} needs the combine "
                      "input ori_x (the tokens copy experts return); set ori_x: true; CANN: \"oriX must exist when "
                      "copyExpertNum > 0\"")
    missing = [n for n in _CONST_TENSORS if not getattr(cfg, n)]
    if cfg.const_expert_num > 0 and missing and cfg.product == "A3":  # A2 refuses const experts first (MC210)
        yield finding(SPECIAL_TENSORS, "const_expert_num", f"`const_expert_num` = {cfg.const_expert_num} needs the "
                      f"combine inputs {', '.join(_CONST_TENSORS)}; missing {', '.join(missing)}; CANN: \"oriX、alpha1、"
                      "alpha2、V must exist when constExpertNum > 0\"")
    passed = [n for n in _CONST_TENSORS[1:] if getattr(cfg, n)]
    if cfg.product == "A2" and passed:
        yield finding(SPECIAL_TENSORS, passed[0], f"A2 combine refuses {', '.join(passed)} ({where(cfg, f)}); drop "
                      "them; CANN: \"current version does not support const_expert_alpha_1/alpha_2/v\"")


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


CHECKS = (global_bs, scales, optional_inputs, api_inputs, context_mode, special_tensors)
