"""DeepEP V2 `ElasticBuffer` (MC660-MC666), `api: v2`.

The buffer is one NCCL symmetric window of `num_bytes` (a 2 MiB multiple) after a 16 MiB workspace.
Without `num_bytes` ElasticBuffer allocates `get_buffer_size_hint(...)` = calculate_buffer_size:
align_2MiB(max(dispatch, combine)) over 32-byte-aligned token slots (hidden, FP8 scales, top-k metadata),
with the topology from NCCL: the NVLink domain (`num_nvl_ranks`) gives scale-up ranks, the nodes scale-out
ranks (hybrid, the default) or all ranks scale up (direct, `allow_hybrid_mode: false`). `num_topk: 0` is
sized as top-32. Each dispatch and combine asserts its own size (at the call's top-k) <= num_bytes.
Host limits: ranks <= 1024 and a multiple of the NVLink domain, experts % ranks == 0, experts <= 2048,
experts per rank <= 256, (hidden * elem) % 32 == 0 for every token part, top-k <= 32.
Source: deepseek-ai/DeepEP@dd758caf451848bd150e1046af3d0a73e5fff38d (main 2026-07-14).
"""
from __future__ import annotations

from moecfg.core.registry import rule
from moecfg.backends.deepep.ops.v2 import formulas as v2
from moecfg.backends.deepep.shared.rules import finding, yaml_doc

_F = "deepep-v2"
_AT = "deepseek-ai/DeepEP@dd758ca"
MIB = 1 << 20
# sglang PR #24443 (EP_BUFFER_DEBUG): 2 nodes x 8, hybrid, T 4096, hidden 7168, BF16, top-8 -> 1218445312 bytes.
BASE = dict(kind="deepep", api="v2", num_ranks=16, num_experts=256, num_max_tokens_per_rank=4096, hidden=7168,
            num_topk=8)
_HOST = ("DeepEP's host assert raises `RuntimeError: Assertion exception ({where}): {expr}` {when}; every "
         "rank of the EP group then fails or hangs.")
_CTOR = "when ElasticBuffer is built (or get_buffer_size_hint is called)"
_CALL = "at the first dispatch"


def _host(where: str, expr: str, when: str = _CTOR) -> str:
    return _HOST.format(where=where, expr=expr, when=when)


VALUES = rule(
    "MC660", "deepep-v2-value-range", "error", "ElasticBuffer counts positive, byte counts non-negative", family=_F,
    source=f"{_AT} csrc/elastic/buffer.hpp:98-100,657",
    why=_host("csrc/elastic/buffer.hpp:657", "num_max_tokens_per_rank > 0 and hidden > 0") + " moecfg skips the other "
    "V2 rules for the document.",
    cann_error="Assertion exception (csrc/elastic/buffer.hpp:657): num_max_tokens_per_rank > 0 and hidden > 0",
    fail_example=yaml_doc(BASE, num_max_tokens_per_rank=0), pass_example=yaml_doc(BASE),
    fix="Give every count a positive value; num_topk may be 0 (sized as 32), num_cpu_bytes 0.")
TOPOLOGY = rule(
    "MC661", "deepep-v2-topology", "error", "num_ranks a multiple of the NVLink domain and <= 1024", family=_F,
    source=f"{_AT} csrc/kernels/backend/nccl.cu:52; deep_ep/include/deep_ep/common/layout.cuh:19,38",
    why=_host("csrc/kernels/backend/nccl.cu:52", "num_ranks % num_nvl_ranks == 0") + " Above 1024 ranks the "
    "workspace layout assert (layout.cuh:38, num_ranks <= kNumMaxRanks) fails at the first dispatch.",
    cann_error="Assertion exception (csrc/kernels/backend/nccl.cu:52): num_ranks % num_nvl_ranks == 0",
    fail_example=yaml_doc(BASE, num_ranks=20, num_experts=260), pass_example=yaml_doc(BASE),
    fix="Use whole NVLink domains (8 GPUs per HGX node, up to 72 on GB200 NVL72) and at most 1024 ranks.")
EXPERTS = rule(
    "MC662", "deepep-v2-experts", "error", "num_experts % num_ranks == 0, <= 2048, <= 256 per rank", family=_F,
    source=f"{_AT} deep_ep/include/deep_ep/common/layout.cuh:20-21,37-40; csrc/elastic/buffer.hpp:805,969",
    why=_host("deep_ep/include/deep_ep/common/layout.cuh:37-40", "num_experts % num_ranks == 0 (also <= 2048, "
    "<= 256 per rank)", _CALL) + " The workspace is laid out for at most 2048 experts and 256 per rank.",
    cann_error="Assertion exception (csrc/elastic/buffer.hpp:805): num_experts % nccl_context->num_ranks == 0",
    fail_example=yaml_doc(BASE, num_experts=250), pass_example=yaml_doc(BASE),
    fix="Pad num_experts with redundant (EPLB) experts to a multiple of num_ranks; at most 2048 experts and 256 "
    "per rank (spread them over more ranks).")
HIDDEN = rule(
    "MC663", "deepep-v2-hidden", "error", "(hidden * elem) % 32 == 0: BF16 hidden % 16, FP8 dispatch hidden % 32",
    family=_F, source=f"{_AT} deep_ep/include/deep_ep/common/layout.cuh:198; deep_ep/include/deep_ep/common/ptx.cuh:16;"
    " csrc/elastic/buffer.hpp:660,755",
    why=_host("deep_ep/include/deep_ep/common/layout.cuh:198", "num_hidden_bytes % ptx::kNumTMAAlignBytes == 0") +
    " Every token part is moved by TMA in 32-byte units (kNumTMAAlignBytes); the combine token is BF16.",
    cann_error="Assertion exception (deep_ep/include/deep_ep/common/layout.cuh:198): num_hidden_bytes % "
    "ptx::kNumTMAAlignBytes == 0",
    fail_example=yaml_doc(BASE, hidden=7176), pass_example=yaml_doc(BASE),
    fix="Use a hidden size divisible by 16 (BF16) or by 32 (use_fp8_dispatch: true).")
TOPK = rule(
    "MC664", "deepep-v2-topk", "error", "num_topk <= 32", family=_F,
    source=f"{_AT} deep_ep/include/deep_ep/impls/dispatch.cuh:93; hybrid_dispatch.cuh:121; "
    "combine_reduce_epilogue.cuh:65; csrc/elastic/buffer.hpp:662",
    why="The JIT-compiled dispatch and combine kernels static-assert kNumTopk <= 32 (one lane per selection); a larger "
    "top-k fails to compile at the first dispatch.",
    cann_error="static assertion failed with \"Insufficient lanes\"",
    fail_example=yaml_doc(BASE, num_topk=36), pass_example=yaml_doc(BASE),
    fix="num_topk <= 32.")
ALIGNMENT = rule(
    "MC665", "deepep-v2-buffer-alignment", "error", "num_bytes and num_cpu_bytes are multiples of 2 MiB, cpu <= total",
    family=_F, source=f"{_AT} csrc/elastic/buffer.hpp:98-100; csrc/kernels/backend/symmetric.hpp:16",
    why=_host("csrc/elastic/buffer.hpp:98", "num_buffer_bytes > 0 and num_buffer_bytes % "
    "symmetric::kNumAlignmentBytes == 0"),
    cann_error="Assertion exception (csrc/elastic/buffer.hpp:98): num_buffer_bytes > 0 and num_buffer_bytes % "
    "symmetric::kNumAlignmentBytes == 0",
    fail_example=yaml_doc(BASE, num_bytes=1218446312), pass_example=yaml_doc(BASE, num_bytes=1218445312),
    fix="Round num_bytes (and num_cpu_bytes) up to a multiple of 2097152 (get_elastic_buffer_alignment()); "
    "num_cpu_bytes <= num_bytes.")
TOO_SMALL = rule(
    "MC666", "deepep-v2-buffer-too-small", "error", "num_bytes below what dispatch / combine assert", family=_F,
    tags=("buffer",), source=f"{_AT} csrc/elastic/buffer.hpp:963-966 (dispatch), 1254-1256 (combine), 652-686 (hint)",
    why=_host("csrc/elastic/buffer.hpp:963", "get_dispatch_buffer_size(...) <= num_buffer_bytes", _CALL) + " (the "
    "combine has the same check). Below the hint but above both checks is a warning: only with num_topk: 0 (sized "
    "as top-32) can the call still fit.",
    cann_error="Assertion exception (csrc/elastic/buffer.hpp:963): get_dispatch_buffer_size( num_max_tokens_per_rank, "
    "hidden, num_sf_packs, num_topk, x.element_size(), nccl_context->num_scaleout_ranks, "
    "nccl_context->num_scaleup_ranks, nccl_context->is_scaleup_nvlink) <= num_buffer_bytes",
    fail_example=yaml_doc(BASE, num_bytes=1073741824), pass_example=yaml_doc(BASE, num_bytes=1218445312),
    fix="Leave num_bytes out (ElasticBuffer then allocates get_buffer_size_hint) or set it to the figure moecfg "
    "prints.")


def value_ranges(e):
    for name in ("num_ranks", "num_experts", "num_max_tokens_per_rank", "hidden", "num_nvl_ranks"):
        if getattr(e, name) < 1:
            yield finding(VALUES, name, f"`{name}` = {getattr(e, name)} must be >= 1")
    for name in ("num_topk", "num_cpu_bytes", "num_allocated_qps"):
        if getattr(e, name) < 0:
            yield finding(VALUES, name, f"`{name}` = {getattr(e, name)} must be >= 0")
    if e.num_bytes is not None and e.num_bytes < 1:
        yield finding(VALUES, "num_bytes", f"`num_bytes` = {e.num_bytes} must be > 0 (or left out for the hint)")


def topology(e, t):
    nvl = min(e.num_nvl_ranks, e.num_ranks)
    if e.num_ranks % nvl:
        lo, hi = e.num_ranks // nvl * nvl, (e.num_ranks // nvl + 1) * nvl
        yield finding(TOPOLOGY, "num_ranks", f"num_ranks = {e.num_ranks} is not a multiple of the NVLink domain "
                      f"num_nvl_ranks = {nvl} (NCCL asserts num_ranks % num_nvl_ranks == 0); use {lo or nvl} or {hi}")
    if e.num_ranks > v2.MAX_RANKS:
        yield finding(TOPOLOGY, "num_ranks", f"num_ranks = {e.num_ranks} exceeds the {v2.MAX_RANKS} ranks the V2 "
                      "workspace is laid out for (kNumMaxRanks)")


def experts(e, t):
    n, r = e.num_experts, e.num_ranks
    if n % r:
        yield finding(EXPERTS, "num_experts", f"num_experts = {n} is not divisible by num_ranks = {r}; pad with "
                      f"redundant experts to {-(-n // r) * r}")
        return
    if n > v2.MAX_EXPERTS:
        yield finding(EXPERTS, "num_experts", f"num_experts = {n} exceeds kNumMaxExperts = {v2.MAX_EXPERTS}")
    elif n // r > v2.MAX_EXPERTS_PER_RANK:
        yield finding(EXPERTS, "num_experts", f"num_experts / num_ranks = {n // r} exceeds kNumMaxExpertsPerRank = "
                      f"{v2.MAX_EXPERTS_PER_RANK}; use at least {-(-n // v2.MAX_EXPERTS_PER_RANK)} ranks")


def hidden(e, t):
    need = 32 if e.use_fp8_dispatch else 16
    if e.hidden % need:
        what = "FP8 dispatch (1 byte)" if e.use_fp8_dispatch else "BF16 (2 bytes)"
        yield finding(HIDDEN, "hidden", f"hidden = {e.hidden}: a token of {what} per element must be a multiple of "
                      f"{v2.TMA_ALIGN_BYTES} bytes (kNumTMAAlignBytes), so hidden % {need} == 0; use "
                      f"{-(-e.hidden // need) * need}")


def topk(e, t):
    if e.num_topk > v2.MAX_TOPK:
        yield finding(TOPK, "num_topk", f"num_topk = {e.num_topk} exceeds 32: the V2 kernels static-assert "
                      "kNumTopk <= 32 (\"Insufficient lanes\")")


def alignment(e, t):
    a = v2.ALIGNMENT_BYTES
    for name in ("num_bytes", "num_cpu_bytes"):
        value = getattr(e, name)
        if value and value % a:
            yield finding(ALIGNMENT, name, f"`{name}` = {value} is not a multiple of 2 MiB ({a}); use {v2.align(value, a)}")
    if e.num_bytes is not None and e.num_cpu_bytes > e.num_bytes:
        yield finding(ALIGNMENT, "num_cpu_bytes", f"num_cpu_bytes = {e.num_cpu_bytes} exceeds num_bytes = {e.num_bytes} "
                      "(num_bytes counts GPU + CPU bytes)")


def too_small(e, t):
    s = size(e, t)
    have = e.num_bytes
    if have is None or s is None or have >= s.num_bytes:
        return
    call = call_bytes(e, t)
    if call is not None and have < call:
        yield finding(TOO_SMALL, "num_bytes", f"num_bytes = {have} is below what dispatch/combine assert for top-"
                      f"{e.num_topk}: {call} bytes (dispatch {s.dispatch_bytes if e.num_topk else '-'}, combine "
                      f"{s.combine_bytes if e.num_topk else '-'}); the hint is {s.num_bytes}; set num_bytes: {s.num_bytes}")
    else:
        yield finding(TOO_SMALL, "num_bytes", f"num_bytes = {have} is below get_buffer_size_hint = {s.num_bytes} "
                      f"(sized as top-{s.num_topk_sized}); set num_topk or num_bytes: {s.num_bytes}", "warning")


def size(e, t) -> v2.ElasticSize | None:
    try:
        return v2.buffer_size(e.num_max_tokens_per_rank, e.hidden, e.num_topk, e.use_fp8_dispatch, t,
                              e.allow_multiple_reduction)
    except ValueError:
        return None


def call_bytes(e, t) -> int | None:
    """What the dispatch and combine asserts need at the document's top-k (None for num_topk 0: unknown)."""
    if not e.num_topk:
        return None
    s = size(e, t)
    return s.unaligned_bytes if s else None


CHECKS = (topology, experts, hidden, topk, alignment, too_small)
