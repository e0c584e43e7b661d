"""An OpCall seen as a document: what a backend's analysis judges when the op call comes from a launch. It lives
beside OpCall (frameworks), below the check orchestration, so a framework can judge its own op calls (vllm_ascend's
memory reads the fused op's workspace) without importing the part above it."""
from __future__ import annotations

from moecfg.sources.textmap import Span


class LaunchDocument:
    """An OpCall seen as a document: `data` are the derived arguments, positions come from the launch."""

    __slots__ = ("index", "data", "start", "raw_scalars", "duplicates", "sources", "derivation", "shell")

    def __init__(self, index: int, call, start: Span, shell: bool = False):
        self.index, self.data, self.start = index, dict(call.arguments), start
        self.raw_scalars, self.duplicates, self.sources = {}, [], call.sources
        self.derivation, self.shell = call.derivation, shell

    def pending(self, suggestion):
        """The fix of an op finding: the argument's value and the flag or env entries it was read from."""
        from moecfg.core.fixes import Pending

        key = ".".join(str(p) for p in suggestion.path)
        old = self.data
        for p in suggestion.path:
            old = old.get(p) if isinstance(old, dict) else None
        insert = self.start if self.shell and suggestion.path[:1] == ("env",) else None
        return Pending(suggestion, tuple(self.sources.get(key, ())), old, self.derivation.get(key, ""), insert=insert)

    def position(self, path: tuple, at_key: bool = False) -> Span:
        p = tuple(path)
        while p:
            spans = self.sources.get(".".join(str(x) for x in p))
            if spans:
                return spans[0]
            p = p[:-1]
        return self.start
