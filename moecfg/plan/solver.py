"""Inverse solving: the smallest buffer for a batch, the largest batch for a buffer, the EP sizes that work.

Exact by monotonicity, never by scanning: the window grows with bs (every formula is a sum of
non-negative terms times max_bs or bs), so the smallest buffer is the formula's value rounded up to MB
(closed form) and the largest bs is found by binary search over the same formulas (O(log bs)). The
engine then judges the answer and the next value up, and gives the rule codes of every rejection.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from moecfg.plan.problem import BUFFER_RULES, Problem

BS_SEARCH_MAX = 1 << 20  # upper end of the bs binary search; the rules cap bs far lower


@dataclass
class Verdict:
    ok: bool
    codes: list  # rule codes of the errors (and of the A2 buffer advisory) that reject the candidate
    reasons: list  # their messages
    warnings: list = field(default_factory=list)  # codes of other warnings (e.g. MC902)


def judge(result, buffer_rules=BUFFER_RULES) -> Verdict:
    """Accepted = no error, and no buffer advisory (A2; DeepEP below its hint): the buffer must hold the window."""
    bad = [d for d in result.diagnostics if d.severity == "error" or d.code in buffer_rules]
    warn = [d.code for d in result.diagnostics if d.severity == "warning" and d not in bad]
    return Verdict(not bad, [d.code for d in bad], [f"{d.code} {d.message}" for d in bad], warn)


@dataclass
class Answer:
    ep: int
    bs: int | None  # the batch (given or solved)
    buffer_mb: int | None  # HCCL_BUFFSIZE (given or solved)
    solved: str  # "buffer" | "bs" | "check"
    verdict: Verdict
    next_value: int | None = None  # the value one step past the answer (bs + 1 or buffer - 1)
    next_verdict: Verdict | None = None
    required: dict = field(default_factory=dict)  # {domain: bytes} at the answer
    limited_by: str = ""  # "buffer" or the rule codes that cap bs below what the buffer allows

    @property
    def ok(self) -> bool:
        return self.verdict.ok

    def to_json(self) -> dict:
        d = {"ep_world_size": self.ep, "bs": self.bs, "hccl_buffsize_mb": self.buffer_mb, "solved": self.solved,
             "valid": self.ok, "rejected_by": self.verdict.codes, "reasons": self.verdict.reasons,
             "warnings": self.verdict.warnings, "required_bytes": self.required}
        if self.next_value is not None:
            d["next"] = {"value": self.next_value, "valid": self.next_verdict.ok, "rejected_by": self.next_verdict.codes}
        if self.limited_by:
            d["limited_by"] = self.limited_by
        return d


def min_buffer(p: Problem, ep: int, bs: int) -> Answer:
    """Smallest HCCL_BUFFSIZE (MB) for `bs` tokens per rank: ceil(window / MB), closed form."""
    need = p.required_mb(ep, bs)
    verdict = judge(p.verdict(ep, bs, need))
    ans = Answer(ep, bs, need, "buffer", verdict, required=p.required_bytes(ep, bs))
    if need is not None and need > 1:
        ans.next_value = need - 1
        ans.next_verdict = judge(p.verdict(ep, bs, need - 1))
    return ans


def _last_true(pred, lo: int, hi: int) -> int:
    """Largest x in [lo, hi] with pred(x), for pred true then false (monotone); lo - 1 if none."""
    if lo > hi or not pred(lo):
        return lo - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if pred(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def buffer_bs_limit(p: Problem, ep: int, buffer_mb: int) -> int:
    """Largest bs whose window fits `buffer_mb` (0 if none): binary search over the formulas."""
    def fits(bs: int) -> bool:
        need = p.required_mb(ep, bs)
        return need is not None and need <= buffer_mb

    return max(_last_true(fits, 1, BS_SEARCH_MAX), 0)


def max_bs(p: Problem, ep: int, buffer_mb: int) -> Answer:
    """Largest bs for `buffer_mb`: the buffer's bound (formulas), then the rules' bound (engine, binary search)."""
    bound = buffer_bs_limit(p, ep, buffer_mb)
    limited_by = "buffer"
    best = bound
    if bound >= 1 and not judge(p.verdict(ep, bound, buffer_mb)).ok:
        best = _last_true(lambda bs: judge(p.verdict(ep, bs, buffer_mb)).ok, 1, bound)
        limited_by = ",".join(judge(p.verdict(ep, best + 1, buffer_mb)).codes) or "rules"
    probe = max(best, 1)
    verdict = judge(p.verdict(ep, probe, buffer_mb))
    if best < 1:  # nothing fits: report why bs = 1 fails
        return Answer(ep, None, buffer_mb, "bs", verdict, limited_by=limited_by)
    nxt = judge(p.verdict(ep, best + 1, buffer_mb))
    return Answer(ep, best, buffer_mb, "bs", verdict, best + 1, nxt, p.required_bytes(ep, best), limited_by)


def check_point(p: Problem, ep: int, bs: int, buffer_mb: int) -> Answer:
    return Answer(ep, bs, buffer_mb, "check", judge(p.verdict(ep, bs, buffer_mb)), required=p.required_bytes(ep, bs))


def solve(p: Problem, ep: int, bs: int | None, buffer_mb: int | None) -> Answer:
    if bs is not None and buffer_mb is not None:
        return check_point(p, ep, bs, buffer_mb)
    if bs is not None:
        return min_buffer(p, ep, bs)
    return max_bs(p, ep, buffer_mb)


def ep_table(p: Problem, eps, bs: int | None, buffer_mb: int | None) -> list[Answer]:
    """One answer per EP size (each judged by the engine; a rejected size carries its rule codes)."""
    from moecfg.core.progress import track

    return [solve(p, ep, bs, buffer_mb) for ep in track(eps, "planning", 32)]
