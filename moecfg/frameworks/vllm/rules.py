"""vLLM (GPU) launch rules (MC970-MC972): settings this vLLM version does not read as the user meant.

The DeepEP Buffer vLLM builds is judged by the `deepep` kind (MC6xx: token cap MC643, QP depth MC641, buffer hints);
these rules see what only the launch shows. Launch inputs are shell commands: the failing cases are described in
words.
"""
from __future__ import annotations

from moecfg.core.diagnostics import ERROR, WARNING
from moecfg.core.registry import rule

_F = "launch"
_OK = ("# what vLLM derives for --all2all-backend deepep_low_latency, DP 16, DeepSeek-V3 (T = VLLM_MOE_DP_CHUNK_SIZE)\n"
       "kind: deepep\nmode: low_latency\nnum_ranks: 16\nhidden: 7168\nnum_experts: 256\nnum_topk: 8\n"
       "num_max_dispatch_tokens_per_rank: 256\nnum_qps_per_rank: 16\n")
BACKEND_IGNORED = rule(
    "MC970", "vllm-all2all-backend-ignored", WARNING, "The all-to-all backend is set where this vLLM version does "
    "not read it (VLLM_ALL2ALL_BACKEND on vLLM >= 0.16, --all2all-backend on vLLM <= 0.11.0, or both set and "
    "different)", family=_F,
    source="vllm-project/vllm PR #26732 (--all2all-backend, env deprecated, flag wins), PR #33535 (env removed), "
    "issue #27347 (unrecognized arguments: --all2all-backend)",
    why="vLLM 0.11.1 moved the backend from VLLM_ALL2ALL_BACKEND to --all2all-backend and later removed the "
    "variable: a manifest that still sets only the variable silently runs allgather_reducescatter (llm-d PR #856 "
    "had to move its manifests); vLLM 0.11.0 stops at the unknown flag.",
    cann_error="vllm: error: unrecognized arguments: --all2all-backend deepep_low_latency",
    fail_text="`VLLM_ALL2ALL_BACKEND=deepep_low_latency vllm serve deepseek-ai/DeepSeek-V3 --enable-expert-parallel "
    "-dp 16` in image vllm/vllm-openai:v0.17.0.", pass_example=_OK,
    fix="Pass --all2all-backend deepep_low_latency (vLLM >= 0.11.1), or set VLLM_ALL2ALL_BACKEND (vLLM <= 0.11.0).")
NO_EXPERT_PARALLEL = rule(
    "MC971", "vllm-all2all-without-ep", WARNING, "A DeepEP all-to-all backend without --enable-expert-parallel: the "
    "MoE layers are tensor-parallel and the backend is never used", family=_F,
    source="vllm-project/vllm vllm/config/parallel.py (enable_expert_parallel; all2all_backend is used by the EP "
    "group only) and vllm/model_executor/layers/fused_moe/config.py FusedMoEParallelConfig.make (use_ep)",
    why="Without expert parallelism vLLM shards every expert over the TP ranks and reduces with all-reduce; the "
    "DeepEP kernels the launch asks for never run, so what was tuned is not what is served.",
    fail_text="`vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --all2all-backend deepep_high_throughput` (no "
    "--enable-expert-parallel).", pass_example=_OK,
    fix="Add --enable-expert-parallel (EP = DP x TP), or drop --all2all-backend.")
OLD_FLAG = ERROR  # severity of MC970 when the flag itself is refused (vLLM <= 0.11.0)
