"""Read a Hugging Face `config.json` from disk into a `ModelPreset` (`--model-config PATH`).

Known layouts: DeepSeek/Kimi/GLM/MiMo (`n_routed_experts`, `n_shared_experts`), Qwen-MoE (`num_experts`,
`shared_expert_intermediate_size` = one shared expert), Mixtral/gpt-oss/Llama-4 (`num_local_experts`,
`experts_per_token`), LongCat-Flash (`moe_topk`, `zero_expert_num`), Gemma 4 (`top_k_experts`), kimi_linear
(`num_experts_per_token`, `num_shared_experts`), Hunyuan (`num_shared_expert`); multimodal configs that nest the
language model under `text_config` (Llama 4, Kimi-K2.5) are read from there. Anything else is a
`ModelConfigError` naming the keys that were looked for.
"""
from __future__ import annotations

import json
import os

from moecfg.presets import ModelPreset

EXPERT_KEYS = ("n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts")
# kimi_linear (Kimi-K3) writes num_experts_per_token, gemma4 top_k_experts
TOPK_KEYS = ("num_experts_per_tok", "moe_topk", "experts_per_token", "moe_k", "num_experts_per_token", "top_k_experts")
SHARED_KEYS = ("n_shared_experts", "num_shared_experts", "num_shared_expert")  # DeepSeek, kimi_linear, Hunyuan
# latent MoE (Nemotron-3 Super/Ultra moe_latent_size, Kimi-K3 routed_expert_hidden_size): experts exchange a width
# other than hidden_size, so `h` cannot be read from hidden_size
LATENT_KEYS = ("moe_latent_size", "routed_expert_hidden_size")
HIDDEN_KEYS = ("hidden_size", "d_model", "dim")
LAYER_KEYS = ("num_hidden_layers", "num_layers", "n_layers")
MOE_FFN_KEYS = ("moe_intermediate_size", "expert_ffn_hidden_size", "intermediate_size")


class ModelConfigError(Exception):
    """A config.json that cannot be read or is not a known MoE layout."""


def _first(cfg: dict, keys, what: str, path: str, required: bool = True):
    for key in keys:
        value = cfg.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 63:
            raise ModelConfigError(f"{path}: `{key}` = {_clip(value)} is not a non-negative integer below 2**63 ({what})")
        return value
    if required:
        raise ModelConfigError(f"{path}: unknown config.json layout: no {what} (looked for {', '.join(keys)}); "
                               "use --model NAME or give h, k and moe_expert_num yourself")
    return 0


def _clip(value) -> str:
    from moecfg.core.values import clipped

    return clipped(value if isinstance(value, str) else repr(value) if not isinstance(value, int) else str(value), 40)


def _shared(cfg: dict) -> int:
    for key in SHARED_KEYS:
        n = cfg.get(key)
        if isinstance(n, int) and not isinstance(n, bool):
            return n
    size = cfg.get("shared_expert_intermediate_size")  # Qwen2/3-MoE, Qwen3-Next: one (gated) shared expert
    return 1 if isinstance(size, int) and size > 0 else 0


def preset_from_dict(cfg: dict, path: str = "config.json") -> ModelPreset:
    if not isinstance(cfg, dict):
        raise ModelConfigError(f"{path}: expected a JSON object, got {type(cfg).__name__}")
    model_type, arches = _identity(cfg)
    text = cfg.get("text_config")
    if isinstance(text, dict) and not any(k in cfg for k in EXPERT_KEYS):
        cfg = text
    experts = _first(cfg, EXPERT_KEYS, "routed expert count", path)
    if experts == 0:
        raise ModelConfigError(f"{path}: the expert count is 0: a dense model has no expert-parallel dispatch")
    top_k = _first(cfg, TOPK_KEYS, "experts per token", path)
    hidden = _first(cfg, HIDDEN_KEYS, "hidden size", path)
    for key in LATENT_KEYS:
        if cfg.get(key) not in (None, 0, hidden):
            raise ModelConfigError(f"{path}: `{key}` = {cfg[key]!r}: a latent MoE whose experts do not exchange "
                                   f"hidden_size {hidden}; give h (DeepEP: hidden) yourself")
    name = cfg.get("_name_or_path") or cfg.get("model_type") or os.path.basename(os.path.dirname(os.path.abspath(path)))
    return ModelPreset(name=str(name)[:200], hidden_size=hidden, routed_experts=experts, top_k=top_k,
                       shared_experts=_shared(cfg), zero_experts=_first(cfg, ("zero_expert_num",), "", path, False),
                       copy_experts=_first(cfg, ("copy_expert_num",), "", path, False),
                       const_experts=_first(cfg, ("const_expert_num",), "", path, False),
                       layers=_first(cfg, LAYER_KEYS, "", path, False), source=os.path.abspath(path),
                       moe_intermediate_size=_first(cfg, MOE_FFN_KEYS, "", path, False),
                       model_type=model_type, architectures=arches)


def _identity(cfg: dict) -> tuple[str, tuple[str, ...]]:
    """The top-level `model_type` and `architectures` (frameworks read these, not text_config's), as written."""
    model_type = cfg.get("model_type")
    arches = cfg.get("architectures")
    arches = tuple(a[:100] for a in arches if isinstance(a, str))[:8] if isinstance(arches, list) else ()
    return (model_type[:100] if isinstance(model_type, str) else ""), arches


def read_model_config(path: str, roots: tuple[str, ...] | None = None) -> ModelPreset:
    """Read `path` (a config.json, or a directory holding one). `roots` (a settings `models:` path): read only
    inside these folders, links included (sources/contained.py); None (a path on moecfg's command line): links
    are followed anywhere (the Hugging Face cache links snapshots to blobs)."""
    if roots is not None:
        return _read_inside(path, roots)
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    from moecfg.sources.files import Entry, Unreadable, read

    try:  # a regular file, size-capped; links followed anywhere (the Hugging Face cache links snapshots to blobs)
        data = json.loads(read(Entry(path, root=os.sep)).decode("utf-8"))
    except Unreadable as exc:
        raise ModelConfigError(f"{path}: {exc}") from None
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # also 5000-digit ints, [[[... 100k deep
        raise ModelConfigError(f"{path}: not valid JSON ({type(exc).__name__}: {str(exc)[:200]})") from None
    return preset_from_dict(data, path)


def _read_inside(path: str, roots: tuple[str, ...]) -> ModelPreset:
    from moecfg.core.values import JsonValueError, load_json
    from moecfg.sources.contained import read_inside
    from moecfg.sources.files import Unreadable

    try:
        data = load_json(read_inside(path, None, roots).decode("utf-8"))
    except Unreadable as exc:
        raise ModelConfigError(f"{path}: {exc}") from None
    except (JsonValueError, UnicodeDecodeError) as exc:
        raise ModelConfigError(f"{path}: not valid JSON ({type(exc).__name__}: {str(exc)[:200]})") from None
    return preset_from_dict(data, path)
