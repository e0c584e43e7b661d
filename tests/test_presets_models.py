"""Model presets against their published config.json values, HF-id resolution, and `moecfg check` with `model:`.

Each row quotes the keys read in the file the preset's `source` names. aiconfigurator copies are verbatim
Hugging Face config.json files (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce
aic-core/src/aiconfigurator_core/model_configs/<org>--<name>_config.json); slime scripts
(THUDM/slime@624b824a898ab0ec1fcb4d373004c7f3852bf515 scripts/models/*.sh) hold the Megatron arguments zai-org's
framework derives from the config.json.
"""
from __future__ import annotations

import re
import subprocess
import sys

import pytest
from lintkit import run_lint

from moecfg.frameworks import LaunchContext
from moecfg.frameworks.models import resolve_model
from moecfg.presets import PRESETS, by_repo, lookup, names

# (name, hidden_size, routed experts, top-k, shared experts, zero experts, layers, moe_intermediate_size)
PUBLISHED = [
    # DeepSeek-V3: hidden_size 7168, n_routed_experts 256, num_experts_per_tok 8, n_shared_experts 1,
    # num_hidden_layers 61, moe_intermediate_size 2048 (R1 and nvidia's V3.1 copy: the same values)
    ("deepseek-v3", 7168, 256, 8, 1, 0, 61, 2048),
    # DeepSeek-V3.2 (DeepseekV32ForCausalLM): the same MoE values as V3 -- 7168/256/8/1/61/2048; only attention
    # changes (index_n_heads 64, index_head_dim 128, index_topk 2048). V3.2-Exp's inference/config_671B_v3.2.json:
    # dim 7168, n_routed_experts 256, n_activated_experts 8, n_shared_experts 1, moe_inter_dim 2048, n_layers 61
    ("deepseek-v3.2", 7168, 256, 8, 1, 0, 61, 2048),
    # DeepSeek-V4-Pro: hidden_size 7168, n_routed_experts 384, num_experts_per_tok 6, n_shared_experts 1,
    # num_hidden_layers 61, moe_intermediate_size 3072
    ("deepseek-v4-pro", 7168, 384, 6, 1, 0, 61, 3072),
    # DeepSeek-V4-Flash: hidden_size 4096, n_routed_experts 256, num_experts_per_tok 6, n_shared_experts 1,
    # num_hidden_layers 43, moe_intermediate_size 2048
    ("deepseek-v4-flash", 4096, 256, 6, 1, 0, 43, 2048),
    # DeepSeek 16B inference config: dim 2048, n_routed_experts 64, n_activated_experts 6, n_shared_experts 2,
    # n_layers 27, moe_inter_dim 1408
    ("deepseek-v2-lite", 2048, 64, 6, 2, 0, 27, 1408),
    # Kimi-K2-Instruct: hidden_size 7168, n_routed_experts 384, num_experts_per_tok 8, n_shared_experts 1,
    # num_hidden_layers 61, moe_intermediate_size 2048; slime kimi-k2-thinking.sh: --hidden-size 7168
    # --num-experts 384 --moe-router-topk 8 --num-layers 61 --moe-ffn-hidden-size 2048
    ("kimi-k2", 7168, 384, 8, 1, 0, 61, 2048),
    # Kimi-K2.5 (KimiK25ForConditionalGeneration) text_config: the K2 values, 7168/384/8/1/61/2048
    ("kimi-k2.5", 7168, 384, 8, 1, 0, 61, 2048),
    # slime glm4.5-355B-A32B.sh: --hidden-size 5120 --num-experts 160 --moe-router-topk 8 N_DENSE_LAYERS=3
    # N_MOE_LAYERS=89 --moe-ffn-hidden-size 1536 --moe-shared-expert-intermediate-size 1536; GLM-4.7 config.json:
    # hidden_size 5120, n_routed_experts 160, num_experts_per_tok 8, n_shared_experts 1, num_hidden_layers 92,
    # moe_intermediate_size 1536 (RedHatAI/GLM-4.6-NVFP4 the same)
    ("glm-4.5", 5120, 160, 8, 1, 0, 92, 1536),
    # slime glm4.5-106B-A12B.sh: --hidden-size 4096 --num-experts 128 --moe-router-topk 8 N_DENSE_LAYERS=1
    # N_MOE_LAYERS=45 --moe-ffn-hidden-size 1408 --moe-shared-expert-intermediate-size 1408
    ("glm-4.5-air", 4096, 128, 8, 1, 0, 46, 1408),
    # GLM-5 (GlmMoeDsaForCausalLM): hidden_size 6144, n_routed_experts 256, num_experts_per_tok 8,
    # n_shared_experts 1, num_hidden_layers 78, moe_intermediate_size 2048 (GLM-5.1, GLM-5.2 the same)
    ("glm-5", 6144, 256, 8, 1, 0, 78, 2048),
    # MiniMax-M2.5: hidden_size 3072, num_local_experts 256, num_experts_per_tok 8, num_hidden_layers 62,
    # intermediate_size 1536 (per expert; shared_intermediate_size 0); M2.7 and M2.1 the same
    ("minimax-m2.5", 3072, 256, 8, 0, 0, 62, 1536),
    # Qwen3-235B-A22B: hidden_size 4096, num_experts 128, num_experts_per_tok 8, num_hidden_layers 94,
    # moe_intermediate_size 1536
    ("qwen3-235b-a22b", 4096, 128, 8, 0, 0, 94, 1536),
    # Qwen3-30B-A3B: hidden_size 2048, num_experts 128, num_experts_per_tok 8, num_hidden_layers 48,
    # moe_intermediate_size 768
    ("qwen3-30b-a3b", 2048, 128, 8, 0, 0, 48, 768),
    # Qwen3-Coder-480B-A35B-Instruct: hidden_size 6144, num_experts 160, num_experts_per_tok 8,
    # shared_expert_intermediate_size 0, num_hidden_layers 62, moe_intermediate_size 2560
    ("qwen3-coder-480b-a35b", 6144, 160, 8, 0, 0, 62, 2560),
    # slime qwen3-next-80B-A3B.sh: --hidden-size 2048 --num-experts 512 --moe-router-topk 10 --num-layers 48
    # --moe-ffn-hidden-size 512 --moe-shared-expert-intermediate-size 512 (one shared expert)
    ("qwen3-next-80b-a3b", 2048, 512, 10, 1, 0, 48, 512),
    # Qwen3-VL-235B-A22B-Instruct text_config: hidden_size 4096, num_experts 128, num_experts_per_tok 8,
    # num_hidden_layers 94, moe_intermediate_size 1536
    ("qwen3-vl-235b-a22b", 4096, 128, 8, 0, 0, 94, 1536),
    # Qwen3-VL-30B-A3B-Instruct text_config: hidden_size 2048, num_experts 128, num_experts_per_tok 8,
    # num_hidden_layers 48, moe_intermediate_size 768
    ("qwen3-vl-30b-a3b", 2048, 128, 8, 0, 0, 48, 768),
    # Qwen3.5-397B-A17B text_config: hidden_size 4096, num_experts 512, num_experts_per_tok 10,
    # shared_expert_intermediate_size 1024, num_hidden_layers 60, moe_intermediate_size 1024
    ("qwen3.5-397b-a17b", 4096, 512, 10, 1, 0, 60, 1024),
    # Qwen3.5-122B-A10B text_config: hidden_size 3072, num_experts 256, num_experts_per_tok 8,
    # shared_expert_intermediate_size 1024, num_hidden_layers 48, moe_intermediate_size 1024
    ("qwen3.5-122b-a10b", 3072, 256, 8, 1, 0, 48, 1024),
    # Qwen3.5-35B-A3B text_config: hidden_size 2048, num_experts 256, num_experts_per_tok 8,
    # shared_expert_intermediate_size 512, num_hidden_layers 40, moe_intermediate_size 512
    ("qwen3.5-35b-a3b", 2048, 256, 8, 1, 0, 40, 512),
    # MiniMax-M3: hidden_size 6144, num_local_experts 128, num_experts_per_tok 4, n_shared_experts 1,
    # num_hidden_layers 60, moe_intermediate_size 3072
    ("minimax-m3", 6144, 128, 4, 1, 0, 60, 3072),
    # MiMo-V2-Flash: hidden_size 4096, n_routed_experts 256, num_experts_per_tok 8, n_shared_experts null,
    # num_hidden_layers 48, moe_intermediate_size 2048
    ("mimo-v2-flash", 4096, 256, 8, 0, 0, 48, 2048),
    # gemma-4-26B-A4B text_config: hidden_size 2816, num_experts 128, top_k_experts 8, num_hidden_layers 30,
    # moe_intermediate_size 704
    ("gemma-4-26b-a4b", 2816, 128, 8, 0, 0, 30, 704),
    # NVIDIA-Nemotron-3-Nano-30B-A3B-BF16: hidden_size 2688, n_routed_experts 128, num_experts_per_tok 6,
    # n_shared_experts 1, num_hidden_layers 52, moe_intermediate_size 1856 (no moe_latent_size)
    ("nemotron-3-nano-30b-a3b", 2688, 128, 6, 1, 0, 52, 1856),
    # Step-3.7-Flash: hidden_size 4096, num_experts 288, num_experts_per_tok 8, n_shared_experts 1,
    # num_hidden_layers 45, moe_intermediate_size 1280
    ("step-3.7-flash", 4096, 288, 8, 1, 0, 45, 1280),
    # LongCat-Flash-Chat (not re-read here): n_routed_experts 512, zero_expert_num 256, moe_topk 12
    ("longcat-flash", 6144, 512, 12, 0, 256, 28, 0),
    # gpt-oss-120b: hidden_size 2880, num_local_experts 128, num_experts_per_tok 4, num_hidden_layers 36,
    # intermediate_size 2880
    ("gpt-oss-120b", 2880, 128, 4, 0, 0, 36, 2880),
    # gpt-oss-20b: hidden_size 2880, num_local_experts 32, num_experts_per_tok 4, num_hidden_layers 24,
    # intermediate_size 2880
    ("gpt-oss-20b", 2880, 32, 4, 0, 0, 24, 2880),
    # Mixtral-8x7B-v0.1: hidden_size 4096, num_local_experts 8, num_experts_per_tok 2, num_hidden_layers 32,
    # intermediate_size 14336
    ("mixtral-8x7b", 4096, 8, 2, 0, 0, 32, 14336),
    # Mixtral-8x22B-v0.1: hidden_size 6144, num_local_experts 8, num_experts_per_tok 2, num_hidden_layers 56,
    # intermediate_size 16384
    ("mixtral-8x22b", 6144, 8, 2, 0, 0, 56, 16384),
    # Llama-4-Maverick text_config: hidden_size 5120, num_local_experts 128, num_experts_per_tok 1,
    # num_hidden_layers 48, intermediate_size 8192 (intermediate_size_mlp 16384 is the dense layers')
    ("llama-4-maverick", 5120, 128, 1, 1, 0, 48, 8192),
    # Llama-4-Scout text_config: hidden_size 5120, num_local_experts 16, num_experts_per_tok 1,
    # num_hidden_layers 48, intermediate_size 8192
    ("llama-4-scout", 5120, 16, 1, 1, 0, 48, 8192),
]


@pytest.mark.parametrize("row", PUBLISHED, ids=[r[0] for r in PUBLISHED])
def test_preset_matches_published_config(row):
    name, *values = row
    p = lookup(name)
    assert p.name == name
    assert [p.hidden_size, p.routed_experts, p.top_k, p.shared_experts, p.zero_experts, p.layers,
            p.moe_intermediate_size] == values


def test_catalog_is_exactly_the_published_list():
    assert sorted(names()) == sorted(row[0] for row in PUBLISHED)


CITATION = re.compile(r"https://huggingface\.co/\S+|[\w.-]+/[\w.-]+@[0-9a-f]{40} \S+")


@pytest.mark.parametrize("p", PRESETS, ids=lambda p: p.name)
def test_every_preset_says_where_its_values_were_read(p):
    assert CITATION.match(p.source), p.source
    assert p.repos, "a preset names the Hugging Face repos it resolves"
    copy = re.search(r"model_configs/(\S+)_config\.json", p.source)
    if copy:  # an aiconfigurator copy is named after one of the preset's own repos
        assert copy.group(1).replace("--", "/") in p.repos


def test_names_and_repos_are_unambiguous():
    spelled = [re.sub(r"[^a-z0-9]", "", n.lower()) for p in PRESETS for n in (p.name, *p.aliases)]
    assert len(spelled) == len(set(spelled))
    repos = [r.lower() for p in PRESETS for r in p.repos]
    assert len(repos) == len(set(repos))


@pytest.mark.parametrize("p, repo", [(p, r) for p in PRESETS for r in p.repos], ids=lambda x: getattr(x, "name", x))
def test_every_repo_id_resolves_to_its_preset(p, repo):
    assert by_repo(repo) is p
    d = resolve_model(repo, LaunchContext())
    assert (d.name, d.hidden, d.num_experts, d.topk, d.moe_intermediate_size) == (
        p.name, p.hidden_size, p.routed_experts, p.top_k, p.moe_intermediate_size)


@pytest.mark.parametrize("text, name", [
    ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek-v3.2"),
    ("vllm-ascend/DeepSeek-V3.2-Exp-W8A8", "deepseek-v3.2"),  # quantised repo: suffix stripped
    ("/models/deepseek-ai/DeepSeek-V3.1", "deepseek-v3"),  # V3.1 is V3's architecture
    ("moonshotai/Kimi-K2-Thinking", "kimi-k2"),
    ("nvidia/Kimi-K2.5-NVFP4", "kimi-k2.5"),  # quantised copy under another org: name after stripping
    ("zai-org/GLM-4.6", "glm-4.5"),
    ("zai-org/GLM-4.6-FP8", "glm-4.5"),
    ("zai-org/GLM-4.5-Air-FP8", "glm-4.5-air"),
    ("/data/GLM-5-w8a8", "glm-5"),
    ("MiniMaxAI/MiniMax-M2.1", "minimax-m2.5"),
    ("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "qwen3-coder-480b-a35b"),
    ("Qwen/Qwen3-VL-235B-A22B-Thinking", "qwen3-vl-235b-a22b"),  # prefix of the checkpoint name
    ("Qwen/Qwen3.5-397B-A17B-FP8", "qwen3.5-397b-a17b"),
    ("/weights/Qwen3-Next-80B-A3B-Instruct-w8a8", "qwen3-next-80b-a3b"),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8", "nemotron-3-nano-30b-a3b"),
])
def test_checkpoint_names_as_deployed_resolve(text, name):
    assert resolve_model(text, LaunchContext()).name == name


@pytest.mark.parametrize("text", ["MiniMaxAI/MiniMax-M2", "Qwen/Qwen3-Coder-30B-A3B-Instruct"])
def test_models_without_a_verified_config_are_not_guessed(text):
    # no published config.json of these could be read: resolution must stay unknown (MC042 asks for `models:`)
    assert resolve_model(text, LaunchContext()) is None


@pytest.mark.parametrize("row", PUBLISHED, ids=[r[0] for r in PUBLISHED])
def test_model_key_fills_the_document(row):
    name, hidden, experts, top_k = row[:4]
    doc = {"product": "A3", "cann_version": "9.0.1", "model": name, "bs": 8, "ep_world_size": 8,
           "env": {"HCCL_BUFFSIZE": 2048}}
    linted = run_lint(doc)
    assert linted.result.valid, linted.diagnostics
    assert linted.derived["local_expert_num"] == experts // 8  # e.g. step-3.7-flash: 288 / 8 = 36 per rank


def test_moecfg_check_accepts_each_new_model_name(tmp_path):
    for name in names():
        (tmp_path / f"{name}.yaml").write_text(
            f"product: A3\ncann_version: 9.0.1\nmodel: {name}\nbs: 8\nep_world_size: 8\nenv: {{HCCL_BUFFSIZE: 2048}}\n")
    run = subprocess.run([sys.executable, "-m", "moecfg", "check", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_moecfg_check_rejects_an_unverified_model_with_a_hint(tmp_path):
    f = tmp_path / "m.yaml"
    f.write_text("product: A3\ncann_version: 9.0.1\nmodel: minimax-m2\nbs: 8\nep_world_size: 8\n")
    run = subprocess.run([sys.executable, "-m", "moecfg", "check", str(f)], capture_output=True, text=True)
    assert run.returncode != 0 and "MC006" in run.stdout and "minimax-m2.5" in run.stdout
