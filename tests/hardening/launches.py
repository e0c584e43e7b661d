"""Generated launches for the hardening property tests (issue 20): the framework launches moecfg derives,
with hostile values in their size flags, environment, JSON flags and shell arithmetic.

Not a conftest.py (see hostile.py)."""
from __future__ import annotations

import json

from hypothesis import strategies as st

from moecfg.checking.policy import FileSettings

SETTINGS = FileSettings(product="A3", cann_version="9.0.1", device="H100")  # Ascend launches
GPU_SETTINGS = FileSettings(device="H100")  # GPU launches (a `product: A3` would make vLLM's the Ascend plugin's)
ASCEND = ("vllm-ascend", "sglang-npu", "mindspeed", "lmdeploy", "xllm", "vllm-mindspore")


def settings_for(framework: str) -> FileSettings:
    return SETTINGS if framework in ASCEND else GPU_SETTINGS

BASES = {  # framework -> (command, its size flags, its environment variables)
    "vllm-ascend": ("vllm serve /models/DeepSeek-R1-W8A8 --quantization ascend --enable-expert-parallel",
                    ["--tensor-parallel-size", "--data-parallel-size", "--pipeline-parallel-size", "--max-num-seqs",
                     "--max-num-batched-tokens", "--max-model-len", "--cudagraph-capture-sizes",
                     "--max-cudagraph-capture-size", "--prefill-context-parallel-size", "--gpu-memory-utilization",
                     "--num-redundant-experts", "-O"],
                    ["HCCL_BUFFSIZE", "HCCL_OP_EXPANSION_MODE", "VLLM_ASCEND_ENABLE_MLAPO", "DEEPEP_HCCL_BUFFSIZE"]),
    "vllm": ("vllm serve deepseek-ai/DeepSeek-V3 --enable-expert-parallel --all2all-backend deepep_low_latency",
             ["--tensor-parallel-size", "--data-parallel-size", "--gpu-memory-utilization", "--max-num-seqs",
              "--num-redundant-experts", "--max-num-batched-tokens", "--data-parallel-size-local"],
             ["VLLM_DEEPEP_BUFFER_SIZE_MB", "VLLM_MOE_DP_CHUNK_SIZE", "VLLM_ALL2ALL_BACKEND", "NVSHMEM_QP_DEPTH",
              "VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE"]),
    "sglang": ("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --enable-dp-attention "
               "--moe-a2a-backend deepep --deepep-mode auto",
               ["--tp", "--tp-size", "--dp", "--ep-size", "--cuda-graph-max-bs", "--cuda-graph-bs",
                "--max-running-requests", "--chunked-prefill-size", "--context-length", "--mem-fraction-static",
                "--speculative-num-draft-tokens", "--ep-num-redundant-experts", "--max-prefill-tokens", "--nnodes"],
               ["SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "NVSHMEM_QP_DEPTH", "SGLANG_DEEPEP_BF16_DISPATCH"]),
    "sglang-npu": ("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --device npu "
                   "--moe-a2a-backend deepep --deepep-mode low_latency --enable-dp-attention",
                   ["--tp-size", "--dp-size", "--cuda-graph-bs", "--max-running-requests", "--context-length",
                    "--speculative-num-draft-tokens", "--mem-fraction-static", "--chunked-prefill-size"],
                   ["HCCL_BUFFSIZE", "DEEPEP_HCCL_BUFFSIZE", "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"]),
    "megatron": ("torchrun --nproc_per_node 8 pretrain_gpt.py --num-experts 256 --moe-token-dispatcher-type flex",
                 ["--hidden-size", "--moe-router-topk", "--seq-length", "--micro-batch-size", "--expert-model-parallel-size",
                  "--tensor-model-parallel-size", "--expert-tensor-parallel-size", "--context-parallel-size",
                  "--moe-flex-dispatcher-num-sms", "--num-experts"],
                 []),
    "mindspeed": ("msrun --worker_num 16 pretrain_gpt.py --num-experts 256 --moe-token-dispatcher-type alltoall "
                  "--hccl-group-buffer-adaptive --use-fused-rmsnorm",
                  ["--hidden-size", "--moe-router-topk", "--seq-length", "--micro-batch-size",
                   "--expert-model-parallel-size", "--tensor-model-parallel-size", "--pipeline-model-parallel-size",
                   "--context-parallel-size", "--hccl-ep-group-buffer-adaptive-factor", "--hccl-group-buffer",
                   "--num-experts"],
                  ["HCCL_BUFFSIZE"]),
    # the surfaces added after issue 20 (harden2): each reads its own sizes and HCCL_BUFFSIZE
    "lmdeploy": ("lmdeploy serve api_server deepseek-ai/DeepSeek-V3 --backend pytorch --device ascend",
                 ["--tp", "--dp", "--ep", "--max-batch-size", "--max-prefill-token-num", "--nnodes", "--node-rank",
                  "--speculative-num-draft-tokens", "--cache-max-entry-count", "--device", "--speculative-algorithm"],
                 ["HCCL_BUFFSIZE"]),
    "xllm": ("xllm --model /models/deepseek-ai/DeepSeek-V4-Flash --devices=npu:0 --npu_kernel_backend=TORCH "
             "--expert_parallel_degree=2",
             ["--ep_size", "-dp_size", "--nnodes", "--max_seqs_per_batch", "--num_speculative_tokens",
              "--enable_fused_mc2", "-expert_parallel_degree", "--acl_graph_decode_batch_size_limit", "--devices",
              "--npu_kernel_backend", "--enable_graph", "--noenable_graph"],
             ["HCCL_BUFFSIZE"]),
    "vllm-mindspore": ("vllm-mindspore serve Qwen/Qwen3-235B-A22B --enable-expert-parallel",
                       ["--tensor-parallel-size", "--data-parallel-size", "--max-num-seqs", "--max-num-batched-tokens",
                        "--max-model-len", "--enable-chunked-prefill"],
                       ["HCCL_BUFFSIZE", "VLLM_MS_MODEL_BACKEND", "vLLM_MODEL_BACKEND"]),
}
JSON_FLAGS = {"vllm-ascend": ["--speculative-config", "--additional-config", "--kv-transfer-config",
                              "--compilation-config", "--eplb-config"],
              "vllm": ["--speculative-config", "--kv-transfer-config", "--eplb-config", "--compilation-config"],
              "sglang": ["--deepep-config"], "sglang-npu": [], "megatron": [], "mindspeed": [], "lmdeploy": [], "xllm": [],
              "vllm-mindspore": ["--additional-config", "--speculative-config"]}
JSON_KEYS = ["num_speculative_tokens", "method", "kv_role", "kv_connector", "cudagraph_mode", "mode", "level",
             "cudagraph_capture_sizes", "enable_shared_expert_dp", "ascend_scheduler_config", "torchair_graph_config",
             "normal_dispatch", "normal_combine", "num_sms", "num_max_nvl_chunked_send_tokens", "num_redundant_experts",
             "multistream_overlap_shared_expert", "enabled", "expert_parallel", "max_cudagraph_capture_size",
             "enable_mc2_hierarchy_comm"]
# Values a launch can hold: the framework's own refusals (0, negative), integers past 64 bits and past Python's
# digit limit, non-finite floats, Unicode digits, variables never set, NUL bytes, control characters.
VALUES = ["0", "-1", "-0", "1" * 20, "9" * 5000, "1e400", "-1e400", "nan", "inf", "1.5", "²", "\u0661\u0662", "0x10",
          "1_0", "$UNSET", "${UNSET:-8}", "''", "' 8 '", "8", "16", "4096", "$'1\\x002'", "$'8\\n::error::forged'",
          "$'\\e]0;t\\a'", "<tp>", "$(nproc)", "0x7fffffff", "0x" + "f" * 20, "-0x1", "2147483648", "$((1 << 10))",
          "$((2 ** 70))", "$((1 / 0))", "${A[\u00b2]}", "${A[" + "1" * 30 + "]}"]
JSON_LEAVES = [[], {}, "x", 10 ** 20, -1, 0, 1.5, None, True, "::error::j", "\x1b[31m", [1, "a", None]]


@st.composite
def json_value(draw, depth: int = 0):
    if depth < 3 and draw(st.integers(0, 3)) == 0:
        keys = draw(st.lists(st.sampled_from(JSON_KEYS), max_size=4))
        return {k: draw(json_value(depth + 1)) for k in keys}
    return draw(st.sampled_from(JSON_LEAVES))


def _json_text(draw) -> str:
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return "1e400"
    if kind == 1:
        return '{"num_speculative_tokens": ' + "9" * draw(st.sampled_from([20, 5000])) + "}"
    if kind == 2:
        n = draw(st.sampled_from([5, 3000]))
        return '{"a":' * n + "1" + "}" * n
    if kind == 3:
        return '{"num_speculative_tokens": NaN, "x": Infinity}'
    return json.dumps(draw(json_value()))


@st.composite
def launch_script(draw) -> tuple[str, str]:
    """(framework, script text)."""
    framework = draw(st.sampled_from(sorted(BASES)))
    command, flags, env = BASES[framework]
    lines = ["#!/bin/bash", "A=(1 2 3)"]
    for name in draw(st.lists(st.sampled_from(env), max_size=3)) if env else []:
        lines.append(f"export {name}={draw(st.sampled_from(VALUES))}")
    words = [command]
    for flag in draw(st.lists(st.sampled_from(flags), max_size=5)):
        words.append(f"{flag} {draw(st.sampled_from(VALUES))}")
    for flag in draw(st.lists(st.sampled_from(JSON_FLAGS[framework]), max_size=2)) if JSON_FLAGS[framework] else []:
        text = _json_text(draw).replace("'", "")
        words.append(f"{flag} '{text}'")
    lines.append(" ".join(words))
    return framework, "\n".join(lines) + "\n"


ARITH_OPS = ["+", "-", "*", "/", "%", "**", "<<", ">>", "&", "|", "^", "&&", "||", "<", "<=", ">", ">=", "==", "!=",
             ",", "=", "+=", "<<="]
ARITH_ATOMS = ["0", "1", "2", "63", "64", "-1", "N", "UNSET", "0x1f", "010", "2#101", "64#z", "9" * 25, "(1)", "!1",
               "~0", "-N", "N++", "--N"]


@st.composite
def arithmetic(draw) -> str:
    parts = [draw(st.sampled_from(ARITH_ATOMS))]
    for _ in range(draw(st.integers(0, 5))):
        parts += [draw(st.sampled_from(ARITH_OPS)), draw(st.sampled_from(ARITH_ATOMS))]
    text = " ".join(parts)
    if draw(st.booleans()):
        text = f"({text}) ? 1 : 2"
    return text
