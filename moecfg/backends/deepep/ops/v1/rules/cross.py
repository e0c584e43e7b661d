"""Cross-setting rules (MC643-MC644): values that pass each DeepEP check alone but fail together.

MC643: the low-latency kernels count a rank's tokens per expert against `FINISHED_SUM_TAG` = 1024, so
`num_max_dispatch_tokens_per_rank` (T) must be <= 1024 (SGLang asserts it; vLLM does not). The QP-depth
condition `NVSHMEM_QP_DEPTH >= 2 * (T + 1)` is MC641. MC644: buffers sized with
`hidden * 1` byte (the FP8 element; SGLang @003a81b did, released SGLang 0.5.23 uses 2), while DeepEP's combine always
moves BF16 (2 bytes per element): below DeepEP's own intranode combine assertion it is an error (the first combine
fails), internode below the hint the kernels write up to a warning.
"""
from __future__ import annotations

from moecfg.core.registry import rule
from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.backends.deepep.arguments import sglang_buffer_arguments
from moecfg.backends.deepep.shared.rules import finding, yaml_doc

_F = "deepep-cross"
_LL = dict(kind="deepep", mode="low_latency", num_ranks=16, hidden=7168, num_experts=256, num_topk=8,
           num_max_dispatch_tokens_per_rank=1024, env={"NVSHMEM_QP_DEPTH": 4096})
_FP8 = dict(kind="deepep", mode="normal", num_ranks=8, hidden=7168, num_experts=256, num_topk=8, dtype="fp8")
_SGLANG = "sgl-project/sglang@003a81b python/sglang/srt/layers/moe/token_dispatcher/deepep.py"
_DEEPEP = "deepseek-ai/DeepEP@dd758ca"

LL_TOKEN_CAP = rule(
    "MC643", "deepep-ll-token-cap", "error", "low-latency: num_max_dispatch_tokens_per_rank <= 1024 (FINISHED_SUM_TAG)",
    family=_F, source=f"{_DEEPEP} csrc/kernels/legacy/internode_ll.cu:295,317,330 and compiled.cuh:14; "
    f"{_SGLANG} _DeepEPDispatcherImplBase.__init__ (assert <= 1024)",
    why="The low-latency dispatch adds FINISHED_SUM_TAG (1024) and then 1024 - sum per expert to a finish counter and "
    "waits for 2 x 1024 (csrc/kernels/legacy/internode_ll.cu:295-330); with more than 1024 tokens to one expert the "
    "counter passes 2048 before all sends are issued: tokens are lost or the kernel hangs. SGLang refuses the setting at "
    "start-up; vLLM (VLLM_MOE_DP_CHUNK_SIZE) does not.",
    cann_error="AssertionError (SGLang: assert self.num_max_dispatch_tokens_per_rank <= 1024)",
    fail_example=yaml_doc(_LL, num_max_dispatch_tokens_per_rank=1028),
    pass_example=yaml_doc(_LL),
    fix="Keep num_max_dispatch_tokens_per_rank (SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK, VLLM_MOE_DP_CHUNK_SIZE) "
    "at most 1024; run larger batches (prefill) in normal mode.")
SGLANG_FP8 = rule(
    "MC644", "deepep-fp8-normal-undersized", "error",
    "normal-mode buffers sized with 1 byte per element (the FP8 hint) are below DeepEP's BF16 combine",
    family=_F, tags=("buffer",),
    source=f"{_SGLANG} DeepEPBuffer.get_deepep_buffer (hidden_bytes = hidden_size * param_bytes, params_bytes = 1 "
    f"for FP8); {_DEEPEP} csrc/legacy/buffer.hpp:807-811 (intranode combine check, x.element_size() of BF16); "
    "released sglang==0.5.23 sizes with params_bytes = 2 (sglang/srt/layers/moe/token_dispatcher/deepep.py:402)",
    why="num_nvl_bytes / num_rdma_bytes computed from DeepEP's hints with hidden * 1 byte (the FP8 element, as SGLang "
    "@003a81b and its multi-node DeepEP example sized them; released SGLang 0.5.23 uses 2 bytes) are below what the "
    "combine needs: it always moves BF16 tokens (2 bytes per element) through the same buffer, which is why DeepEP's "
    "README and Megatron size with hidden * max(elem_size, 2). A value below DeepEP's own host assertion for the "
    "combine (intranode: buffer.hpp:807-811) fails at the first combine whatever the load: an error. A value that "
    "passes the assertion but is below the hint the internode kernels write up to is a warning. A launch that names no "
    "SGLang version is derived as main but gets the error as a warning saying so: every release sizes with 2 bytes.",
    cann_error="RuntimeError: Assertion exception (csrc/legacy/buffer.hpp:807): num_channels * num_ranks * sizeof(int) "
    "* 2 + num_channels * num_ranks * config.num_max_nvl_chunked_recv_tokens * hidden * x.element_size() + ... <= "
    "num_nvl_bytes",
    fail_example=yaml_doc(_FP8, num_nvl_bytes=188909184),
    pass_example=yaml_doc(_FP8, num_nvl_bytes=335709824),
    fix="Size the buffers with hidden * 2 bytes (DeepEP's get_hidden_bytes: max(elem_size, 2)); in SGLang, patch "
    "params_bytes to 2 for sizing or dispatch in BF16 (SGLANG_DEEPEP_BF16_DISPATCH=1).")


def token_cap(d, f):
    t = d.num_max_dispatch_tokens_per_rank
    if not d.low_latency or t is None or t <= fx.FINISHED_SUM_TAG:
        return
    yield finding(LL_TOKEN_CAP, "num_max_dispatch_tokens_per_rank", f"num_max_dispatch_tokens_per_rank = {t} exceeds "
                  f"{fx.FINISHED_SUM_TAG}: the low-latency kernels count tokens per expert against FINISHED_SUM_TAG = "
                  f"{fx.FINISHED_SUM_TAG} (SGLang asserts <= 1024); set it to at most {fx.FINISHED_SUM_TAG} and run "
                  "larger batches in normal mode")


CHECKS = (token_cap,)


def sglang_fp8_figures(d) -> dict | None:
    """SGLang's Buffer arguments for this FP8 document, or None when SGLang would not size it that way."""
    if d.dtype != "fp8" or d.mode == "low_latency" or d.num_experts % d.num_ranks:
        return None
    if d.mode == "auto" and d.num_max_dispatch_tokens_per_rank is None:
        return None
    try:
        return sglang_buffer_arguments(d.mode, d.num_ranks, d.hidden, d.num_experts, 1,
                                       d.num_max_dispatch_tokens_per_rank or 0, d.num_sms,
                                       d.dispatch_config, d.combine_config)
    except ValueError:
        return None


def sglang_signature(d, domain: str) -> bool:
    """The file's buffer of `domain` is exactly what SGLang computes with 1 byte per FP8 element."""
    figures = sglang_fp8_figures(d)
    have = getattr(d, f"num_{domain}_bytes")
    return bool(figures) and have is not None and have == figures[f"num_{domain}_bytes"]


def sglang_fp8(d, f, reqs):
    """MC644 on a buffer that matches SGLang's FP8 figure and is below what the BF16 combine needs."""
    for req in reqs:
        have = req.configured_bytes
        if not sglang_signature(d, req.domain) or have >= req.required_bytes:
            continue
        check = (f"below DeepEP's own check ({req.hard_check}: {req.hard_min_bytes} bytes)"
                 if have < req.hard_min_bytes else f"passes {req.hard_check} but is below the hint")
        yield finding(SGLANG_FP8, req.field, f"`{req.field}` = {have} is the FP8 figure (DeepEP's hint with hidden "
                      f"* 1 byte), but DeepEP's combine moves BF16: this setup needs {req.required_bytes} bytes "
                      f"(hidden * 2); {check}" + (", so the first combine fails whatever the load"
                                                   if have < req.hard_min_bytes else "")
                      + f"; set {req.field}: {req.required_bytes}",
                      "error" if have < req.hard_min_bytes else "warning")
