"""An OpCall seen as a document: what a backend's analysis judges when the op call comes from a launch. It lives
beside OpCall (frameworks), below the check orchestration, so a framework can judge its own op calls (vllm_ascend's
memory reads the fused op's workspace) without importing the part above it."""
from __future__ import annotations

from moecfg.sources.textmap import Span


class LaunchDocument:
    """An OpCall seen as a document: `data` are the derived arguments, positions come from the launch."""

    __slots__ = ("index", "data", "start", "raw_scalars", "duplicates", "sources")

    def __init__(self, index: int, call, start: Span):
        self.index, self.data, self.start = index, dict(call.arguments), start
        self.raw_scalars, self.duplicates, self.sources = {}, [], call.sources

    def position(self, path: tuple, at_key: bool = False) -> Span:
        p = tuple(path)
        while p:
            spans = self.sources.get(".".join(str(x) for x in p))
            if spans:
                return spans[0]
            p = p[:-1]
        return self.start
