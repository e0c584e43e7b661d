#!/bin/bash
# https://github.com/sgl-project/sglang/blob/0ec96eab063d6435dfa71f93599885af1e59b9ce/docs/platforms/ascend_npu_deepseek_example.md
# SGLang PD decode on Atlas A3 (flags trimmed to those that shape the DeepEP call): sgl-kernel-npu low-latency
# dispatch, EP = tp 16; 22 requests per DP rank x 4 draft tokens = 88 tokens per rank = the cap T;
# HCCL window 2 * (88 * 14848 * 16 * 16 + 88 * 14336 * 8) = 658 MB <= 720 (moecfg explain-launch shows each step).
export HCCL_BUFFSIZE=720
export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=88
MODEL_PATH=Modelers_Park/DeepSeek-R1-0528-w4a8
python -m sglang.launch_server \
    --model-path ${MODEL_PATH} \
    --disaggregation-mode decode \
    --tp-size 16 \
    --dp-size 16 \
    --max-running-requests 352 \
    --device npu \
    --quantization modelslim \
    --moe-a2a-backend deepep \
    --enable-dp-attention \
    --deepep-mode low_latency \
    --cuda-graph-bs 8 10 12 14 16 18 20 22 \
    --context-length 8192 \
    --speculative-algorithm NEXTN \
    --speculative-num-draft-tokens 4
