"""Built-in catalog of public MoE architectures (`model: deepseek-v3`, `--model`), as frozen data.

Each preset holds the values a dispatch/combine config needs (hidden size, routed experts, top-k, shared
and special experts) copied from the model's published Hugging Face `config.json` (catalog.py); `source` says where each
was read. Lookup is case-insensitive and ignores `-`, `_`, `.` and spaces, so `DeepSeek-V3`,
`deepseek_v3` and `deepseekv3` are the same model. Stdlib only: `moecfg check` imports this module.
"""
from __future__ import annotations

from moecfg.presets.catalog import PRESETS
from moecfg.presets.preset import ModelPreset

__all__ = ["PRESETS", "ModelPreset", "by_repo", "lookup", "names", "unknown_message"]


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
