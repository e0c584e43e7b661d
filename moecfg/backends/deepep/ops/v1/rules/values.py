"""Value ranges (MC601): counts that must be positive before any DeepEP rule can be judged.

`num_ranks`, `hidden`, `num_experts`, `num_topk`, `num_sms`, `device_sms`, `nvshmem_qp_depth` and, in
low-latency and auto mode, `num_max_dispatch_tokens_per_rank` must be >= 1; `num_nvl_bytes` and `num_rdma_bytes`
>= 0. `num_qps_per_rank` must be >= 1 whenever NVSHMEM is used (more than one node, or low-latency mode;
deep_ep/buffers/legacy.py asserts `num_qps_per_rank > 0`). Low-latency mode needs `num_max_dispatch_tokens_per_rank`
(reported as MC005 missing-key). When one of these fails, the other DeepEP rules and the buffer sizes are
skipped for the document: their verdict would rest on a meaningless value.
"""
from __future__ import annotations

from moecfg.core.registry import lazy_module, rule
from moecfg.core.input_rules import MISSING_KEY
from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.backends.deepep.shared.rules import AT, finding

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.deepep.ops.v1.rules.examples_base")
_F = "deepep-values"
VALUE_RANGE = rule("MC601", "deepep-value-range", "error", "DeepEP counts positive, buffer sizes non-negative, QPs > 0 with NVSHMEM",
                   family=_F, source=AT + "csrc/legacy/config.hpp Config; deep_ep/buffers/legacy.py:107 (B9)",
                   docs=lambda: dict(
                       why="A count of zero (or a negative byte size) makes no valid Buffer: with NVSHMEM (more than one node, "
                           "or low-latency mode) DeepEP asserts `num_qps_per_rank > 0` in deep_ep/buffers/legacy.py (AssertionError); "
                           "zero hidden, top-k or ranks fail in the host asserts or build empty tensors. moecfg skips the other "
                           "DeepEP rules and the buffer sizes for the document.",
                       fail_example=eg.ex(eg.LL, num_qps_per_rank=0), pass_example=eg.ex(eg.LL, num_qps_per_rank=16),
                       fix="Give every count a positive value (buffer sizes may be 0); in low-latency mode one QP per local "
                           "expert."))

_POSITIVE = ("num_ranks", "hidden", "num_experts", "num_topk", "num_sms", "device_sms", "nvshmem_qp_depth")


def value_ranges(d, f=None):
    for name in _POSITIVE:
        value = getattr(d, name)
        if value < 1:
            yield finding(VALUE_RANGE, name, f"`{name}` = {value} must be >= 1")
    tokens = d.num_max_dispatch_tokens_per_rank
    if d.low_latency_mode and tokens is None:
        yield finding(MISSING_KEY, (), f"missing required key `num_max_dispatch_tokens_per_rank` ({d.mode} mode: "
                      "the most tokens one rank dispatches per call; it sizes the RDMA buffer)")
    elif tokens is not None and tokens < 1:
        yield finding(VALUE_RANGE, "num_max_dispatch_tokens_per_rank", f"`num_max_dispatch_tokens_per_rank` = {tokens} must be >= 1")
    for name in ("num_nvl_bytes", "num_rdma_bytes"):
        value = getattr(d, name)
        if value is not None and value < 0:
            yield finding(VALUE_RANGE, name, f"`{name}` = {value} must be >= 0")
    qps = d.num_qps_per_rank
    nvshmem = d.low_latency_mode or (d.num_ranks > fx.NUM_MAX_NVL_PEERS)
    if qps is not None and qps < 1 and nvshmem:
        yield finding(VALUE_RANGE, "num_qps_per_rank", f"`num_qps_per_rank` = {qps} must be >= 1 when NVSHMEM is "
                      "used (more than one node or low-latency mode); DeepEP: \"assert num_qps_per_rank > 0\"")


CHECKS = (value_ranges,)
