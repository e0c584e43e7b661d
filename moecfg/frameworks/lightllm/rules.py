"""LightLLM start-up rules (MC750-MC754): what LightLLM's own code refuses at start-up with these flags and
variables, and variables a release does not read. The DeepEP Buffers LightLLM builds are judged by the `deepep`
kind's rules (api v1 low-latency Buffer, api v2 ElasticBuffer), with LightLLM's knobs named beside each field.
Citations: releases.py (ModelTC/LightLLM v1.1.0 @0f5d0ccf9, v1.2.0 @25475e949).
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, WARNING
from moecfg.core.registry import rule

_F = "launch"
_L = "ModelTC/LightLLM@25475e949"
_OK = ("# the decode Buffer of `python -m lightllm.server.api_server --model_dir DeepSeek-R1 --tp 8 --dp 8 "
       "--enable_ep_moe`\nkind: deepep\nmode: low_latency\nnum_ranks: 8\nhidden: 7168\nnum_experts: 256\n"
       "num_topk: 8\nnum_max_dispatch_tokens_per_rank: 256\n")

WORLD_NODES = rule(
    "MC750", "lightllm-world-nnodes", ERROR, "LightLLM: --tp (the world, every node) must be a multiple of --nnodes",
    family=_F, source=f"{_L} lightllm/server/router/manager.py:49-50,123 (world_size = args.tp; assert (world_size % "
    "nnodes) == 0); lightllm/utils/dist_utils.py:131",
    why="LightLLM's --tp counts every GPU of every node and each node runs --tp / --nnodes ranks; a remainder stops "
    "the router at start-up.", fail_text="`python -m lightllm.server.api_server --tp 12 --nnodes 8 ...`.",
    pass_example=_OK, fix="Set --tp to the total GPU count (GPUs per node x --nnodes).")
DECODE_CAP = rule(
    "MC751", "lightllm-decode-token-cap", ERROR, "LightLLM: the decode CUDA graph batch exceeds the low-latency "
    "DeepEP token cap", family=_F,
    source=f"{_L} lightllm/common/basemodel/basemodel.py:81-89, cuda_graph.py:25-49 (captured batch sizes up to "
    "graph_max_batch_size x (mtp_step + 1)), cuda_graph.py:208-245 (warmup: a decode forward of every captured "
    "batch, the largest first, at start-up); triton_kernel/fused_moe/grouped_fused_moe_ep.py:341-351 "
    "(low_latency_dispatch with NUM_MAX_DISPATCH_TOKENS_PER_RANK_DECODE); v1.1.0 basemodel.py:68-73, "
    "NUM_MAX_DISPATCH_TOKENS_PER_RANK",
    why="LightLLM captures decode CUDA graphs at start-up for batches up to --graph_max_batch_size (halved with "
    "--enable_decode_microbatch_overlap, times --mtp_step + 1 from v1.2.0); each capture dispatches that many "
    "tokens per rank through DeepEP's low-latency kernels, which assert num_tokens <= "
    "num_max_dispatch_tokens_per_rank: a cap below the largest graph stops start-up.",
    fail_text="`NUM_MAX_DISPATCH_TOKENS_PER_RANK_DECODE=128 python -m lightllm.server.api_server --enable_ep_moe "
    "--tp 8 --dp 8 --graph_max_batch_size 256 ...`.", pass_example=_OK,
    fix="Raise the decode cap variable to the largest graph batch (a multiple of 8), or lower --graph_max_batch_size.")
PREFILL_CAP = rule(
    "MC752", "lightllm-prefill-token-cap", ERROR, "LightLLM 1.2: NUM_MAX_DISPATCH_TOKENS_PER_RANK_PREFILL below "
    "--batch_max_tokens", family=_F,
    source=f"{_L} lightllm/utils/envs_utils.py:71-82 (the cap; its comment: below batch_max_tokens DeepEP V2 errors "
    "in the autotune warm-up or a large prefill batch); grouped_fused_moe_ep.py:279-292 (every prefill dispatch "
    "passes num_max_tokens_per_rank); lightllm/server/api_start.py:230-249 (batch_max_tokens defaults); DeepEP V2 "
    "csrc/elastic/buffer.hpp dispatch: EP_HOST_ASSERT(num_tokens <= num_max_tokens_per_rank)",
    why="The ElasticBuffer LightLLM builds for prefill holds NUM_MAX_DISPATCH_TOKENS_PER_RANK_PREFILL tokens per rank; "
    "a prefill batch of up to --batch_max_tokens tokens is dispatched through it and DeepEP V2 refuses more tokens "
    "than the buffer was built for. Unset, LightLLM sizes it from --batch_max_tokens itself.",
    fail_text="`NUM_MAX_DISPATCH_TOKENS_PER_RANK_PREFILL=1024 python -m lightllm.server.api_server --enable_ep_moe "
    "--batch_max_tokens 8192 ...`.", pass_example=_OK,
    fix="Unset NUM_MAX_DISPATCH_TOKENS_PER_RANK_PREFILL (LightLLM then covers --batch_max_tokens) or raise it.")
IGNORED = rule(
    "MC753", "lightllm-variable-not-read", WARNING, "LightLLM: a variable this release does not read",
    family=_F, source=f"{_L} lightllm/utils/envs_utils.py:71-87, lightllm/distributed/communication_op.py:172-180; "
    "ModelTC/LightLLM@0f5d0ccf9 envs_utils.py:58-60, communication_op.py:133-137",
    why="LightLLM 1.2 reads NUM_MAX_DISPATCH_TOKENS_PER_RANK_PREFILL / _DECODE and --enable_ep_moe; 1.1 read "
    "NUM_MAX_DISPATCH_TOKENS_PER_RANK and MOE_MODE. A variable of the other release changes nothing: the cap or the "
    "MoE mode is LightLLM's default.",
    fail_text="`NUM_MAX_DISPATCH_TOKENS_PER_RANK=128 python -m lightllm.server.api_server --enable_ep_moe ...` "
    "(LightLLM 1.2: the decode cap stays 256).", pass_example=_OK,
    fix="Use the release's own variable (NUM_MAX_DISPATCH_TOKENS_PER_RANK_DECODE from 1.2) or flag (--enable_ep_moe).")
EP_ATTENTION = rule(
    "MC754", "lightllm-ep-attention-backend", ERROR, "LightLLM 1.2: --enable_ep_moe refuses flashinfer attention",
    family=_F, source=f"{_L} lightllm/server/api_start.py:150-161",
    why="With --enable_ep_moe LightLLM asserts every --llm_prefill_att_backend / --llm_decode_att_backend is auto, "
    "fa3 or triton.", fail_text="`python -m lightllm.server.api_server --enable_ep_moe --llm_decode_att_backend "
    "flashinfer ...`.", pass_example=_OK, fix="Use --llm_prefill_att_backend / --llm_decode_att_backend fa3, triton "
    "or auto.")
