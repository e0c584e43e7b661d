"""The ChatLearn commit moecfg read: alibaba/ChatLearn@248875a, the one alibaba/Pai-Megatron-Patch@a098ca5 pins
(`git ls-tree HEAD backends/rl/ChatLearn`). ChatLearn pins no engine release moecfg reads: the engines are derived at
moecfg's own tables."""
from __future__ import annotations

CHATLEARN = "alibaba/ChatLearn@248875a"
