"""MC501's message names the other edit: the largest batch the configured window holds (issue 37: the fix raises
the buffer, the message names the smaller batch). Hand-computed: A3 fullmesh_v1, h 7168, k 8, EP 16, 256 experts
(16 per rank) needs 2 x (14848 x 16 x 16 + 14336 x 8) = 7831552 B per token of max_bs; 400 MiB = 419430400 B holds
53 (415064064 B), not 54 (422903808 B)."""
from __future__ import annotations

import pytest

from moecfg.checking.engine import lint_text

DOC = ("product: A3\ncann_version: 9.0.1\nbs: {bs}\nh: 7168\nk: 8\nep_world_size: 16\nmoe_expert_num: 256\n"
       "{extra}env:\n  HCCL_BUFFSIZE: {buf}\n")


def mc501(**kw) -> str:
    [r] = lint_text(DOC.format(**{"extra": "", **kw}), "a.yaml")
    [d] = [d for d in r.diagnostics if d.code == "MC501"]
    return d.message


@pytest.mark.parametrize("buf, said", [
    (400, "set HCCL_BUFFSIZE >= 478 (or lower bs to 53)"),
    (8, "set HCCL_BUFFSIZE >= 478 (or lower bs to 1)"),  # 7831552 B = 7.47 MiB: one token fits in 8 MB
])
def test_mc501_names_the_largest_bs(buf, said):
    assert mc501(bs=64, buf=buf).endswith(said)


def test_mc501_names_nothing_when_one_token_does_not_fit():
    assert mc501(bs=64, buf=7).endswith("set HCCL_BUFFSIZE >= 478")


def test_mc501_with_global_bs_names_global_bs():
    # global_bs 2048 over EP 16: max_bs 128 (956 MB); 400 MB holds max_bs 53 = global_bs 848
    assert mc501(bs=16, buf=400, extra="global_bs: 2048\n").endswith("set HCCL_BUFFSIZE >= 956 (or lower global_bs to 848)")
