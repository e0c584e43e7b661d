"""Base documents and shared texts of the DeepEP rules' docs (MC6xx examples start from these).

DeepEP's host asserts raise `RuntimeError: Assertion exception (<file>:<line>): <expr>` (builds before b306af0,
2026-04-30: `Failed: Assertion error <file>:<line> '<expr>'`); its device asserts trap inside the kernel ("illegal
instruction" / "illegal memory access"). Plain data and two small text builders: importing this builds no text.
"""
from __future__ import annotations

from moecfg.core.examples import ex  # noqa: F401  (re-exported: the docs lambdas call eg.ex)

# DeepSeek-V3 shapes: hidden 7168, 256 routed experts, top-8. Every base below is valid (no diagnostic).
INTER = dict(kind="deepep", mode="normal", num_ranks=16, hidden=7168, num_experts=256, num_topk=8, num_sms=24)
INTRA = dict(kind="deepep", mode="normal", num_ranks=8, hidden=7168, num_experts=256, num_topk=8)
LL = dict(kind="deepep", mode="low_latency", num_ranks=16, hidden=7168, num_experts=256, num_topk=8,
          num_max_dispatch_tokens_per_rank=128)

_HOST = "DeepEP's host assert fails {when} with `RuntimeError: Assertion exception ({where})`"
_CTOR = "when the job builds its Buffer (the constructor, before any token moves),"
_TRAP = ("The kernel's device assert ({where}) traps at the first dispatch or combine{cause}: the process dies with "
         "CUDA \"illegal instruction\" and no message that names the value")
_NEXT = "; every rank of the EP group then hangs or fails with it."


def host(where: str, extra: str = "", when: str = _CTOR) -> str:
    """Why text of a host assert (a RuntimeError naming file:line)."""
    return _HOST.format(where=where, when=when) + extra + _NEXT


def trap(where: str, cause: str = "", after: str = "") -> str:
    """Why text of a device assert (the kernel traps without naming the value)."""
    return _TRAP.format(where=where, cause=cause) + after + _NEXT
