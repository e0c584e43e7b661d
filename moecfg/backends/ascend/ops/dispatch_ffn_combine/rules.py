"""vllm-ascend dispatch_ffn_combine (MC880-MC884): its HCCL_BUFFSIZE check, max_output_size and workspace.

The op is vllm-ascend's own (csrc/mc2/dispatch_ffn_combine*, DFC = .../dispatch_ffn_combine_tiling.cpp
@182b75e). Its tiling reads env HCCL_BUFFSIZE itself (GetMaxWindowSize, DFC L62-84: parsed as uint16_t; unset,
unparsable or above 65535 -> 200 MB) and refuses M * topK * K * 3 + 10 MB above it (DFC L284-290). The error
text says "+ 3MB": the code adds 10 MB, and the MB figure it prints includes the 10 MB (moecfg follows the
code). Only the W8A8 variant checks; _bf16 and _w4_a8 have no host check of the window. The group's
hccl_buffer_size option is not consulted. The workspace grows with max_output_size (vllm-ascend's
`mega_moe_max_tokens`, default 131072): about 3h + 8 bytes per token for W8A8 (DFC L297-308), ~2.6 GiB for
DeepSeek-V3 at the default. Tokens beyond max_output_size on one rank are dropped from the computation
(ascend_config.py L277-283). vllm-ascend selects the op only on A3 and for EP <= 32, whatever the token count
(ascend_forward_context.py L247-254: `_select_a3_moe_comm_method` returns FUSED_MC2 before it looks at the tokens);
the 512 of L33-35 / L190-195 caps the MC2 token *capacity* per TP rank, not the choice of op.
"""
from __future__ import annotations

from moecfg.core.diagnostics import INFO, WARNING
from moecfg.core.registry import rule
from moecfg.backends.ascend.shared import fused_formulas as ff
from moecfg.backends.ascend.shared.formulas import INT32_MAX, ceil_mb
from moecfg.backends.ascend.shared.rules import finding
from moecfg.core.examples import ex

_F = "ascend-dispatch-ffn-combine"
_DFC = "vllm-ascend@182b75e csrc/mc2/dispatch_ffn_combine/op_host/dispatch_ffn_combine_tiling.cpp"
BASE = dict(product="A3", cann_version="latest", op="dispatch_ffn_combine", bs=512, h=7168, k=8, ep_world_size=16,
            moe_expert_num=256, intermediate_hidden=2048, max_output_size=65536, env={"HCCL_BUFFSIZE": 94})


def doc(**changes) -> str:
    """BASE (DeepSeek-V3 W8A8 on A3, EP 16, M = 512) with keys replaced, added or removed (None)."""
    return ex(BASE, **changes)


_OK = doc()
BUFFSIZE = rule(
    "MC880", "dfc-hccl-buffsize", "error", "W8A8 dispatch_ffn_combine: HCCL_BUFFSIZE >= M * topK * K * 3 + 10 MB",
    family=_F, products=("A2", "A3"), source=f"{_DFC} L62-84, L284-290; vllm-ascend PR #6130/#6131", tags=("buffer", "autofix"),
    why="The tiling refuses the call at the first forward (before PR #6130 the op ran and failed with 'MTE out of "
        "range'). Its message says '+ 3MB' but the code adds 10 MB; the MB value it prints is the code's.",
    cann_error="HCCL_BUFFSIZE is too SMALL, m = %lu, k = %lu, topK = %lu expected HCCL_BUFFSIZE is ((m * k * topK * "
               "sizeof(int8_t)) * 3 + 3MB)= %luMB, HCCL_BUFFSIZE=%luMB.",
    fail_example=doc(env={"HCCL_BUFFSIZE": 93}), pass_example=_OK,
    fix="Set HCCL_BUFFSIZE to at least ceil((M * topK * K * 3 + 10 MiB) / 1 MiB) MB.")
IGNORED = rule(
    "MC881", "dfc-hccl-buffsize-ignored", "warning", "HCCL_BUFFSIZE above 65535 (or negative) is ignored by "
    "dispatch_ffn_combine: it checks against 200 MB", family=_F, products=("A2", "A3"), source=f"{_DFC} L62-84",
    why="GetMaxWindowSize parses HCCL_BUFFSIZE into a uint16_t and falls back to 200 MB for larger values, while HCCL "
        "allocates the full size: the op's check and the real window disagree.",
    fail_example=doc(bs=64, max_output_size=8192, env={"HCCL_BUFFSIZE": 70000}),
    pass_example=doc(bs=64, max_output_size=8192, env={"HCCL_BUFFSIZE": 65535}),
    fix="Keep HCCL_BUFFSIZE at or below 65535 MB.")
MAX_OUTPUT = rule(
    "MC882", "dfc-max-output-size", "warning", "max_output_size below bs * ep * min(k, experts/rank): tokens beyond "
    "it are dropped (error when <= 0 or above INT32_MAX)", family=_F, products=("A2", "A3"), tags=("autofix",),
    source="vllm-ascend@182b75e vllm_ascend/ascend_config.py L277-290; dispatch_ffn_combine_tiling.cpp L94, L106",
    why="max_output_size is each rank's room for received tokens; under load imbalance a rank receiving more drops "
        "the excess from the computation (vllm-ascend: 'degrading accuracy'). vllm-ascend rejects values <= 0 and the "
        "tiling reads the attribute as a 32-bit int.",
    fail_example=doc(max_output_size=8192), pass_example=_OK,
    fix="Set mega_moe_max_tokens (max_output_size) to bs * ep_world_size * min(k, experts per rank).")
WORKSPACE = rule(
    "MC883", "dfc-workspace", "info", "max_output_size above the most tokens a rank can receive: workspace bytes "
    "spent for nothing", family=_F, products=("A2", "A3"), source=f"{_DFC} L297-308", tags=("device",),
    why="The op's workspace grows linearly with max_output_size (W8A8: 3h + 8 bytes per token); vllm-ascend's "
        "default 131072 costs ~2.6 GiB of device memory per rank for DeepSeek-V3, outside gpu_memory_utilization.",
    fail_example=doc(max_output_size=131072), pass_example=_OK,
    fix="Lower mega_moe_max_tokens to the worst case the message names.")
VLLM_GATE = rule(
    "MC884", "dfc-vllm-selection", "warning", "vllm-ascend runs dispatch_ffn_combine only on A3, for EP <= 32 and "
    "W8A8/W4A8 weights", family=_F, products=("A2", "A3"),
    source="vllm-ascend@182b75e vllm_ascend/ascend_forward_context.py L33-35, L190-195, L223-259; "
           "ops/fused_moe/moe_comm_method.py L424-428",
    why="Outside these limits vllm-ascend silently routes the layer to MC2 or all-to-all, so the deployment does not "
        "run the op this document describes. The token count does not change the choice (ascend_forward_context.py "
        "L247-254 returns FUSED_MC2 first); the 512-token figure of L33-35 caps the MC2 capacity only.",
    fail_example=doc(ep_world_size=64, moe_expert_num=512, max_output_size=262144), pass_example=_OK,
    fix="Describe the op vllm-ascend actually selects (dispatch_combine_v2), or stay within EP 32 on A3.")


def buffsize(cfg, f):
    if cfg.weight_dtype not in f.limits.checked_dtypes or f.least_bytes <= f.window_mb * ff.MIB:
        return
    need = ceil_mb(f.least_bytes)
    yield finding(BUFFSIZE, ("env", "HCCL_BUFFSIZE"), f"HCCL_BUFFSIZE is too SMALL for dispatch_ffn_combine: M * topK "
                  f"* K * 3 + 10 MB = {cfg.bs} * {cfg.k} * {cfg.h} * 3 + 10 MiB = {f.least_bytes} bytes = {need} MB, "
                  f"the op reads {f.window_mb} MB; set HCCL_BUFFSIZE >= {need} (the op's message says '+ 3MB', the "
                  "code adds 10 MB)", fix=_raised("HCCL_BUFFSIZE", need))


def _raised(var: str, need: int):
    """The fix: the variable raised to the window (none past the uint16 the op parses it into)."""
    from moecfg.core.fixes import Suggestion

    return Suggestion(("env", var), var, need) if need < 65536 else None


def _output_fix(safe: int):
    from moecfg.core.fixes import Suggestion

    return Suggestion(("max_output_size",), "max_output_size", safe) if safe <= INT32_MAX else None


def ignored(cfg, f):
    env = cfg.hccl_buffsize_env
    if env is not None and not 0 <= env <= f.limits.window_max_mb:
        yield finding(IGNORED, ("env", "HCCL_BUFFSIZE"), f"HCCL_BUFFSIZE = {env} does not fit dispatch_ffn_combine's "
                      f"uint16 parse: the op ignores it and checks against {f.limits.default_window_mb} MB; keep it "
                      f"<= {f.limits.window_max_mb}")


def max_output(cfg, f):
    mo, safe = cfg.max_output_size, f.safe_output
    if not 0 < mo <= INT32_MAX:
        yield finding(MAX_OUTPUT, "max_output_size", f"`max_output_size` = {mo} must be in [1, {INT32_MAX}] "
                      f"(vllm-ascend: \"mega_moe_max_tokens must be a positive integer\"; the tiling reads an int)",
                      "error")
    elif mo < safe:
        yield finding(MAX_OUTPUT, "max_output_size", f"`max_output_size` = {mo} is below bs * ep * min(k, experts/rank)"
                      f" = {cfg.bs} * {cfg.ep_world_size} * {min(cfg.k, f.experts_per_rank)} = {safe}: tokens beyond "
                      f"it on one rank are dropped from the computation; set it >= {safe}", WARNING,
                      fix=_output_fix(safe))


def workspace(cfg, f):
    mo, safe = cfg.max_output_size, f.safe_output
    if cfg.weight_dtype != "int8" and cfg.intermediate_hidden is None:
        yield finding(WORKSPACE, "weight_dtype", f"the {cfg.weight_dtype} variant's workspace has an N = 2 x "
                      "intermediate_hidden term: it is not computed without `intermediate_hidden` (the int8 variant "
                      "does not need it)", INFO)
        return
    if INT32_MAX >= mo > safe > 0 and f.workspace_bytes:
        lean = f.workspace_safe_bytes
        yield finding(WORKSPACE, "max_output_size", f"`max_output_size` = {mo}: the op's workspace is "
                      f"{f.workspace_bytes} bytes ({ceil_mb(f.workspace_bytes)} MB) of device memory; at most {safe} "
                      f"tokens can reach a rank, and max_output_size = {safe} needs {lean} bytes ({ceil_mb(lean)} MB)",
                      INFO)


def vllm_gate(cfg, f):
    lim, why = f.limits, []
    if cfg.product != "A3":
        why.append(f"product {cfg.product}: vllm-ascend selects fused MC2 on A3 only")
    if cfg.ep_world_size > lim.vllm_ep_max:
        why.append(f"ep_world_size = {cfg.ep_world_size} > {lim.vllm_ep_max}")
    if cfg.weight_dtype == "bf16":
        yield finding(VLLM_GATE, "weight_dtype", "weight_dtype bf16: vllm-ascend runs dispatch_ffn_combine only for "
                      "W8A8/W4A8 and otherwise fails its assertion \"w1_scale_bias and w2_scale_bias cannot be None "
                      "when enable_fused_mc2=1.\" (moe_comm_method.py L424-428)")
    if why:
        path = "product" if cfg.product != "A3" else "ep_world_size"
        yield finding(VLLM_GATE, path,
                      f"vllm-ascend would not run dispatch_ffn_combine here ({'; '.join(why)}): it falls back to MC2 / "
                      "all-to-all / all-gather (dispatch_combine_v2)")


def group(cfg, f):
    """The op's `group` modelled as dispatch_v2's group_ep (MC110): the tiling refuses a null or empty name
    (`groupPtr == nullptr || strlen(groupPtr) == 0` -> "group is invalid.", DFC L98-99; the _bf16 and _w4_a8
    variants the same)."""
    from moecfg.backends.ascend.shared.rules.attrs import GROUP

    if cfg.group is not None and len(cfg.group) == 0:
        yield finding(GROUP, "group", "`group` is empty: dispatch_ffn_combine's tiling refuses it (\"group is "
                      "invalid.\", dispatch_ffn_combine_tiling.cpp:98-99); pass the EP communicator's name")


CHECKS = (buffsize, ignored, max_output, workspace, vllm_gate, group)
