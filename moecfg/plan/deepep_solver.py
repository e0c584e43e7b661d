"""DeepEP inverse solving: the smallest NVL/RDMA buffers for a setup, the most tokens per rank an RDMA buffer allows
(low-latency), and which rank counts work.

Exact, never a scan: the buffers are DeepEP's hints (closed form, `deepep/ops/v1/formulas.py` through the deepep kind's
`requirements`); the low-latency hint grows with T, so the largest T is a binary search over it (O(log T)),
then capped by the rules that bound T on their own (QP depth: T <= NVSHMEM_QP_DEPTH / 2 - 1; (num_ranks * T) % 4
== 0 keeps T on a grid) and judged by the real engine (the 32 GiB wall, device memory, ...), with a second
binary search over the engine's verdict when it still rejects. Every answer and the value just past it are
re-checked by the engine; a rejection carries its rule codes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.plan.deepep_problem import BUFFER_RULES, TOKENS, DeepEPProblem
from moecfg.plan.solver import Verdict, _last_true, judge

TOKENS_SEARCH_MAX = 1 << 20  # upper end of the T search; the QP depth caps T far lower (511 by default)
ALIGN = fx.NUM_BUFFER_ALIGNMENT_BYTES  # buffer sizes step by 128 bytes (MC652)


@dataclass
class Probe:
    """A value one step past the answer (T + 1, or a buffer 128 bytes smaller) and the engine's verdict on it."""

    field: str
    value: int
    verdict: Verdict

    def to_json(self) -> dict:
        return {"field": self.field, "value": self.value, "valid": self.verdict.ok, "rejected_by": self.verdict.codes}


@dataclass
class DeepEPAnswer:
    num_ranks: int
    tokens: int | None  # num_max_dispatch_tokens_per_rank (given or solved; None in normal mode)
    nvl_bytes: int | None
    rdma_bytes: int | None
    solved: tuple  # the fields solved for; () = only checked
    verdict: Verdict
    next: list = field(default_factory=list)  # Probes
    required: dict = field(default_factory=dict)  # {"nvl": bytes, "rdma": bytes} at the answer
    limited_by: str = ""  # for a solved T: the rule codes that stop T + 1

    @property
    def ok(self) -> bool:
        return self.verdict.ok

    def to_json(self) -> dict:
        d = {"num_ranks": self.num_ranks, TOKENS: self.tokens, "num_nvl_bytes": self.nvl_bytes,
             "num_rdma_bytes": self.rdma_bytes, "solved": list(self.solved), "valid": self.ok,
             "rejected_by": self.verdict.codes, "reasons": self.verdict.reasons, "warnings": self.verdict.warnings,
             "required_bytes": self.required, "next": [p.to_json() for p in self.next]}
        if self.limited_by:
            d["limited_by"] = self.limited_by
        return d


def _judge(p: DeepEPProblem, ranks: int, tokens, nvl, rdma) -> Verdict:
    return judge(p.verdict(ranks, tokens, nvl, rdma), BUFFER_RULES)


def min_buffers(p: DeepEPProblem, ranks: int, tokens: int | None, nvl: int | None = None,
                rdma: int | None = None) -> DeepEPAnswer:
    """The buffers not given are DeepEP's hints (closed form); each is re-checked 128 bytes smaller."""
    need = p.required_bytes(ranks, tokens)
    solved = tuple(name for name, given in (("num_nvl_bytes", nvl), ("num_rdma_bytes", rdma)) if given is None)
    nvl = need.get("nvl") if nvl is None else nvl
    rdma = need.get("rdma") if rdma is None else rdma
    ans = DeepEPAnswer(ranks, tokens, nvl, rdma, solved, _judge(p, ranks, tokens, nvl, rdma), required=need)
    for name in solved if ans.ok else ():
        value = nvl if name == "num_nvl_bytes" else rdma
        if value:  # a 0-byte buffer has no smaller value
            smaller = (value - ALIGN, rdma) if name == "num_nvl_bytes" else (nvl, value - ALIGN)
            ans.next.append(Probe(name, value - ALIGN, _judge(p, ranks, tokens, *smaller)))
    return ans


def buffer_tokens_limit(p: DeepEPProblem, ranks: int, rdma: int) -> int:
    """Largest T whose low-latency RDMA hint fits `rdma` bytes (0 if none): binary search over the formula."""
    def fits(tokens: int) -> bool:
        need = p.required_bytes(ranks, tokens).get("rdma")
        return need is not None and need <= rdma

    return max(_last_true(fits, 1, TOKENS_SEARCH_MAX), 0)


def tokens_step(ranks: int) -> int:
    """T must keep (num_ranks * T) % 4 == 0 (MC640): T steps by 4 / gcd(num_ranks, 4)."""
    multiple = fx.LOW_LATENCY_RECV_TOKENS_MULTIPLE.value
    return multiple // math.gcd(ranks, multiple)


def max_tokens(p: DeepEPProblem, ranks: int, rdma: int, nvl: int | None = None) -> DeepEPAnswer:
    """Largest num_max_dispatch_tokens_per_rank for `rdma` bytes: the formula's bound, the QP-depth cap and the
    (num_ranks * T) % 4 grid, then the engine (binary search over its verdict if it still rejects)."""
    nvl = 0 if nvl is None else nvl
    step = tokens_step(ranks)
    cap = min(buffer_tokens_limit(p, ranks, rdma), fx.low_latency_max_tokens_for_qp_depth(p.values["nvshmem_qp_depth"]))
    cap -= cap % step

    def ok(tokens: int) -> bool:
        return _judge(p, ranks, tokens, nvl, rdma).ok

    best = cap
    if cap >= step and not ok(cap):
        best = max(_last_true(lambda m: ok(m * step), 1, cap // step), 0) * step
    if best < 1:  # nothing fits: say why the smallest T on the grid fails
        return DeepEPAnswer(ranks, None, nvl, rdma, (TOKENS,), _judge(p, ranks, step, nvl, rdma),
                            limited_by=",".join(_judge(p, ranks, step, nvl, rdma).codes))
    nxt = _judge(p, ranks, best + 1, nvl, rdma)
    codes = list(dict.fromkeys(nxt.codes + (_judge(p, ranks, best + step, nvl, rdma).codes if step > 1 else [])))
    return DeepEPAnswer(ranks, best, nvl, rdma, (TOKENS,), _judge(p, ranks, best, nvl, rdma),
                        [Probe(TOKENS, best + 1, nxt)], p.required_bytes(ranks, best), ",".join(codes) or "rules")


def solve(p: DeepEPProblem, ranks: int, tokens: int | None, nvl: int | None, rdma: int | None) -> DeepEPAnswer:
    if p.low_latency and tokens is None:
        return max_tokens(p, ranks, rdma, nvl)
    return min_buffers(p, ranks, tokens if p.low_latency else None, nvl, rdma)


def ranks_table(p: DeepEPProblem, ranks, tokens: int | None, nvl: int | None, rdma: int | None) -> list:
    """One answer per rank count (each judged by the engine; a rejected count carries its rule codes)."""
    return [solve(p, r, tokens, nvl, rdma) for r in ranks]
