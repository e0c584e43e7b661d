"""The model side of a vllm-ascend launch: dimensions (from the presets / settings), the MoE quantisation and the
EPLB redundant experts.

Quantisation (decision, documented in the README): vllm-ascend reads the MoE quant type from the checkpoint's
`quant_model_description.json` (ModelSlim) when `--quantization ascend` is given — main also auto-detects that
file without the flag (VA@182b75e vllm_ascend/quantization/utils.py:120-175). moecfg cannot read the checkpoint:
it takes the type from the model preset's hint, else from the model name as vllm-ascend publishes them
(`vllm-ascend/DeepSeek-R1-W8A8` -> w8a8_dynamic MoE experts, `...-W4A8` -> w4a8_dynamic), else reports MC042.
"""
from __future__ import annotations

import re

from moecfg.core.launch_rules import MODEL_NOT_STATIC
from moecfg.frameworks import LaunchContext, Note
from moecfg.frameworks.vllm_ascend.cli import Arg, ServeArgs
from moecfg.frameworks.vllm_ascend.releases import Release

_NAME_QUANT = (("w4a8", "w4a8_dynamic"), ("w8a8", "w8a8_dynamic"))
DYNAMIC_QUANTS = ("w8a8_dynamic", "w4a8_dynamic")  # MC2 dispatch quantises tokens: quant_mode 2


def resolve(model: Arg, ctx: LaunchContext):
    """ModelDims from moecfg.frameworks.models.resolve_model, or None (unknown, or the resolver is absent). A model
    not known statically still takes the settings' `models: {"*": ...}` entry."""
    try:
        from moecfg.frameworks import models
    except ImportError:
        return None
    try:
        return models.resolve_model(model.value, ctx)
    except (ValueError, OSError):
        return None


def unknown_model_note(model: Arg, ctx: LaunchContext, start) -> Note:
    from moecfg.frameworks import models

    span = model.spans[0] if model.spans else start
    if model.value is None and "*" not in dict(ctx.models):
        return Note("MC042", f"{MODEL_NOT_STATIC} (--model or the positional model is missing or comes "
                    "from an unset variable): h, k and moe_expert_num are left out; name it in .moecfg.yaml: "
                    "`models: {\"*\": deepseek-v3}`", span)
    return Note("MC042", f"{models.unresolved_reason(model.value, ctx)}; h, k and moe_expert_num are left out", span)


def _hint(dims) -> str | None:
    for attr in ("quant_hint", "quant"):
        v = getattr(dims, attr, None) if dims is not None else None
        if isinstance(v, str) and v:
            return v.lower()
    return None


def _from_name(text: str) -> str | None:
    low = text.lower()
    for token, quant in _NAME_QUANT:
        if re.search(rf"(^|[^a-z0-9]){token}([^0-9]|$)", low):
            return quant
    return None


def moe_quant(args: ServeArgs, rel: Release, dims) -> tuple[Arg, list[Note]]:
    """The MoE quant type (`w8a8_dynamic`, `w4a8_dynamic`; None = bf16) with how it was found."""
    q = args.flag("--quantization", None, kind=str)
    model = args.model
    named = _hint(dims) or (_from_name(str(model.value)) if model.value else None)
    if named and named in ("w8a8", "w4a8"):
        named += "_dynamic"
    if q.value is None and q.text:
        return Arg(None), []
    if q.value in (None, "None") and not (rel.family == "main" and named):
        return Arg(None, q.spans, "no --quantization: bf16 MoE weights"), []
    if q.value not in (None, "ascend"):
        span = q.spans[0] if q.spans else args.start
        return Arg("unknown"), [Note("MC042", f"{q.text}: moecfg derives quant_mode only for vllm-ascend's "
                                     "ModelSlim weights (`--quantization ascend`); quant_mode is left out", span)]
    how = q.text or "quant_model_description.json auto-detected (main, vllm_ascend/quantization/utils.py:120-175)"
    if named:
        src = f"the checkpoint name {model.value!r}"
        return Arg(named, q.spans + model.spans, f"{how}; MoE {named} from {src}"), []
    span = q.spans[0] if q.spans else args.start
    return Arg("unknown", q.spans), [Note("MC042", f"{how}: the MoE quant type of {model.value!r} is unknown "
                                         "(w8a8_dynamic?); quant_mode is left out — name a W8A8/W4A8 model or set "
                                         "its preset in `models:`", span)]


def redundant_experts(args: ServeArgs, rel: Release) -> tuple[Arg, list[Note]]:
    """EPLB redundant experts added to moe_expert_num, per release (cited in releases.py `eplb`)."""
    ac = "--additional-config"
    path = args.config(ac, "expert_map_path")
    if path.value is None:
        path = args.config(ac, "eplb_config", "expert_map_path")
    if path.value:
        span = path.spans[0] if path.spans else args.start
        return Arg(None, path.spans), [Note("MC023", f"{path.text}: the redundant experts come from the expert map "
                                            "file, which moecfg does not read; moe_expert_num is left out", span)]
    if rel.eplb == "init_redundancy_expert":
        n = args.config(ac, "init_redundancy_expert", default=0)
        return _int_arg(n), []
    if rel.eplb == "v013":
        n = args.config(ac, "eplb_config", "num_redundant_experts")
        dyn = args.config(ac, "eplb_config", "dynamic_eplb")
        if n.value is None:
            n, dyn = args.config(ac, "init_redundancy_expert", default=0), args.config(ac, "dynamic_eplb")
        record = args.config(ac, "expert_map_record_path")
        on = bool(dyn.value) or bool(record.value)
        return (_int_arg(n) if on else Arg(0, n.spans, f"{n.text} ignored: dynamic_eplb is off")), []
    upstream = args.flag("--enable-eplb", False, kind=bool)
    if upstream.value:
        n = args.config("--eplb-config", "num_redundant_experts", default=0)
        return _int_arg(n), []
    n = args.config(ac, "eplb_config", "num_redundant_experts", default=0)
    dyn = args.config(ac, "eplb_config", "dynamic_eplb", default=False)
    return (_int_arg(n) if dyn.value else Arg(0, n.spans, f"{n.text} ignored: eplb_config.dynamic_eplb is off")
            if n.value else Arg(0)), []


def _int_arg(a: Arg) -> Arg:
    return a if isinstance(a.value, int) and not isinstance(a.value, bool) else Arg(None, a.spans, a.text)


def dynamic_eplb(args: ServeArgs, rel: Release) -> bool:
    ac = "--additional-config"
    return bool(args.config(ac, "dynamic_eplb").value or args.config(ac, "eplb_config", "dynamic_eplb").value
                or args.config(ac, "expert_map_record_path").value)
