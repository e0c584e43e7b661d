#!/bin/bash
# SGLang decode on 2 nodes x 8 H100 (device: H100 in .moecfg.yaml): TP = DP = EP 16 with DP attention, DeepEP
# low-latency. Per rank a decode step sends at most max(--cuda-graph-max-bs 64, 1024 running requests / 16) = 64
# requests x 2 tokens (EAGLE: --speculative-num-draft-tokens 2) = 128 tokens <= T 128.
export NVSHMEM_IB_ENABLE_IBGDA=1
export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128

python3 -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-V3 \
  --tp 16 --dp 16 --enable-dp-attention \
  --moe-a2a-backend deepep --deepep-mode low_latency \
  --disaggregation-mode decode \
  --cuda-graph-max-bs 64 \
  --max-running-requests 1024 \
  --speculative-algorithm EAGLE --speculative-num-draft-tokens 2 \
  --mem-fraction-static 0.85 \
  --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000
