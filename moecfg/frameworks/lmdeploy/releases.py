"""What differs between LMDeploy releases on Ascend, read in each release's
lmdeploy/pytorch/backends/dlinfer/ascend/op_backend.py (`init_mc2_token_capacity`, `select_moe_comm_type`).

Expert parallelism on Ascend (MC2 / all-to-all / all-gather through dlinfer) arrives in v0.12.1 (InternLM/lmdeploy
PR #3696, 09071c7, with dlinfer PR #237 bb64031, first in dlinfer-ascend 0.2.7). Two behaviours since:
- v0.12.1 .. v0.14.0: capacity = min(max_batches, 512) rounded up to a multiple of TP; A3 runs MC2 for any step
  within it (prefill too) (@e5df4e8 L310-333, tag v0.12.1; @5d4fac9 L305-328, tag v0.14.0).
- v0.15.0 on: capacity = min(max_batches x (1 + num_spec_tokens), 512) rounded up to TP; A3 runs MC2 only when every
  DP rank decodes (`global_is_decoding`), else all-to-all (PR #4721 99c215f; @f4b8140 L336-359, tag v0.15.0; the
  same lines in v0.16.0 @1208bf0 and in the 0.17.0 / 0.18.0 wheels, L338-361 / L362-385).
A2 is the same in all: MC2 when the step's tokens fit the capacity and dp x tp >= 16, else all-gather.
"""
from __future__ import annotations

from dataclasses import dataclass

REPO = "InternLM/lmdeploy"


@dataclass(frozen=True, slots=True)
class Release:
    ref: str  # where the op selection was read
    spec_capacity: bool  # capacity counts the draft tokens (x (1 + num_spec_tokens))
    a3_decode_only: bool  # A3 runs MC2 only for decode steps


_OLD = dict(spec_capacity=False, a3_decode_only=False)
_NEW = dict(spec_capacity=True, a3_decode_only=True)
RELEASES = {
    "0.12.1": Release(f"{REPO}@e5df4e8 (v0.12.1) op_backend.py:310-333", **_OLD),
    "0.12.2": Release(f"{REPO}@9a50f1f (v0.12.2) op_backend.py:310-333", **_OLD),
    "0.12.3": Release(f"{REPO}@8ea459f (v0.12.3) op_backend.py:309-332", **_OLD),
    "0.13.0": Release(f"{REPO}@e6948c1 (v0.13.0) op_backend.py:305-328", **_OLD),
    "0.14.0": Release(f"{REPO}@5d4fac9 (v0.14.0) op_backend.py:305-328", **_OLD),
    "0.15.0": Release(f"{REPO}@f4b8140 (v0.15.0) op_backend.py:336-359", **_NEW),
    "0.16.0": Release(f"{REPO}@1208bf0 (v0.16.0) op_backend.py:336-359", **_NEW),
    "0.17.0": Release("lmdeploy 0.17.0 wheel, op_backend.py:338-361", **_NEW),
    "0.18.0": Release("lmdeploy 0.18.0 wheel, op_backend.py:362-385", **_NEW),
}
FIRST_EP = (0, 12, 1)  # Ascend EP (dlinfer MC2) from here on


def _tuple(text: str) -> tuple[int, ...] | None:
    """(major, minor, micro) of a version as written (packaging.version: frameworks/versions.py)."""
    from moecfg.frameworks.versions import release

    return release(text)


def match(version_text: str) -> str | None:
    """The release table for a version as written (`0.16.0`, `v0.15.1`, `0.19.0`: the newest read at or below it),
    or None: before Ascend EP (0.12.1) or not a version."""
    wanted = _tuple(version_text)
    if wanted is None or wanted < FIRST_EP:
        return None
    known = [v for v in RELEASES if _tuple(v) <= wanted]
    return known[-1] if known else None
