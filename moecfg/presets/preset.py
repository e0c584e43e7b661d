"""One built-in model preset, and how its `source` names where each value was read."""
from __future__ import annotations

from dataclasses import dataclass

HF = "https://huggingface.co/{}/blob/main/config.json"
# ai-dynamo/aiconfigurator keeps verbatim copies of published config.json files, named `<org>--<name>_config.json`
AIC = ("ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce "
       "aic-core/src/aiconfigurator_core/model_configs/{}_config.json")


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
    also: str = ""  # further config files read: the aliases' own releases, second sources that agree
    model_type: str = ""  # config.json `model_type` (a config.json read; presets: presets/identity.py)
    architectures: tuple = ()  # config.json `architectures`


def hf(repo: str) -> str:
    """The published config.json of `repo`, read on the Hugging Face page itself."""
    return HF.format(repo)


def aic(repo: str) -> str:
    """`repo`'s config.json, read in aiconfigurator's verbatim copy of it."""
    return AIC.format(repo.replace("/", "--"))
