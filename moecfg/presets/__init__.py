"""Built-in catalog of public MoE architectures (`model: deepseek-v3`, `--model`), as frozen data.

Each preset holds the values a dispatch/combine config needs (hidden size, routed experts, top-k, shared
and special experts) copied from the model's published Hugging Face `config.json`, whose address is in
`source`. Lookup is case-insensitive and ignores `-`, `_`, `.` and spaces, so `DeepSeek-V3`,
`deepseek_v3` and `deepseekv3` are the same model. Stdlib only: `moecfg check` imports this module.
"""
from __future__ import annotations

from dataclasses import dataclass

HF = "https://huggingface.co/{}/blob/main/config.json"


@dataclass(frozen=True, slots=True)
class ModelPreset:
    name: str  # canonical name, as written in deployment files
    hidden_size: int  # config.json hidden_size -> Ascend `h`, DeepEP `hidden`
    routed_experts: int  # n_routed_experts / num_experts / num_local_experts -> `moe_expert_num`
    top_k: int  # num_experts_per_tok (moe_topk, experts_per_token) -> `k`
    shared_experts: int = 0  # n_shared_experts (a fused shared MLP counts as its config value)
    zero_experts: int = 0  # zero-computation (identity) experts, LongCat-Flash `zero_expert_num`
    copy_experts: int = 0
    const_experts: int = 0
    layers: int = 0  # num_hidden_layers (informational)
    source: str = ""  # where the values were read
    aliases: tuple = ()
    moe_intermediate_size: int = 0  # one routed expert's FFN width (0: not recorded); MegaMoE's intermediate_hidden
    repos: tuple = ()  # Hugging Face repository ids (org/name) that publish this architecture


def _hf(repo: str) -> str:
    return HF.format(repo)


PRESETS: tuple[ModelPreset, ...] = (
    ModelPreset("deepseek-v3", 7168, 256, 8, shared_experts=1, layers=61, source=_hf("deepseek-ai/DeepSeek-V3"),
                aliases=("deepseek-r1", "deepseek-v3.1", "deepseek-v3-0324", "deepseek-r1-0528", "deepseek-v3.1-terminus"),
                moe_intermediate_size=2048,
                repos=("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-V3.1",
                       "deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-R1-0528")),
    ModelPreset("deepseek-v2-lite", 2048, 64, 6, shared_experts=2, layers=27,
                source=_hf("deepseek-ai/DeepSeek-V2-Lite"), moe_intermediate_size=1408,
                repos=("deepseek-ai/DeepSeek-V2-Lite", "deepseek-ai/DeepSeek-V2-Lite-Chat")),
    ModelPreset("qwen3-235b-a22b", 4096, 128, 8, layers=94, source=_hf("Qwen/Qwen3-235B-A22B"),
                moe_intermediate_size=1536,
                repos=("Qwen/Qwen3-235B-A22B", "Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen/Qwen3-235B-A22B-Thinking-2507")),
    ModelPreset("qwen3-30b-a3b", 2048, 128, 8, layers=48, source=_hf("Qwen/Qwen3-30B-A3B"), moe_intermediate_size=768,
                repos=("Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen/Qwen3-30B-A3B-Thinking-2507")),
    ModelPreset("qwen3-next-80b-a3b", 2048, 512, 10, shared_experts=1, layers=48,
                source=_hf("Qwen/Qwen3-Next-80B-A3B-Instruct") + " (one shared expert: shared_expert_intermediate_size 512)",
                moe_intermediate_size=512,
                repos=("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Thinking")),
    ModelPreset("kimi-k2", 7168, 384, 8, shared_experts=1, layers=61, source=_hf("moonshotai/Kimi-K2-Instruct"),
                aliases=("kimi-k2-instruct", "kimi-k2-thinking"), moe_intermediate_size=2048,
                repos=("moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Instruct-0905", "moonshotai/Kimi-K2-Thinking",
                       "moonshotai/Kimi-K2-Base")),
    ModelPreset("glm-4.5", 5120, 160, 8, shared_experts=1, layers=92, source=_hf("zai-org/GLM-4.5"),
                moe_intermediate_size=1536, repos=("zai-org/GLM-4.5", "THUDM/GLM-4.5")),
    ModelPreset("longcat-flash", 6144, 512, 12, zero_experts=256, layers=28,
                source=_hf("meituan-longcat/LongCat-Flash-Chat") + " (n_routed_experts 512, zero_expert_num 256, moe_topk 12)",
                aliases=("longcat-flash-chat",), repos=("meituan-longcat/LongCat-Flash-Chat",)),
    ModelPreset("gpt-oss-120b", 2880, 128, 4, layers=36, source=_hf("openai/gpt-oss-120b"), moe_intermediate_size=2880,
                repos=("openai/gpt-oss-120b",)),
    ModelPreset("gpt-oss-20b", 2880, 32, 4, layers=24, source=_hf("openai/gpt-oss-20b"), moe_intermediate_size=2880,
                repos=("openai/gpt-oss-20b",)),
    ModelPreset("mixtral-8x7b", 4096, 8, 2, layers=32, source=_hf("mistralai/Mixtral-8x7B-v0.1"),
                aliases=("mixtral-8x7b-instruct",), moe_intermediate_size=14336,
                repos=("mistralai/Mixtral-8x7B-v0.1", "mistralai/Mixtral-8x7B-Instruct-v0.1")),
    ModelPreset("llama-4-maverick", 5120, 128, 1, shared_experts=1, layers=48,
                source=_hf("meta-llama/Llama-4-Maverick-17B-128E-Instruct") + " (text_config; MoE every 2nd layer)",
                aliases=("llama-4-maverick-17b-128e",), moe_intermediate_size=8192,
                repos=("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "meta-llama/Llama-4-Maverick-17B-128E")),
)


def _norm(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


_INDEX = {_norm(n): p for p in PRESETS for n in (p.name, *p.aliases)}
_REPOS = {r.lower(): p for p in PRESETS for r in p.repos}


def names() -> list[str]:
    return [p.name for p in PRESETS]


def lookup(name: str) -> ModelPreset | None:
    """The preset called `name` (case, `-`, `_`, `.` and spaces ignored), or None."""
    return _INDEX.get(_norm(name)) if isinstance(name, str) else None


def by_repo(repo: str) -> ModelPreset | None:
    """The preset a Hugging Face repository id (org/name, case-insensitive) publishes, or None."""
    return _REPOS.get(repo.lower()) if isinstance(repo, str) else None


def unknown_message(name, fields: str = "h, k and moe_expert_num") -> str:
    """The error for an unknown model; `fields` names the keys to write by hand instead (per kind)."""
    from moecfg.core.fields import suggest

    return (f"`model` = {name!r} is not a built-in model{suggest(str(name), names())}; known: {', '.join(names())} "
            f"(or write {fields} yourself)")
