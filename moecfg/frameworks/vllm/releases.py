"""What differs between vLLM (GPU) versions for the MoE all-to-all: where the backend is read from.

- <= 0.11.0: only the environment variable VLLM_ALL2ALL_BACKEND; `--all2all-backend` does not exist (argparse:
  "unrecognized arguments: --all2all-backend deepep_low_latency", vllm-project/vllm#27347).
- 0.11.1 .. 0.15: `--all2all-backend` (vllm-project/vllm PR #26732, merged 2025-10-13); the environment variable still
  works, deprecated, and the flag wins when both are set.
- main (>= 0.16): the environment variable is gone (PR #33535, merged 2026-02-02; llm-d PR #856 moved to the flag):
  VLLM_ALL2ALL_BACKEND is ignored and the default allgather_reducescatter runs. The release that first shipped
  #33535 is taken as 0.16.0 (the PR says "scheduled for removal in v0.15.0" and merged after the v0.15.0 cut).
The Buffer arguments are the same in all three: read at vllm-project/vllm@0014300
vllm/distributed/device_communicators/all2all.py (DeepEPHTAll2AllManager / DeepEPLLAll2AllManager
._make_all2all_kwargs) and @f218f9c vllm/envs.py (VLLM_DEEPEP_BUFFER_SIZE_MB 1024, VLLM_MOE_DP_CHUNK_SIZE 256).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

V = "vllm-project/vllm"
A2A = f"{V}@0014300 vllm/distributed/device_communicators/all2all.py"
ENVS = f"{V}@f218f9c vllm/envs.py"
MOE = f"{V} vllm/model_executor/layers/fused_moe/layer.py FusedMoEConfig(max_num_tokens=envs.VLLM_MOE_DP_CHUNK_SIZE)" \
    " + all2all_utils.py maybe_make_prepare_finalize (max_num_tokens_per_dp_rank=moe.max_num_tokens)"


@dataclass(frozen=True, slots=True)
class Release:
    key: str
    flag: bool  # --all2all-backend exists
    env: bool  # VLLM_ALL2ALL_BACKEND is read
    ref: str


RELEASES = {
    "0.11.0": Release("0.11.0", flag=False, env=True, ref="v0.11.0 (env VLLM_ALL2ALL_BACKEND only; vllm#27347)"),
    "0.14.0": Release("0.14.0", flag=True, env=True, ref="v0.11.1..v0.15 (--all2all-backend, PR #26732; env deprecated)"),
    "main": Release("main", flag=True, env=False, ref="main / >= v0.16 (env removed, PR #33535)"),
}


def match(text: str) -> str | None:
    """A vLLM version string -> its RELEASES key (None: not a version)."""
    if text.strip().lower() == "main":
        return "main"
    m = re.match(r"^v?(\d+)\.(\d+)(?:\.(\d+))?", text.strip())
    if not m:
        return None
    v = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
    if v < (0, 11, 1):
        return "0.11.0"
    return "0.14.0" if v < (0, 16, 0) else "main"
