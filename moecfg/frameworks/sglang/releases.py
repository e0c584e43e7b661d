"""What differs between SGLang releases for the DeepEP derivation on GPUs, read in the released wheels
(`pip download --no-deps sglang==X`; paths inside the wheel, line numbers of that release).

- MegaMoE switch: `SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE=1` turns --moe-a2a-backend into `megamoe` (DeepGEMM MegaMoE, no
  DeepEP Buffer): sglang==0.5.12 sglang/srt/server_args.py:3197-3202, sglang==0.5.17
  sglang/srt/arg_groups/overrides.py:2465-2470 (`_a2a_backend_overrides`). No release from 0.5.19 reads the variable
  (`--moe-a2a-backend megamoe` is the flag: sglang==0.5.23 sglang/srt/arg_groups/fields/exec_.py:845).
- deepep_v2 token cap: SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK (EnvInt(128), sglang==0.5.23
  sglang/srt/environ.py:1441; read by layers/moe/token_dispatcher/deepep_v2.py:509-511), first in 0.5.19; it is
  checked at start-up against the decode CUDA graph and the per-rank prefill (arg_groups/moe_hook.py:680-705).
- FP8 sizing: every release 0.5.1 .. 0.5.23 builds the normal Buffer with `self.params_bytes = 2`
  (sglang==0.5.23 layers/moe/token_dispatcher/deepep.py:402, passed to get_deepep_buffer at :739 as hidden x 2);
  only SGLang main after 0.5.23 (@003a81b set_deepep_dispatcher_dtype) sizes FP8 at 1 byte per element.
A launch whose version is not known (no image tag, no framework_versions) is read as the newest release, except
that the MegaMoE variable is honoured (recipes that set it run a release that reads it).
"""
from __future__ import annotations

from moecfg.frameworks.flag_tables import version_tuple

V1_CAP = "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
V2_CAP = "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
MEGA_MOE = "SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE"
_MEGA_MOE_READ = ((0, 5, 12, 0), (0, 5, 18, 0))  # [first, after last) release reading MEGA_MOE


def _version(pick) -> tuple | None:
    return version_tuple(pick.release) if pick is not None and pick.known else None


def reads_mega_moe_env(pick) -> bool:
    v = _version(pick)
    return v is None or _MEGA_MOE_READ[0] <= v < _MEGA_MOE_READ[1]


def v2_cap_variable(pick) -> str:
    """The variable deepep_v2's token cap comes from (V2's own from 0.5.19; the V1 variable before)."""
    v = _version(pick)
    return V2_CAP if v is None or v >= (0, 5, 19, 0) else V1_CAP
