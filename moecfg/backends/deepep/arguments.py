"""Pure helpers for launch front ends: the DeepEP constructor arguments a framework computes, and the
`kind: deepep` document that checks them. Ints in, dicts of ints out; no I/O, no validation.

Each `*_buffer_arguments` returns the keyword arguments the framework passes to DeepEP's `Buffer`
(num_nvl_bytes, num_rdma_bytes, low_latency_mode, num_qps_per_rank) and `deepep_document(...)` turns shapes
plus those arguments into a document for `moecfg check` (api v1); `elastic_document(...)` and
`hybridep_document(...)` do the same for DeepEP V2 and Hybrid-EP.
"""
from __future__ import annotations

from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.backends.deepep.ops.v2 import formulas as v2

MIB = 1 << 20


def _configs(num_ranks: int, num_sms: int, dispatch=None, combine=None):
    """(dispatch, combine) DeepEPConfig: given 4-lists [nvl_send, nvl_recv, rdma_send, rdma_recv] or DeepEP's table."""
    d = fx.DeepEPConfig(num_sms, *dispatch) if dispatch else fx.default_dispatch_config(num_ranks, num_sms)
    c = fx.DeepEPConfig(num_sms, *combine) if combine else fx.default_combine_config(num_ranks, num_sms)
    if d is None or c is None:
        raise ValueError(f"DeepEP has no default config for {num_ranks} ranks")
    return d, c


def normal_hint_bytes(hidden_bytes: int, num_ranks: int, num_sms: int = fx.DEFAULT_NUM_SMS, dispatch=None,
                      combine=None) -> tuple[int, int]:
    """(nvl, rdma): the max over the dispatch and combine configs of DeepEP's normal-mode hints."""
    return fx.normal_mode_buffer_bytes(hidden_bytes, num_ranks, *_configs(num_ranks, num_sms, dispatch, combine))


# sgl-project/sglang@003a81b python/sglang/srt/layers/moe/token_dispatcher/deepep.py DeepEPBuffer.get_deepep_buffer.
def sglang_buffer_arguments(mode: str, num_ranks: int, hidden: int, num_experts: int, params_bytes: int = 2,
                            num_max_dispatch_tokens_per_rank: int = 128, num_sms: int = fx.DEFAULT_NUM_SMS,
                            dispatch=None, combine=None) -> dict:
    """SGLang's Buffer arguments for --deepep-mode normal | low_latency | auto.

    `params_bytes` is 2 for BF16 and 1 for FP8 / NVFP4 dispatch (SGLang sizes the normal hints with
    hidden * params_bytes, below DeepEP's hidden * max(elem, 2): see rule MC644)."""
    nvl = rdma = 0
    if mode in ("normal", "auto"):
        nvl, rdma = normal_hint_bytes(hidden * params_bytes, num_ranks, num_sms, dispatch, combine)
    if mode in ("low_latency", "auto"):
        rdma = max(fx.low_latency_rdma_size_hint(num_max_dispatch_tokens_per_rank, hidden, num_ranks, num_experts), rdma)
    local = num_experts // num_ranks
    qps = {"normal": num_sms, "low_latency": local, "auto": max(num_sms, local)}[mode]
    return {"num_nvl_bytes": nvl, "num_rdma_bytes": rdma, "low_latency_mode": mode != "normal",
            "num_qps_per_rank": qps}


# vllm-project/vllm vllm/distributed/device_communicators/all2all.py DeepEPHTAll2AllManager / DeepEPLLAll2AllManager
# ._make_all2all_kwargs (as read for ../shared/spec/frameworks.md §1.14; the front end pins the vLLM version).
def vllm_buffer_arguments(backend: str, num_ranks: int, hidden: int, num_experts: int, max_num_tokens: int = 256,
                          buffer_size_mb: int = 1024, num_sms: int = fx.DEFAULT_NUM_SMS) -> dict:
    """vLLM's Buffer arguments for --all2all-backend deepep_high_throughput | deepep_low_latency."""
    nvl = buffer_size_mb * MIB
    if backend == "deepep_low_latency":
        rdma = fx.low_latency_rdma_size_hint(max_num_tokens, hidden, num_ranks, num_experts)
        return {"num_nvl_bytes": nvl, "num_rdma_bytes": rdma, "low_latency_mode": True,
                "num_qps_per_rank": num_experts // num_ranks}
    internode = num_ranks > fx.NUM_MAX_NVL_PEERS
    return {"num_nvl_bytes": nvl, "num_rdma_bytes": nvl if internode else 0, "low_latency_mode": False,
            "num_qps_per_rank": num_sms // 2 if internode else 1}


# NVIDIA/Megatron-LM megatron/core/transformer/moe/fused_a2a.py get_buffer: DeepEP's README sizing.
def megatron_buffer_arguments(num_ranks: int, hidden: int, elem_size: int = 2, num_sms: int = fx.DEFAULT_NUM_SMS) -> dict:
    nvl, rdma = normal_hint_bytes(fx.hidden_bytes(hidden, elem_size), num_ranks, num_sms)
    return {"num_nvl_bytes": nvl, "num_rdma_bytes": rdma, "low_latency_mode": False}


def deepep_document(mode: str, num_ranks: int, hidden: int, num_experts: int, num_topk: int, *, dtype: str = "bf16",
                    num_max_dispatch_tokens_per_rank: int | None = None, arguments: dict | None = None,
                    **fields) -> dict:
    """A `kind: deepep` (api v1) document: shapes, plus the Buffer arguments a framework computed."""
    doc = {"kind": "deepep", "mode": mode, "num_ranks": num_ranks, "hidden": hidden, "num_experts": num_experts,
           "num_topk": num_topk, "dtype": dtype}
    if num_max_dispatch_tokens_per_rank is not None:
        doc["num_max_dispatch_tokens_per_rank"] = num_max_dispatch_tokens_per_rank
    for key in ("num_nvl_bytes", "num_rdma_bytes", "num_qps_per_rank"):
        if arguments and arguments.get(key) is not None:
            doc[key] = arguments[key]
    return doc | fields


def elastic_document(num_ranks: int, num_experts: int, num_max_tokens_per_rank: int, hidden: int, num_topk: int = 0,
                     **fields) -> dict:
    """A `kind: deepep`, `api: v2` document (ElasticBuffer keyword arguments; fields e.g. num_nvl_ranks)."""
    return {"kind": "deepep", "api": "v2", "num_ranks": num_ranks, "num_experts": num_experts,
            "num_max_tokens_per_rank": num_max_tokens_per_rank, "hidden": hidden, "num_topk": num_topk} | fields


def elastic_buffer_bytes(num_ranks: int, num_max_tokens_per_rank: int, hidden: int, num_topk: int = 0,
                         use_fp8_dispatch: bool = False, num_nvl_ranks: int = 8, allow_hybrid_mode: bool = True,
                         allow_multiple_reduction: bool = True) -> int:
    """ElasticBuffer.get_buffer_size_hint: what ElasticBuffer allocates when num_bytes is not given."""
    topo = v2.topology(num_ranks, num_nvl_ranks, allow_hybrid_mode)
    return v2.buffer_size(num_max_tokens_per_rank, hidden, num_topk, use_fp8_dispatch, topo,
                          allow_multiple_reduction).num_bytes


def hybridep_document(num_ranks: int, hidden_dim: int, max_num_of_tokens_per_rank: int, num_local_experts: int,
                      **fields) -> dict:
    """A `kind: deepep`, `api: hybridep` document (HybridEPBuffer keyword arguments)."""
    return {"kind": "deepep", "api": "hybridep", "num_ranks": num_ranks, "hidden_dim": hidden_dim,
            "max_num_of_tokens_per_rank": max_num_of_tokens_per_rank, "num_local_experts": num_local_experts} | fields
