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


# MoE runners whose FlashInfer autotune warm-up runs a dummy batch of --max-running-requests // dp at start-up
_AUTOTUNE_0_5_7 = ("flashinfer_trtllm", "flashinfer_mxfp4")  # sglang==0.5.10 model_executor/model_runner.py:2063-2080
_AUTOTUNE_NEW = ("flashinfer_trtllm", "flashinfer_trtllm_routed", "flashinfer_mxfp4", "flashinfer_cutedsl",
                 "flashinfer_cutlass", "flashinfer_megamoe")  # sglang==0.5.23 runner/flashinfer_autotune.py:117-124


def autotune_warmup(pick, runner: str, a2a: str, disabled: bool) -> tuple[bool, str]:
    """(a FlashInfer autotune warm-up surely runs at start-up, why), from should_run_flashinfer_autotune:
    --disable-flashinfer-autotune stops it; from 0.5.11 it skips flashinfer_cutedsl with deepep (sglang==0.5.11
    model_executor/model_runner.py:2380-2388; 0.5.23 runner/flashinfer_autotune.py:112-113). A version not known is
    taken to autotune every runner of the list: SGLang builds of 2026-04 did so for flashinfer_cutedsl + deepep
    (srt-slurm#42/#44, container sglang-nightly-ci pr-22925: `_flashinfer_autotune` -> `_dummy_run`). Autotune
    triggered by FP4 / FP8 GEMMs depends on the checkpoint's quantization: not certain, not counted."""
    if disabled:
        return False, "--disable-flashinfer-autotune"
    v = _version(pick)
    if v is not None and v < (0, 5, 7, 0):
        return False, f"SGLang {pick.release} runs no MoE-runner autotune warm-up"
    listed = _AUTOTUNE_0_5_7 if v is not None and v < (0, 5, 11, 0) else _AUTOTUNE_NEW
    if runner not in listed:
        return False, f"--moe-runner-backend {runner} runs no FlashInfer autotune warm-up"
    if v is not None and v >= (0, 5, 11, 0) and runner == "flashinfer_cutedsl" and a2a == "deepep":
        return False, f"SGLang {pick.release} skips the autotune for flashinfer_cutedsl with deepep"
    return True, f"--moe-runner-backend {runner}: SGLang's FlashInfer autotune warm-up runs a dummy batch of that " \
                 "size at start-up"


def params_bytes(pick, dispatch_dtype: str) -> tuple[int, str]:
    """(bytes per element SGLang sizes the normal Buffer with, why): 2 in every release read (sglang==0.5.1 .. 0.5.23
    layers/moe/token_dispatcher/deepep.py `self.params_bytes = 2`, :402 in 0.5.23), 1 for an 8-bit dispatch in SGLang
    main after 0.5.23 (@003a81b set_deepep_dispatcher_dtype), which an unknown version or a newer image is read as."""
    if pick is not None and pick.known and not pick.newer:
        return 2, f"SGLang {pick.release}: self.params_bytes = 2 for every dispatch dtype (token_dispatcher/deepep.py)"
    if dispatch_dtype in ("fp8", "nvfp4", "mxfp4", "mxfp8", "int8"):
        return 1, "SGLang main after 0.5.23 (@003a81b set_deepep_dispatcher_dtype: 1 byte for an 8-bit dispatch; " \
                  "releases 0.5.1 .. 0.5.23 size with 2 bytes: pin the image tag)"
    return 2, "2 bytes for a 16-bit dispatch"
