"""Cross-setting rules (MC643-MC644): values that pass each DeepEP check alone but fail together.

MC643: the low-latency kernels count a rank's tokens per expert against `FINISHED_SUM_TAG` = 1024, so
`num_max_dispatch_tokens_per_rank` (T) must be <= 1024 (SGLang asserts it; vLLM does not). The QP-depth
condition `NVSHMEM_QP_DEPTH >= 2 * (T + 1)` is MC641. MC644: SGLang sizes the normal-mode buffers with
`hidden * params_bytes` and params_bytes = 1 for FP8 dispatch, but DeepEP's combine always moves BF16
(2 bytes per element): a Buffer sized exactly that way is below DeepEP's own intranode combine check, and
internode below the hint the kernels write up to.
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
    "MC644", "deepep-fp8-normal-undersized", "warning",
    "normal-mode buffers sized with 1 byte per element (SGLang's FP8 sizing) are below DeepEP's BF16 combine",
    family=_F, tags=("buffer",),
    source=f"{_SGLANG} DeepEPBuffer.get_deepep_buffer (hidden_bytes = hidden_size * param_bytes, params_bytes = 1 "
    f"for FP8); {_DEEPEP} csrc/legacy/buffer.hpp:807-811 (intranode combine check, x.element_size() of BF16)",
    why="SGLang computes num_nvl_bytes / num_rdma_bytes from DeepEP's hints with hidden * params_bytes, and "
    "params_bytes is 1 for FP8 dispatch; DeepEP's README (and Megatron) use hidden * max(elem_size, 2) because the "
    "combine moves BF16 tokens through the same buffer. Intranode, DeepEP's combine check then fails at the first "
    "combine; internode the combine writes past what the hint reserved. This is an under-sizing in SGLang's code "
    "(FP8 is SGLang's default dispatch dtype for DeepSeek-V3 on GPUs: get_deepep_output_dtype), found by reading "
    "both sources at the commits cited; moecfg has not reproduced it on a GPU, and SGLang's own multi-node DeepEP "
    "example (docs @cccb654) is sized this way, so it is a warning until a run confirms it.",
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
        yield finding(SGLANG_FP8, req.field, f"`{req.field}` = {have} is what SGLang computes for FP8 dispatch "
                      f"(hint with hidden * 1 byte), but DeepEP's combine moves BF16: this setup needs {req.required_bytes} "
                      f"bytes (hidden * 2); {check}; set {req.field}: {req.required_bytes}",
                      None if have < req.hard_min_bytes else "warning")
