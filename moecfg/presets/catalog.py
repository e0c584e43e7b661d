"""The built-in presets, as data. Every number is a published config.json value; `source` says where it was read.

A preset is one architecture (config class and MoE dimensions); later releases that publish the same values
(DeepSeek-V3.1 after V3, GLM-4.6 after GLM-4.5) are aliases and repos of it, their config.json cited too.
Multimodal checkpoints (Kimi-K2.5, Qwen3-VL, Qwen3.5, Llama 4) are read from `text_config`.
Qwen-style `shared_expert_intermediate_size` > 0 is one shared expert; MiniMax-M2's `intermediate_size` is the
per-expert width (it has no dense layers).
"""
from __future__ import annotations

from moecfg.presets.preset import ModelPreset, aic, hf

SLIME = "THUDM/slime@624b824a898ab0ec1fcb4d373004c7f3852bf515 scripts/models/{}.sh"  # zai-org's RL framework
HF_PAGE = "https://huggingface.co/{}"  # a config.json page other than main/config.json
DSV32_EXP = ("deepseek-ai/DeepSeek-V3.2-Exp@3b99a5350d260b7c2a357e82362305509e2d0724 inference/config_671B_v3.2.json "
             "(dim 7168, n_routed_experts 256, n_activated_experts 8, n_shared_experts 1, moe_inter_dim 2048, n_layers 61)")

PRESETS: tuple[ModelPreset, ...] = (
    ModelPreset("deepseek-v3", 7168, 256, 8, shared_experts=1, layers=61, source=aic("deepseek-ai/DeepSeek-V3"),
                also="the same in " + aic("deepseek-ai/DeepSeek-R1") + " and V3.1's " + aic("nvidia/DeepSeek-V3.1-NVFP4"),
                aliases=("deepseek-r1", "deepseek-v3.1", "deepseek-v3-0324", "deepseek-r1-0528", "deepseek-v3.1-terminus"),
                moe_intermediate_size=2048,
                repos=("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-V3.1",
                       "deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-R1-0528")),
    ModelPreset("deepseek-v3.2", 7168, 256, 8, shared_experts=1, layers=61,
                source=aic("deepseek-ai/DeepSeek-V3.2"), also="V3.2-Exp: " + DSV32_EXP,
                aliases=("deepseek-v3.2-exp",), moe_intermediate_size=2048,
                repos=("deepseek-ai/DeepSeek-V3.2", "deepseek-ai/DeepSeek-V3.2-Exp")),
    ModelPreset("deepseek-v4-pro", 7168, 384, 6, shared_experts=1, layers=61, source=aic("deepseek-ai/DeepSeek-V4-Pro"),
                moe_intermediate_size=3072, repos=("deepseek-ai/DeepSeek-V4-Pro",)),
    ModelPreset("deepseek-v4-flash", 4096, 256, 6, shared_experts=1, layers=43,
                source=aic("deepseek-ai/DeepSeek-V4-Flash"), moe_intermediate_size=2048,
                repos=("deepseek-ai/DeepSeek-V4-Flash",)),
    ModelPreset("deepseek-v2-lite", 2048, 64, 6, shared_experts=2, layers=27,
                source=HF_PAGE.format("deepseek-ai/DeepSeek-V3-Base/blob/refs%2Fpr%2F39/inference/configs/config_16B.json")
                + " (DeepSeek's 16B = V2-Lite inference config: dim 2048, n_routed_experts 64, n_activated_experts 6, n_shared_experts 2, moe_inter_dim 1408,"
                " n_layers 27)", moe_intermediate_size=1408,
                repos=("deepseek-ai/DeepSeek-V2-Lite", "deepseek-ai/DeepSeek-V2-Lite-Chat")),
    ModelPreset("kimi-k2", 7168, 384, 8, shared_experts=1, layers=61,
                source=aic("moonshotai/Kimi-K2-Instruct"), also="K2-Thinking: " + SLIME.format("kimi-k2-thinking")
                + " (Megatron args from its config.json: hidden 7168, 384 experts, top-8, 61 layers, moe-ffn 2048)",
                aliases=("kimi-k2-instruct", "kimi-k2-thinking"), moe_intermediate_size=2048,
                repos=("moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Instruct-0905", "moonshotai/Kimi-K2-Thinking",
                       "moonshotai/Kimi-K2-Base")),
    ModelPreset("kimi-k2.5", 7168, 384, 8, shared_experts=1, layers=61,
                source=aic("moonshotai/Kimi-K2.5") + " text_config", moe_intermediate_size=2048,
                repos=("moonshotai/Kimi-K2.5",)),
    ModelPreset("glm-4.5", 5120, 160, 8, shared_experts=1, layers=92,
                source=SLIME.format("glm4.5-355B-A32B") + " (hidden 5120, 160 experts, top-8, 3+89 layers, moe-ffn "
                "1536 = one shared expert)", also="GLM-4.7: " + HF_PAGE.format("zai-org/GLM-4.7/blob/refs%2Fpr%2F49/config.json")
                + "; GLM-4.6: " + hf("RedHatAI/GLM-4.6-NVFP4") + " (its NVFP4 copy)",
                aliases=("glm-4.6", "glm-4.7"), moe_intermediate_size=1536,
                repos=("zai-org/GLM-4.5", "THUDM/GLM-4.5", "zai-org/GLM-4.6", "zai-org/GLM-4.7")),
    ModelPreset("glm-4.5-air", 4096, 128, 8, shared_experts=1, layers=46,
                source=SLIME.format("glm4.5-106B-A12B") + " (hidden 4096, 128 experts, top-8, 1+45 layers, moe-ffn "
                "1408 = one shared expert)", also="the same in its fine-tune " + hf("PrimeIntellect/INTELLECT-3-Base"),
                moe_intermediate_size=1408, repos=("zai-org/GLM-4.5-Air",)),
    ModelPreset("glm-5", 6144, 256, 8, shared_experts=1, layers=78,
                source=aic("zai-org/GLM-5"), also="GLM-5.1 and GLM-5.2 publish the same values: "
                + ", ".join(aic(r) for r in ("zai-org/GLM-5.1", "zai-org/GLM-5.2")),
                aliases=("glm-5.1", "glm-5.2"), moe_intermediate_size=2048,
                repos=("zai-org/GLM-5", "zai-org/GLM-5.1", "zai-org/GLM-5.2")),
    ModelPreset("minimax-m2.5", 3072, 256, 8, layers=62,
                source=aic("MiniMaxAI/MiniMax-M2.5"), also="M2.7 the same: " + aic("MiniMaxAI/MiniMax-M2.7")
                + "; M2.1 the same in its BF16 copy " + hf("QuixiAI/MiniMax-M2.1-bf16"),
                aliases=("minimax-m2.7", "minimax-m2.1"), moe_intermediate_size=1536,
                repos=("MiniMaxAI/MiniMax-M2.5", "MiniMaxAI/MiniMax-M2.7", "MiniMaxAI/MiniMax-M2.1")),
    ModelPreset("qwen3-235b-a22b", 4096, 128, 8, layers=94, source=aic("Qwen/Qwen3-235B-A22B"),
                moe_intermediate_size=1536,
                repos=("Qwen/Qwen3-235B-A22B", "Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen/Qwen3-235B-A22B-Thinking-2507")),
    ModelPreset("qwen3-30b-a3b", 2048, 128, 8, layers=48, source=aic("Qwen/Qwen3-30B-A3B"), moe_intermediate_size=768,
                repos=("Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen/Qwen3-30B-A3B-Thinking-2507")),
    ModelPreset("qwen3-coder-480b-a35b", 6144, 160, 8, layers=62, source=aic("Qwen/Qwen3-Coder-480B-A35B-Instruct"),
                moe_intermediate_size=2560, repos=("Qwen/Qwen3-Coder-480B-A35B-Instruct",)),
    ModelPreset("qwen3-next-80b-a3b", 2048, 512, 10, shared_experts=1, layers=48,
                source=SLIME.format("qwen3-next-80B-A3B") + " (Megatron args from its config.json: hidden 2048, 512 "
                "experts, top-10, 48 layers, moe-ffn 512, shared expert 512)",
                moe_intermediate_size=512,
                repos=("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Thinking")),
    ModelPreset("qwen3-vl-235b-a22b", 4096, 128, 8, layers=94,
                source=aic("Qwen/Qwen3-VL-235B-A22B-Instruct") + " text_config", moe_intermediate_size=1536,
                repos=("Qwen/Qwen3-VL-235B-A22B-Instruct",)),
    ModelPreset("qwen3-vl-30b-a3b", 2048, 128, 8, layers=48,
                source=aic("Qwen/Qwen3-VL-30B-A3B-Instruct") + " text_config", moe_intermediate_size=768,
                repos=("Qwen/Qwen3-VL-30B-A3B-Instruct",)),
    ModelPreset("qwen3.5-397b-a17b", 4096, 512, 10, shared_experts=1, layers=60,
                source=aic("Qwen/Qwen3.5-397B-A17B") + " text_config", moe_intermediate_size=1024,
                repos=("Qwen/Qwen3.5-397B-A17B",)),
    ModelPreset("qwen3.5-122b-a10b", 3072, 256, 8, shared_experts=1, layers=48,
                source=aic("Qwen/Qwen3.5-122B-A10B") + " text_config", moe_intermediate_size=1024,
                repos=("Qwen/Qwen3.5-122B-A10B",)),
    ModelPreset("qwen3.5-35b-a3b", 2048, 256, 8, shared_experts=1, layers=40,
                source=aic("Qwen/Qwen3.5-35B-A3B") + " text_config", moe_intermediate_size=512,
                repos=("Qwen/Qwen3.5-35B-A3B",)),
    ModelPreset("minimax-m3", 6144, 128, 4, shared_experts=1, layers=60, source=aic("MiniMaxAI/MiniMax-M3"),
                moe_intermediate_size=3072, repos=("MiniMaxAI/MiniMax-M3",)),
    ModelPreset("mimo-v2-flash", 4096, 256, 8, layers=48, source=aic("XiaomiMiMo/MiMo-V2-Flash"),
                moe_intermediate_size=2048, repos=("XiaomiMiMo/MiMo-V2-Flash",)),
    ModelPreset("gemma-4-26b-a4b", 2816, 128, 8, layers=30, source=aic("google/gemma-4-26B-A4B") + " text_config",
                moe_intermediate_size=704, repos=("google/gemma-4-26B-A4B",)),
    ModelPreset("nemotron-3-nano-30b-a3b", 2688, 128, 6, shared_experts=1, layers=52,
                source=aic("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"), moe_intermediate_size=1856,
                aliases=("nvidia-nemotron-3-nano-30b-a3b",),
                also="the same in " + aic("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"),
                repos=("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4")),
    ModelPreset("step-3.7-flash", 4096, 288, 8, shared_experts=1, layers=45, source=aic("stepfun-ai/Step-3.7-Flash"),
                moe_intermediate_size=1280, repos=("stepfun-ai/Step-3.7-Flash",)),
    ModelPreset("longcat-flash", 6144, 512, 12, zero_experts=256, layers=28,
                source=hf("meituan-longcat/LongCat-Flash-Chat") + " (n_routed_experts 512, zero_expert_num 256, moe_topk 12)",
                also="kept from an earlier revision: no copy of this config.json could be read to re-check it",
                aliases=("longcat-flash-chat",), repos=("meituan-longcat/LongCat-Flash-Chat",)),
    ModelPreset("gpt-oss-120b", 2880, 128, 4, layers=36, source=aic("openai/gpt-oss-120b"), moe_intermediate_size=2880,
                repos=("openai/gpt-oss-120b",)),
    ModelPreset("gpt-oss-20b", 2880, 32, 4, layers=24, source=aic("openai/gpt-oss-20b"), moe_intermediate_size=2880,
                repos=("openai/gpt-oss-20b",)),
    ModelPreset("mixtral-8x7b", 4096, 8, 2, layers=32, source=aic("mistralai/Mixtral-8x7B-v0.1"),
                aliases=("mixtral-8x7b-instruct",), moe_intermediate_size=14336,
                repos=("mistralai/Mixtral-8x7B-v0.1", "mistralai/Mixtral-8x7B-Instruct-v0.1")),
    ModelPreset("mixtral-8x22b", 6144, 8, 2, layers=56, source=aic("mistralai/Mixtral-8x22B-v0.1"),
                moe_intermediate_size=16384, repos=("mistralai/Mixtral-8x22B-v0.1",)),
    ModelPreset("llama-4-maverick", 5120, 128, 1, shared_experts=1, layers=48,
                source=aic("meta-llama/Llama-4-Maverick-17B-128E-Instruct")
                + " text_config (interleave_moe_layer_step 2; Llama 4 MoE layers add one shared expert)",
                aliases=("llama-4-maverick-17b-128e",), moe_intermediate_size=8192,
                repos=("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "meta-llama/Llama-4-Maverick-17B-128E")),
    ModelPreset("llama-4-scout", 5120, 16, 1, shared_experts=1, layers=48,
                source=aic("meta-llama/Llama-4-Scout-17B-16E-Instruct") + " text_config (one shared expert, as Maverick)",
                aliases=("llama-4-scout-17b-16e",), moe_intermediate_size=8192,
                repos=("meta-llama/Llama-4-Scout-17B-16E-Instruct",)),
)
