"""FfnWorkerBatching (MC84x): limits of the FFN-side token batching op (attention/FFN disaggregation).

Code limits (ffn_worker_batching_tiling.cpp, the verdict): expert_num in (0, 8192]; attention_workers (A)
in (0, 1024]; micro_batch_size (BS) > 0; top_k + 1 (K+1, the shared expert included) in (0, 64], so
top_k <= 63; hidden > 0; need_schedule 0 or 1; layer_num in [0, expert_num]; token_dtype fp16, bf16 or
int8 (0, 1, 2). Doc limits (the FfnWorkerBatching page): A <= 1024 (same), M (micro_batch_num) <= 64
(the tiling has no M: a warning) and K <= 64 (the code allows only 63: an error that quotes both).
torch_npu's ScheduleContextHolder refuses micro_batch_num = 0 and a token slot
(`attn_to_ffn_token_size`) that is not a multiple of 512; its FFN window must be larger than the aligned
token_info area, and token_data_buf must then hold A * M * BS * (K+1) slots. Not in CANN 8.5 (new in
2026-02).
"""
from __future__ import annotations

from moecfg.core.diagnostics import Finding, WARNING
from moecfg.core.registry import lazy_module, rule
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.ops.ffn_worker_batching import formulas as ffx
from moecfg.backends.ascend.shared.rules import finding

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.ascend.shared.rules.examples_base")
_F = "ascend-ffn-worker-batching"
UNAVAILABLE = rule("MC840", "ffn-unavailable", "error", "FfnWorkerBatching does not exist in CANN 8.5 (new in 2026-02)", family=_F,
                   source="§6: not in R85",
                   docs=lambda: dict(
                       why="CANN 8.5 has no FfnWorkerBatching op (it was added upstream in 2026-02): the aclnn call or the "
                           "torch_npu op is missing at the first call.",
                       fail_example=eg.ex(eg.FFN, cann_version="8.5"), pass_example=eg.ex(eg.FFN),
                       fix="Use CANN 9.0 or newer for attention/FFN disaggregation."))
EXPERT_NUM = rule("MC841", "ffn-expert-num", "error", "expert_num in (0, 8192]", family=_F, source="ffn_worker_batching_tiling.cpp L108-113",
                  docs=lambda: dict(
                      why=eg.FFN_TILING, cann_error="expert_num:8193 should be in range (0, 8192]",
                      fail_example=eg.ex(eg.FFN, expert_num=8193, layer_num=0), pass_example=eg.ex(eg.FFN),
                      fix="expert_num (experts per layer on this worker * layer_num) at most 8192; spread the layers over "
                          "more FFN workers."))
ATTENTION = rule("MC842", "ffn-attention-workers", "error", "attention_workers (A) in (0, 1024]", family=_F,
                 source="ffn_worker_batching_tiling.cpp L125-128",
                 docs=lambda: dict(
                     why=eg.FFN_TILING + " max_out_shape[0], the attention workers, is at most 1024.",
                     fail_example=eg.ex(eg.FFN, attention_workers=1025), pass_example=eg.ex(eg.FFN),
                     fix="At most 1024 attention workers per FFN worker."))
MICRO_BATCH = rule("MC843", "ffn-micro-batch", "error", "micro_batch_size > 0; micro_batch_num >= 1 (doc: <= 64)", family=_F,
                   source="tiling L129-130; torch_npu ScheduleContextHolder::CheckParams; FfnWorkerBatching doc",
                   docs=lambda: dict(
                       why="torch_npu's ScheduleContextHolder refuses micro_batch_num = 0 (\"micro_batch_num can't be 0\") "
                           "and the tiling a micro_batch_size <= 0; more than 64 micro batches is beyond the documented range "
                           "(a warning).", fail_example=eg.ex(eg.FFN, micro_batch_num=0), pass_example=eg.ex(eg.FFN),
                       fix="micro_batch_num in [1, 64], micro_batch_size >= 1."))
TOP_K = rule("MC844", "ffn-top-k", "error", "top_k + 1 in (0, 64] (code); the doc says top_k <= 64", family=_F,
             source="ffn_worker_batching_tiling.cpp L131-133",
             docs=lambda: dict(
                 why=eg.FFN_TILING + " max_out_shape[2] is top_k + 1 (the shared expert included) and at most 64, so "
                     "top_k <= 63 although the op page says top_k <= 64.", fail_example=eg.ex(eg.FFN, top_k=64),
                 pass_example=eg.ex(eg.FFN), fix="top_k <= 63 (routed experts per token, without the shared expert)."))
HIDDEN = rule("MC845", "ffn-hidden", "error", "hidden > 0", family=_F, source="ffn_worker_batching_tiling.cpp L134-137",
              docs=lambda: dict(
                  why=eg.FFN_TILING + " max_out_shape[3], the hidden size, must be positive.",
                  fail_example=eg.ex(eg.FFN, hidden=0), pass_example=eg.ex(eg.FFN),
                  fix="Write the model's hidden size."))
NEED_SCHEDULE = rule("MC846", "ffn-need-schedule", "error", "need_schedule is 0 or 1", family=_F,
                     source="ffn_worker_batching_tiling.cpp L153-159",
                     docs=lambda: dict(
                         why=eg.FFN_TILING + " need_schedule selects tiling key 100 (0) or 101 (1); no other kernel exists.",
                         fail_example=eg.ex(eg.FFN, need_schedule=2), pass_example=eg.ex(eg.FFN),
                         fix="need_schedule: 0 (batching only) or 1 (scan the data first)."))
LAYER_NUM = rule("MC847", "ffn-layer-num", "error", "layer_num in [0, expert_num]; expert_num = per-layer experts * layer_num", family=_F,
                 source="ffn_worker_batching_tiling.cpp L161-168; doc (expert_num)",
                 docs=lambda: dict(
                     why=eg.FFN_TILING + " layer_num is at most expert_num; an expert_num that is not a multiple of "
                         "layer_num (a warning) means the per-layer expert count is not what you think.",
                     fail_example=eg.ex(eg.FFN, layer_num=1161), pass_example=eg.ex(eg.FFN),
                     fix="layer_num in [0, expert_num], expert_num = experts per layer on this worker * layer_num."))
TOKEN_SLOT = rule("MC848", "ffn-token-slot", "error", "attn_to_ffn_token_size: a multiple of 512 holding one token", family=_F,
                  source="torch_npu ScheduleContextHolder::CheckParams; ScheduleContext comments",
                  docs=lambda: dict(
                      why="torch_npu's ScheduleContextHolder refuses a token slot that is not a multiple of 512 "
                          "(\"attn_to_ffn_token_size must be align with 512\"); a slot smaller than one token (h bytes plus "
                          "the 4-byte int8 scale) makes the attention workers overwrite the next token.",
                      fail_example=eg.ex(eg.FFN, attn_to_ffn_token_size=7168),
                      pass_example=eg.ex(eg.FFN, attn_to_ffn_token_size=7680),
                      fix="Use Align512(token bytes): h + 4 for int8 tokens (7168 -> 7680), 2h for fp16/bf16."))
WINDOW = rule("MC849", "ffn-window", "error", "ffn_window_size holds token_info_buf (aligned to 512) and token_data_buf", family=_F,
              source="torch_npu ScheduleContextHolder::InitFfn", tags=("buffer",),
              docs=lambda: dict(
                  why="torch_npu's ScheduleContextHolder::InitFfn refuses a window not larger than the token_info "
                      "area (\"ffn_window_size must be > token_info_aligned_size\"); a window that cannot hold "
                      "A * M * BS * (K+1) token slots is overrun by the attention workers' writes.",
                  fail_example=eg.ex(eg.FFN, ffn_window_size=134217728),
                  pass_example=eg.ex(eg.FFN, ffn_window_size=285212672),
                  fix="Set ffn_window_size to at least the size the message names."))


def unavailable(cfg, ruleset):
    yield Finding(UNAVAILABLE.code, ("op",), f"op ffn_worker_batching: FfnWorkerBatching is not in CANN "
                  f"{ruleset.name} (added upstream in 2026-02); use CANN 9.0 or newer")


def computable(cfg) -> bool:
    return min(cfg.attention_workers, cfg.micro_batch_num, cfg.micro_batch_size, cfg.hidden, cfg.expert_num) > 0 \
        and cfg.top_k >= 0


def _range(rule_, path, value, lo_open, hi, what, code_msg=None):
    if not lo_open < value <= hi:
        quote = f"; CANN: \"{code_msg}\"" if code_msg else ""  # only texts read from the source
        yield finding(rule_, path, f"`{path}` = {value} is outside ({lo_open}, {hi}] ({what}){quote}")


def expert_num(cfg, f):
    yield from _range(EXPERT_NUM, "expert_num", cfg.expert_num, 0, f.limits.expert_num_max, "code limit",
                      f"expert_num:{cfg.expert_num} should be in range (0, {f.limits.expert_num_max}]")


def attention_workers(cfg, f):
    yield from _range(ATTENTION, "attention_workers", cfg.attention_workers, 0, f.limits.attention_workers_max,
                      "max_out_shape[0]; code and doc agree")


def micro_batch(cfg, f):
    if cfg.micro_batch_size <= 0:
        yield finding(MICRO_BATCH, "micro_batch_size", f"`micro_batch_size` = {cfg.micro_batch_size} must be > 0 "
                      "(max_out_shape[1], code limit)")
    m, doc_max = cfg.micro_batch_num, f.limits.doc_micro_batch_num_max
    if m < 1:
        yield finding(MICRO_BATCH, "micro_batch_num", f"`micro_batch_num` = {m} must be >= 1 (torch_npu "
                      "ScheduleContextHolder: \"micro_batch_num can't be 0\")")
    elif m > doc_max:
        yield finding(MICRO_BATCH, "micro_batch_num", f"`micro_batch_num` = {m} exceeds {doc_max}, the doc limit "
                      "(the tiling does not check M; deployments beyond the documented range are untested)", WARNING)


def top_k(cfg, f):
    k, cap = cfg.top_k, f.limits.selected_experts_max
    if not 0 < k + 1 <= cap:
        doc = f"; the FfnWorkerBatching page says K <= {f.limits.doc_top_k_max}, the code (the verdict) allows K <= " \
              f"{cap - 1}" if k + 1 > cap and k <= f.limits.doc_top_k_max else ""
        yield finding(TOP_K, "top_k", f"`top_k` = {k}: max_out_shape[2] = top_k + 1 = {k + 1} is outside (0, {cap}] "
                      f"(code limit){doc}")


def hidden(cfg, f):
    if cfg.hidden <= 0:
        yield finding(HIDDEN, "hidden", f"`hidden` = {cfg.hidden} must be > 0 (max_out_shape[3], code limit)")


def need_schedule(cfg, f):
    if cfg.need_schedule not in f.limits.need_schedule_values:
        yield finding(NEED_SCHEDULE, "need_schedule", f"`need_schedule` = {cfg.need_schedule} must be 0 (batching "
                      "only) or 1 (scan the data first)")


def layer_num(cfg, f):
    n, e = cfg.layer_num, cfg.expert_num
    if not 0 <= n <= e:
        yield finding(LAYER_NUM, "layer_num", f"`layer_num` = {n} is outside [0, expert_num = {e}] (code limit)")
    elif n > 0 and e % n:
        yield finding(LAYER_NUM, "layer_num", f"expert_num = {e} is not a multiple of layer_num = {n}; the doc defines "
                      "expert_num as experts per layer on this rank * layer_num", WARNING)


def token_slot(cfg, f):
    hs = cfg.attn_to_ffn_token_size
    if hs is None:
        return
    if hs <= 0 or hs % ffx.FFN_BUF_ALIGN:
        yield finding(TOKEN_SLOT, "attn_to_ffn_token_size", f"`attn_to_ffn_token_size` = {hs} must be a positive "
                      f"multiple of {ffx.FFN_BUF_ALIGN}; use {ffx.ffn_token_slot_bytes(f.payload_bytes)}; torch_npu: "
                      "\"attn_to_ffn_token_size must be align with 512\"")
    elif hs < f.payload_bytes:
        yield finding(TOKEN_SLOT, "attn_to_ffn_token_size", f"`attn_to_ffn_token_size` = {hs} is smaller than one "
                      f"{cfg.token_dtype} token of hidden {cfg.hidden} ({f.payload_bytes} bytes); use "
                      f"{ffx.ffn_token_slot_bytes(f.payload_bytes)}")


def window(cfg, f):
    w = cfg.ffn_window_size
    if w is None or not computable(cfg):
        return
    info_aligned = fx.align_up(f.token_info_bytes, ffx.FFN_BUF_ALIGN)
    if w <= info_aligned:
        yield finding(WINDOW, "ffn_window_size", f"`ffn_window_size` = {w} must be > Align512(token_info) = "
                      f"{info_aligned}; torch_npu: \"ffn_window_size must be > token_info_aligned_size\"")
    elif w < f.window_bytes:
        yield finding(WINDOW, "ffn_window_size", f"`ffn_window_size` = {w} bytes leaves {w - info_aligned} for "
                      f"token_data_buf, which needs A * M * BS * (K+1) * HS = {f.token_data_bytes}; set "
                      f"ffn_window_size >= {f.window_bytes} ({fx.ceil_mb(f.window_bytes)} MB)")


CHECKS = (expert_num, attention_workers, micro_batch, top_k, hidden, need_schedule, layer_num, token_slot, window)
