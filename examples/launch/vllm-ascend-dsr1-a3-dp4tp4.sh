#!/bin/bash
# DeepSeek-R1 W8A8 on one Atlas A3 node (16 dies): DP 4 x TP 4 = EP 16, MTP with 3 speculative tokens.
# vllm-ascend passes bs = min(16 x (1 + 3), 512) / TP 4 = 16 tokens per rank to the MC2 dispatch.
export HCCL_BUFFSIZE=1024
export HCCL_OP_EXPANSION_MODE=AIV
MODEL=/models/DeepSeek-R1-W8A8  # by name: the DeepSeek-R1 preset, W8A8 (dynamic int8 MoE)

vllm serve "$MODEL" \
  --served-model-name deepseek-r1 \
  --quantization ascend \
  --data-parallel-size 4 \
  --tensor-parallel-size 4 \
  --enable-expert-parallel \
  --max-num-seqs 16 \
  --max-model-len 16384 \
  --max-num-batched-tokens 4096 \
  --speculative-config '{"num_speculative_tokens": 3, "method": "deepseek_mtp"}' \
  --additional-config '{"enable_shared_expert_dp": true}'
