"""What differs between LightLLM releases for expert parallelism, read in each release's code (ModelTC/LightLLM at
its tags; the package registry's `lightllm` 0.0.1 is an unrelated 2024 upload without the server).

v1.0.0 / v1.0.1 (2025-02/03) predate DeepEP in LightLLM (ModelTC/LightLLM#783, 2025-03-28): not read.

v1.1.0 (@0f5d0ccf9, 2025-09-03):
- EP is switched on by the environment: MOE_MODE != "TP" (default "TP")
  (lightllm/distributed/communication_op.py:133-137).
- one DeepEP Buffer for prefill (normal kernels) and decode (low-latency kernels): Buffer(group, int(1e9),
  get_low_latency_rdma_size_hint(T, hidden, world, experts), low_latency_mode=True, num_qps_per_rank=experts //
  world) (communication_op.py:141-156), T = NUM_MAX_DISPATCH_TOKENS_PER_RANK (default 256,
  lightllm/utils/envs_utils.py:58-60), experts = routed + redundancy_expert_num x world (communication_op.py:146).
- decode CUDA graphs up to --graph_max_batch_size (halved with --enable_decode_microbatch_overlap)
  (lightllm/common/basemodel/basemodel.py:68-73).
- prefill runs the normal kernels on that Buffer (common/basemodel/layer_weights/meta_weights/fused_moe_weight_ep.py
  :246-260, get_dispatch_layout + dispatch) with Buffer.num_sms = DEEPEP_SMS, else 20 (communication_op.py:158-166).

v1.2.0 (@25475e949, 2026-08-10; main @87881ae has the same EP code):
- EP is switched on by --enable_ep_moe (lightllm/server/api_cli.py:708-712; communication_op.py:172-180); MOE_MODE
  is no longer read.
- prefill: DeepEP V2 ElasticBuffer(group, num_max_tokens_per_rank=T_prefill, hidden, num_topk, use_fp8_dispatch=True,
  allow_multiple_reduction=True) (communication_op.py:192-203); T_prefill = NUM_MAX_DISPATCH_TOKENS_PER_RANK_PREFILL,
  else --batch_max_tokens (or 256) rounded up to a multiple of 8 (envs_utils.py:71-82); every prefill dispatch passes
  num_max_tokens_per_rank=T_prefill (common/basemodel/triton_kernel/fused_moe/grouped_fused_moe_ep.py:279-292).
- decode: a low-latency Buffer(group, num_rdma_bytes=get_low_latency_rdma_size_hint(T_decode, hidden, world,
  experts), low_latency_mode=True, num_qps_per_rank=experts // world) (communication_op.py:231-242), except on SM100
  GPUs whose MoE layers are all FP4 (DeepGEMM Mega MoE, :213-229); T_decode = NUM_MAX_DISPATCH_TOKENS_PER_RANK_DECODE
  (default 256, envs_utils.py:85-87). NUM_MAX_DISPATCH_TOKENS_PER_RANK is no longer read (LightLLM's own
  test/acc/test_deepseekr1_mtp_ep.sh still sets it).
- decode CUDA graphs up to --graph_max_batch_size (halved with --enable_decode_microbatch_overlap) x (--mtp_step + 1)
  (basemodel.py:81-89; cuda_graph.py:25-49).
- --batch_max_tokens defaults to 16384 // --dp with chunked prefill, to --max_req_total_len without
  (lightllm/server/api_start.py:230-249).
Both: the world is --tp (all GPUs, every node: server/router/manager.py:49, :123 asserts --tp % --nnodes == 0);
--dp splits it into DP groups of --tp / --dp ranks (manager.py:57).
"""
from __future__ import annotations

from dataclasses import dataclass

REPO = "ModelTC/LightLLM"


@dataclass(frozen=True, slots=True)
class Release:
    ref: str  # repo@commit, for citations
    ep_flag: bool  # --enable_ep_moe (True) or MOE_MODE (False) switches EP on
    elastic_prefill: bool  # prefill runs DeepEP V2 ElasticBuffer, decode its own low-latency Buffer
    decode_cap: str  # the variable of the decode token cap
    mtp_graph: bool  # the decode CUDA graph batch counts the MTP draft tokens
    comm: str  # the file:lines that build the buffers
    graph: str  # the file:lines of the decode CUDA graph size
    env: str  # the file:lines of the token-cap variables


RELEASES = {
    "1.1.0": Release(f"{REPO}@0f5d0ccf9", False, False, "NUM_MAX_DISPATCH_TOKENS_PER_RANK", False,
                     "lightllm/distributed/communication_op.py:132-156",
                     "lightllm/common/basemodel/basemodel.py:68-73", "lightllm/utils/envs_utils.py:58-60"),
    "1.2.0": Release(f"{REPO}@25475e949", True, True, "NUM_MAX_DISPATCH_TOKENS_PER_RANK_DECODE", True,
                     "lightllm/distributed/communication_op.py:172-242",
                     "lightllm/common/basemodel/basemodel.py:81-89", "lightllm/utils/envs_utils.py:71-87"),
}
PREFILL_CAP = "NUM_MAX_DISPATCH_TOKENS_PER_RANK_PREFILL"
DEFAULT_T = 256
