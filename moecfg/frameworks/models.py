"""The model a launch serves -> its MoE dimensions, without guessing.

Resolution order for the model text as written (after variable expansion):
1. the settings map `models:` (exact model string, then "*"), whose value is a preset name or a config.json path
   (relative to the settings file);
2. a Hugging Face repository id a preset publishes (`deepseek-ai/DeepSeek-V3`), also behind a local path
   (`/models/deepseek-ai/DeepSeek-V3`) or with a quantisation suffix (`vllm-ascend/DeepSeek-R1-W8A8`);
3. a preset name or alias found in the last path component (`/data/DeepSeek-R1` -> deepseek-r1).
Anything else is unresolved (the caller reports MC042 naming the `models:` setting).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from moecfg import presets
from moecfg.presets import identity
from moecfg.core.launch_rules import MODEL_NOT_KNOWN, MODEL_NOT_STATIC

# Quantisation suffixes of published checkpoints: vllm-ascend's ModelSlim repos (-W8A8, -w4a8-dynamic), FP8, AWQ...
_QUANT = re.compile(r"[-_.](w8a8(?:[-_]?dynamic)?|w4a8(?:[-_]?dynamic)?|w4a16|w8a16|fp8|fp4|nvfp4|mxfp4|awq|gptq|"
                    r"int4|int8|bf16|a3|a2)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ModelDims:
    name: str
    hidden: int
    num_experts: int
    topk: int
    moe_intermediate_size: int  # 0 = not known
    shared_experts: int
    quant_hint: str | None  # a quantisation named in the checkpoint name ("w8a8", "w4a8_dynamic", "fp8"), lower case
    how: str  # how it was resolved, for derivation texts
    model_type: str = ""  # the config.json `model_type` (`deepseek_v4`); "" = not known (presets/identity.py)
    architectures: tuple[str, ...] = ()  # the config.json `architectures` (`Qwen3MoeForCausalLM`)

    def is_type(self, *model_types: str) -> bool:
        """The model's type is one of `model_types` (compared as registries compare: `deepseek-v4` = deepseek_v4)."""
        return bool(self.model_type) and identity.normal(self.model_type) in {identity.normal(t) for t in model_types}

    def is_family(self, prefix: str) -> bool:
        """The model type or, when it is not known, the name starts with `prefix` (`deepseek`: deepseek_v3,
        DeepSeek-R1, deepseek-v4-flash), compared as registries compare."""
        return identity.normal(self.model_type or self.name.rsplit("/", 1)[-1]).startswith(identity.normal(prefix))


def _dims(p: presets.ModelPreset, quant: str | None, how: str) -> ModelDims:
    model_type, arches = (p.model_type, p.architectures) if p.model_type or p.architectures else \
        identity.of_preset(p.name)
    return ModelDims(p.name, p.hidden_size, p.routed_experts, p.top_k, p.moe_intermediate_size, p.shared_experts,
                     quant, how, model_type, tuple(arches))


def quant_hint(text: str) -> str | None:
    """The quantisation a checkpoint name carries, normalised (`-W8A8-Dynamic` -> "w8a8_dynamic")."""
    base = text.rstrip("/").rsplit("/", 1)[-1]
    found = None
    while True:
        m = _QUANT.search(base)
        if not m:
            return found
        tag = m.group(1).lower().replace("-", "_")
        if tag not in ("a2", "a3"):
            found = found or tag.replace("w8a8dynamic", "w8a8_dynamic").replace("w4a8dynamic", "w4a8_dynamic")
        base = base[: m.start()]


def _strip_quant(name: str) -> str:
    while True:
        m = _QUANT.search(name)
        if not m:
            return name
        name = name[: m.start()]


def _from_repo_or_name(text: str) -> presets.ModelPreset | None:
    parts = [p for p in text.rstrip("/").split("/") if p]
    if len(parts) >= 2:
        for candidate in ("/".join(parts[-2:]), "/".join(parts[-2:-1] + [_strip_quant(parts[-1])])):
            hit = presets.by_repo(candidate)
            if hit:
                return hit
    if parts:
        last = parts[-1]
        hit = presets.lookup(last) or presets.lookup(_strip_quant(last)) or _by_prefix(last)
        if hit:
            return hit
        for org_less in presets.PRESETS:  # `Qwen3-235B-A22B-Instruct-2507` published under another org
            if any(r.split("/")[-1].lower() in (last.lower(), _strip_quant(last).lower()) for r in org_less.repos):
                return org_less
    return None


def _by_prefix(name: str) -> presets.ModelPreset | None:
    """`DeepSeek-V3.1-w8a8-mtp-QuaRot` -> deepseek-v3: the longest leading run of `-` parts naming a preset
    (checkpoint names append quantisation and tooling tags to the model's name)."""
    pieces = name.split("-")
    if any(p.lower() == "distill" for p in pieces):
        return None  # `DeepSeek-R1-Distill-Qwen-1.5B`: another (dense) model distilled from the named one
    for n in range(len(pieces) - 1, 1, -1):
        hit = presets.lookup("-".join(pieces[:n]))
        if hit:
            return hit
    return None


def _from_setting(value: str, ctx, key: str) -> tuple[presets.ModelPreset | None, str]:
    hit = presets.lookup(value)
    if hit:
        return hit, f"models[{key!r}] = {value} in the settings"
    path = value if os.path.isabs(value) or not ctx.settings_dir else os.path.join(ctx.settings_dir, value)
    if os.path.lexists(path):
        from moecfg.presets.hf_config import ModelConfigError, read_model_config
        from moecfg.sources.contained import tree_roots

        roots = None if getattr(ctx, "models_trusted", False) else tree_roots(ctx.settings_dir)
        try:  # inside the checked tree or the settings file's folder only (sources/contained.py)
            return read_model_config(path, roots), \
                f"models[{key!r}] = {value} (config.json) in the settings"
        except ModelConfigError as exc:
            return None, str(exc)
    return None, f"models[{key!r}] = {value!r} in the settings is neither a built-in model nor a config.json path"


def resolve_model(text: str | None, ctx) -> ModelDims | None:
    """The dimensions of the model `text` names, or None when they cannot be known."""
    mapping = dict(ctx.models)
    if not text and "*" not in mapping:
        return None
    quant = quant_hint(text) if text else None
    for key in (text, "*") if text else ("*",):  # a model not known statically: only `'*'` can name it
        if key in mapping:
            preset, how = _from_setting(mapping[key], ctx, key)
            return _dims(preset, quant, how) if preset else None
    if not text:
        return None
    preset = _from_repo_or_name(text)
    if preset is None:
        return None
    where = preset.source.split()[0] if preset.source else ""  # the config.json the values were read from
    return _dims(preset, quant, f"{text} -> built-in preset {preset.name}" + (f" ({where})" if where else ""))


def known_moe(text: str | None, ctx) -> bool:
    """The model resolves to one with routed experts: only then is "the MoE layers run without EP" worth saying."""
    try:
        dims = resolve_model(text, ctx)
    except (ValueError, OSError):
        return False
    return bool(dims and dims.num_experts)


def unresolved_reason(text: str | None, ctx) -> str:
    """Why `text` did not resolve (a settings value that is wrong, or simply unknown)."""
    mapping = dict(ctx.models)
    for key in (text, "*") if text else ("*",):
        if key in mapping:
            return _from_setting(mapping[key], ctx, key)[1]
    suggested = suggested_preset(text, getattr(ctx, "file", None))
    if text is None:  # `--model-path $(MODEL_PATH)`, `<model_path>`: set at run time
        return (f"{MODEL_NOT_STATIC} (a variable or placeholder set at run time); name it in "
                f".moecfg.yaml: `models: {{'*': {suggested}}}` (a preset name or a path to its config.json)")
    return (f"model {text!r} {MODEL_NOT_KNOWN}; map it in .moecfg.yaml: "
            f"`models: {{{text!r}: {suggested}}}` (a preset name or a path to its config.json)")


PLACEHOLDER_PRESET = "<preset or path/to/config.json>"


def suggested_preset(text: str | None, file: str | None) -> str:
    """The preset the evidence names (issue 30: advice that names another model's preset, followed, gives false
    errors): one named by the model text's path, else by the file's path (deepest part first: `guides/kimi-k2/
    serve.sh` -> kimi-k2); else a placeholder the user fills in."""
    parts = [p for p in (text or "").replace("\\", "/").split("/") if p][::-1]
    if file:
        base = os.path.basename(file).rsplit(".", 1)[0]
        parts += [base] + [p for p in os.path.dirname(file).replace("\\", "/").split("/") if p][::-1]
    for part in parts:
        for piece in (part, *re.split(r"[_\s]+", part)):
            hit = (presets.lookup(piece) or presets.lookup(_strip_quant(piece)) or _by_prefix(piece)
                   or _by_prefix(piece.replace("_", "-")))
            if hit:
                return hit.name
    return PLACEHOLDER_PRESET
