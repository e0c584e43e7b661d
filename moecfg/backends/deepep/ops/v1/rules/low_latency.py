"""Low-latency limits (MC640-MC642): tokens per rank, QP depth and QPs.

With T = `num_max_dispatch_tokens_per_rank`: `(num_ranks * T) % 4 == 0` ("TMA requires the number of
tokens to be multiple of 4", L7); `NVSHMEM_QP_DEPTH >= 2 * (T + 1)` (env NVSHMEM_QP_DEPTH or
`nvshmem_qp_depth`; asserted by DeepEP since d981409), so T <= 511 with the default depth 1024 (L10);
`num_qps_per_rank >= num_experts / num_ranks` (L13; DeepEP's docstring asks for exactly the local expert
count). Every call must then dispatch at most T tokens per rank (L4, checked at run time).
"""
from __future__ import annotations

from moecfg.core.registry import lazy_module, rule
from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.backends.deepep.shared.rules import AT, finding

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.deepep.ops.v1.rules.examples_base")
_F = "deepep-low-latency"
TOKENS_MULTIPLE = rule("MC640", "deepep-ll-tokens-multiple", "error", "low-latency: (num_ranks * T) % 4 == 0", family=_F,
                       source=AT + fx.LOW_LATENCY_RECV_TOKENS_MULTIPLE.source + " (L7)",
                       docs=lambda: dict(
                           why=eg.host("csrc/legacy/buffer.hpp:1526", when="at the first low-latency dispatch"),
                           cann_error="TMA requires the number of tokens to be multiple of 4",
                           fail_example=eg.ex(eg.LL, num_ranks=2, num_experts=64, num_max_dispatch_tokens_per_rank=127),
                           pass_example=eg.ex(eg.LL, num_ranks=2, num_experts=64, num_max_dispatch_tokens_per_rank=128),
                           fix="Choose num_max_dispatch_tokens_per_rank so that num_ranks * T is a multiple of 4."))
QP_DEPTH = rule("MC641", "deepep-ll-qp-depth", "error", "low-latency: NVSHMEM_QP_DEPTH >= 2 * (T + 1)", family=_F,
                source=AT + "deep_ep/buffers/legacy.py:609,665 (L10; asserted since d981409, 2025-09-25)",
                docs=lambda: dict(
                    why="DeepEP builds at or after d981409 (2025-09-25, PR #430) assert NVSHMEM_QP_DEPTH >= (T + 1) * 2 at "
                        "every low_latency_dispatch and low_latency_combine (deep_ep/buffers/legacy.py:609,665 at dd758ca; "
                        "AssertionError); earlier builds do not check and overrun the QP's work queue (the kernels skip the "
                        "WQ slot check). With the default depth 1024, T is at most 511 (DeepEP issue #392); set it with "
                        "`env: {NVSHMEM_QP_DEPTH: ...}` (SGLang raises it to 2 * (T + 1) itself since PR #34923).",
                    cann_error="AssertionError (assert self.nvshmem_qp_depth >= (num_max_dispatch_tokens_per_rank + 1) * 2)",
                    fail_example=eg.ex(eg.LL, num_max_dispatch_tokens_per_rank=600),
                    pass_example=eg.ex(eg.LL, num_max_dispatch_tokens_per_rank=600, env={"NVSHMEM_QP_DEPTH": 2048}),
                    fix="Lower num_max_dispatch_tokens_per_rank, or set NVSHMEM_QP_DEPTH (env, or nvshmem_qp_depth) to at least "
                        "2 * (T + 1)."))
LL_QPS = rule("MC642", "deepep-ll-qps", "error", "low-latency: num_qps_per_rank >= local experts", family=_F,
              source=AT + "csrc/kernels/legacy/internode_ll.cu:284 (L13)",
              docs=lambda: dict(
                  why=eg.trap("csrc/kernels/legacy/internode_ll.cu:284", " (each local expert needs its own QP)"),
                  fail_example=eg.ex(eg.LL, num_qps_per_rank=8), pass_example=eg.ex(eg.LL, num_qps_per_rank=16),
                  fix="Set num_qps_per_rank to the local expert count num_experts / num_ranks (DeepEP's README does)."))


def tokens(d, f):
    t = d.num_max_dispatch_tokens_per_rank
    if not d.low_latency or t is None:
        return
    multiple = fx.LOW_LATENCY_RECV_TOKENS_MULTIPLE.value
    if d.num_ranks * t % multiple:
        good = next(x for x in range(t + 1, t + multiple + 1) if d.num_ranks * x % multiple == 0)
        yield finding(TOKENS_MULTIPLE, "num_max_dispatch_tokens_per_rank", f"num_ranks * num_max_dispatch_tokens_per_rank "
                      f"= {d.num_ranks} * {t} = {d.num_ranks * t} is not a multiple of {multiple}; DeepEP: \"TMA requires "
                      f"the number of tokens to be multiple of 4\"; use {good}")
    need = 2 * (t + 1)
    if d.nvshmem_qp_depth < need:
        yield finding(QP_DEPTH, "num_max_dispatch_tokens_per_rank", f"num_max_dispatch_tokens_per_rank = {t} needs "
                      f"NVSHMEM_QP_DEPTH >= 2 * ({t} + 1) = {need}, configured {d.nvshmem_qp_depth}; lower T to "
                      f"{fx.low_latency_max_tokens_for_qp_depth(d.nvshmem_qp_depth)} or set env NVSHMEM_QP_DEPTH: {need} (DeepEP "
                      "asserts this since d981409)")


def qps(d, f):
    q = d.num_qps_per_rank
    if not d.low_latency or q is None or q < 1 or f.local_experts is None:
        return
    if q < f.local_experts:
        yield finding(LL_QPS, "num_qps_per_rank", f"`num_qps_per_rank` = {q} is below the {f.local_experts} local experts "
                      f"(num_experts / num_ranks = {d.num_experts} / {d.num_ranks}); the low-latency kernels need one QP per "
                      f"local expert; set num_qps_per_rank: {f.local_experts}")


CHECKS = (tokens, qps)
