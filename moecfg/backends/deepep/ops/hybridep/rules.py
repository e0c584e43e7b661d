"""NVIDIA Hybrid-EP `HybridEPBuffer` (MC670-MC675), `api: hybridep` (Megatron `--moe-flex-dispatcher-backend
hybridep`).

`BufferConfig::is_valid` (checked when the buffer is built; the Python wrapper asserts the same for every
kernel config) needs: hidden % 16 (BF16 tokens) or % 512 (FP8 tokens with scales); (experts per rank x ranks
per NVLink domain) % 4 == 0 and (dispatch chunk x ranks per domain) % 4 == 0 (TMA); across domains
3 x tokens + 1 < 65536 (IB QP TX depth), where the buffer's tokens per rank are max(T, 512) rounded up to the
combine chunk (64), so T <= 21824 with the default chunk (the notes' 21844 is the unpadded bound). The group
must be whole NVLink domains of at most 72 ranks (GB200 NVL72; arrays are sized by it).
Source: deepseek-ai/DeepEP@94a9f8f6b146c07d97ec58f67cd6d303296d6098 (branch hybrid-ep, 2026-07-10).
"""
from __future__ import annotations

from moecfg.core.registry import rule
from moecfg.backends.deepep.ops.hybridep import formulas as hx
from moecfg.backends.deepep.shared.rules import finding, yaml_doc

_F = "deepep-hybridep"
_AT = "deepseek-ai/DeepEP@94a9f8f"
# Megatron-style DeepSeek-V3 training on 4 x GB200 NVL4-style trays of 4: 64 ranks, 4 per domain, 4 experts/rank.
BASE = dict(kind="deepep", api="hybridep", num_ranks=64, hidden_dim=7168, max_num_of_tokens_per_rank=8192,
            num_local_experts=4, num_of_hybrid_ep_ranks_per_nvlink_domain=4)
_INVALID = ("HybridEPBuffer's Configurer prints `[Error] Invalid BufferConfig: ...` and raises `RuntimeError: The "
            "buffer config is not valid.` (csrc/hybrid_ep/config.cuh:393-398) when the buffer is built")
_ERROR = "RuntimeError: The buffer config is not valid."

VALUES = rule(
    "MC670", "hybridep-value-range", "error", "HybridEPBuffer counts positive", family=_F,
    source=f"{_AT} deep_ep/hybrid_ep_buffer.py:35-56",
    why="A zero or negative count builds no valid buffer (division by the ranks per domain, empty tensors). moecfg "
    "skips the other Hybrid-EP rules for the document.",
    fail_example=yaml_doc(BASE, num_local_experts=0), pass_example=yaml_doc(BASE),
    fix="Give every count a positive value.")
DOMAINS = rule(
    "MC671", "hybridep-nvlink-domain", "error", "num_ranks a multiple of the ranks per NVLink domain, <= 72 each",
    family=_F, source=f"{_AT} deep_ep/hybrid_ep_buffer.py:74-76; csrc/hybrid_ep/config.cuh:16; "
    "csrc/hybrid_ep/backend/hybrid_ep_backend.cuh:587-639; csrc/hybrid_ep/extension/allgather.cu:96",
    why="HybridEPBuffer asserts the group is whole NVLink domains; the kernels' per-peer pointer arrays hold "
    "MAX_NUM_OF_RANKS_PER_NODE = 72 entries (GB200 NVL72), so a larger domain writes past them.",
    cann_error="AssertionError: The number of ranks 60 should be divisible by the number of ranks per node 8",
    fail_example=yaml_doc(BASE, num_of_hybrid_ep_ranks_per_nvlink_domain=96, num_ranks=96),
    pass_example=yaml_doc(BASE, num_of_hybrid_ep_ranks_per_nvlink_domain=72, num_ranks=72),
    fix="Use whole NVLink domains of at most 72 ranks (NUM_OF_HYBRID_EP_RANKS_PER_NVLINK_DOMAIN).")
HIDDEN = rule(
    "MC672", "hybridep-hidden", "error", "hidden_dim % 16 (BF16) or % 512 (FP8)", family=_F,
    source=f"{_AT} csrc/hybrid_ep/config.cuh:86-90",
    why=_INVALID + ": TMA moves BF16 tokens in 16-element units and FP8 tokens with one scale per 128 elements in "
    "512-element units.", cann_error=_ERROR,
    fail_example=yaml_doc(BASE, use_fp8=True, hidden_dim=2880), pass_example=yaml_doc(BASE, use_fp8=True),
    fix="BF16: hidden_dim divisible by 16; FP8 (use_fp8): by 512, or dispatch in BF16.")
TMA_GROUPS = rule(
    "MC673", "hybridep-tma-groups", "error", "(experts/rank x ranks/domain) and (dispatch chunk x ranks/domain) % 4",
    family=_F, source=f"{_AT} csrc/hybrid_ep/config.cuh:91-93,383",
    why=_INVALID + ": the routing map and the dispatch chunks of a domain are copied by TMA in 16-byte (4 x int32) "
    "units.", cann_error=_ERROR,
    fail_example=yaml_doc(BASE, num_local_experts=3, num_of_hybrid_ep_ranks_per_nvlink_domain=2, num_ranks=64),
    pass_example=yaml_doc(BASE),
    fix="Choose experts per rank and ranks per domain whose product is a multiple of 4 (and a dispatch chunk "
    "NUM_OF_TOKENS_PER_CHUNK_DISPATCH_API that keeps chunk x ranks per domain a multiple of 4).")
TOKENS = rule(
    "MC674", "hybridep-multinode-tokens", "error", "across NVLink domains: 3 x padded tokens per rank + 1 < 65536",
    family=_F, source=f"{_AT} csrc/hybrid_ep/config.cuh:18-50,52-62,383-388",
    why=_INVALID + " across NVLink domains: the dispatch posts 3 work requests per token (+1) on one IB QP whose TX "
    "depth is below 65536. The buffer's token count is max(T, 512) rounded up to the combine chunk.",
    cann_error="[Error] Invalid BufferConfig: max_num_of_tokens_per_rank=21888 exceeds the supported maximum number "
    "of 21844 tokens in multi-node mode (required IB QP tx depth 65665, limit < 65536).",
    fail_example=yaml_doc(BASE, max_num_of_tokens_per_rank=21840),
    pass_example=yaml_doc(BASE, max_num_of_tokens_per_rank=21824),
    fix="At most 21824 tokens per rank across domains with the default 64-token combine chunk (21844 unpadded): "
    "lower the sequence length x micro-batch per rank, or split it.")
SMS = rule(
    "MC675", "hybridep-sms", "error", "dispatch / combine SMs within the GPU's SMs", family=_F,
    source=f"{_AT} csrc/hybrid_ep/config.cuh:365-372",
    why="The Configurer asserts sm_count >= num_sms_dispatch_api and >= num_sms_combine_api (C assert: the process "
    "aborts).", cann_error="Assertion `sm_count >= sms_dispatch && sm_count >= sms_combine' failed.",
    fail_example=yaml_doc(BASE, num_sms_dispatch_api=160), pass_example=yaml_doc(BASE, num_sms_dispatch_api=32),
    fix="num_sms_dispatch_api / num_sms_combine_api (Megatron --moe-hybridep-num-sms) at most the GPU's SMs.")


def value_ranges(h):
    for name in ("num_ranks", "hidden_dim", "max_num_of_tokens_per_rank", "num_local_experts",
                 "num_of_hybrid_ep_ranks_per_nvlink_domain", "num_of_tokens_per_chunk_dispatch_api", "device_sms"):
        if getattr(h, name) < 1:
            yield finding(VALUES, name, f"`{name}` = {getattr(h, name)} must be >= 1")
    for name in ("num_sms_dispatch_api", "num_sms_combine_api"):
        if getattr(h, name) is not None and getattr(h, name) < 1:
            yield finding(VALUES, name, f"`{name}` = {getattr(h, name)} must be >= 1")


def domains(h):
    per = h.num_of_hybrid_ep_ranks_per_nvlink_domain
    if h.num_ranks % per:
        yield finding(DOMAINS, "num_ranks", f"num_ranks = {h.num_ranks} is not a multiple of the {per} ranks per NVLink "
                      f"domain; HybridEPBuffer asserts \"The number of ranks {h.num_ranks} should be divisible by the "
                      f"number of ranks per node {per}\"")
    if per > hx.MAX_RANKS_PER_NODE:
        yield finding(DOMAINS, "num_of_hybrid_ep_ranks_per_nvlink_domain", f"{per} ranks per NVLink domain exceed "
                      f"MAX_NUM_OF_RANKS_PER_NODE = {hx.MAX_RANKS_PER_NODE} (GB200 NVL72)")


def hidden(h):
    m = hx.hidden_multiple(h.use_fp8)
    if h.hidden_dim % m:
        yield finding(HIDDEN, "hidden_dim", f"hidden_dim = {h.hidden_dim} must be a multiple of {m} with "
                      f"{'FP8 (use_fp8)' if h.use_fp8 else 'BF16'} tokens (BufferConfig::is_valid); use "
                      f"{-(-h.hidden_dim // m) * m}")


def tma_groups(h):
    per = h.num_of_hybrid_ep_ranks_per_nvlink_domain
    if h.num_local_experts * per % hx.TMA_GROUP_MULTIPLE:
        yield finding(TMA_GROUPS, "num_local_experts", f"num_local_experts x ranks per domain = {h.num_local_experts} "
                      f"x {per} = {h.num_local_experts * per} is not a multiple of 4 (BufferConfig::is_valid)")
    chunk = h.num_of_tokens_per_chunk_dispatch_api
    if chunk * per % hx.TMA_GROUP_MULTIPLE:
        yield finding(TMA_GROUPS, "num_of_tokens_per_chunk_dispatch_api", f"dispatch chunk x ranks per domain = "
                      f"{chunk} x {per} = {chunk * per} is not a multiple of 4 (BufferConfig::is_valid)")


def tokens(h):
    nodes = h.num_ranks // h.num_of_hybrid_ep_ranks_per_nvlink_domain
    padded = hx.buffer_tokens_per_rank(h.max_num_of_tokens_per_rank, h.num_of_tokens_per_chunk_combine_api)
    if nodes <= 1 or hx.tx_depth(padded) < hx.IB_QP_MAX_TX_DEPTH:
        return
    best = hx.max_tokens_multinode_padded(h.num_of_tokens_per_chunk_combine_api)
    yield finding(TOKENS, "max_num_of_tokens_per_rank", f"max_num_of_tokens_per_rank = {h.max_num_of_tokens_per_rank} "
                  f"(buffer: {padded} after padding to the {h.num_of_tokens_per_chunk_combine_api}-token combine chunk) "
                  f"across {nodes} NVLink domains needs IB QP TX depth 3 x {padded} + 1 = {hx.tx_depth(padded)}, limit "
                  f"< {hx.IB_QP_MAX_TX_DEPTH}; at most {best} tokens per rank")


def sms(h):
    nodes = max(h.num_ranks // h.num_of_hybrid_ep_ranks_per_nvlink_domain, 1)
    for name in ("num_sms_dispatch_api", "num_sms_combine_api"):
        value = getattr(h, name) or hx.default_sms(nodes)
        if value > h.device_sms:
            yield finding(SMS, name, f"{name} = {value} exceeds the GPU's {h.device_sms} SMs (device_sms)")


CHECKS = (domains, hidden, tma_groups, tokens, sms)
