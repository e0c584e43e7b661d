"""Limits of `op: combine_add_rms_norm` per rule set (ascend-mc2-rules.md §4), on top of the dispatch/combine
v2 limits (shared/catalog.py); keyed by the names of shared/rulesets.RULESETS."""
from __future__ import annotations

from moecfg.core.record import record
from moecfg.backends.ascend.shared.catalog import LATER_CODE_POINTS


@record(frozen=True, slots=True)
class AddRmsNormRules:
    """combine_add_rms_norm on top of the dispatch/combine v2 limits (§4: CV2T[M] L363-428, L634-671, L981-1054)."""

    products: tuple = ("A3",)  # op config has ascend910_93 only: no A2 binary
    expand_x_dtypes: tuple = ("bf16", "fp16")  # R85 own tiling L502-504: bf16 only
    residual_dtypes: tuple = ("bf16",)
    gamma_dtypes: tuple = ("bf16",)
    local_x_ep_max: int | None = 2048  # R85 L1049-1050: the combine side only needs local_moe > 0 (None)
    source: str = ""


ADD_RMS_NORM_RULES = {
    "8.5": AddRmsNormRules(expand_x_dtypes=("bf16",), local_x_ep_max=None,
                           source="R85 moe_distribute_combine_add_rms_norm_tiling.cpp (own copy)"),
    "9.0": AddRmsNormRules(source="R90 CombineV2 tiling with hasAddRmsNorm"),
    "9.1": AddRmsNormRules(source="R91 CombineV2 tiling with hasAddRmsNorm"),
    "latest": AddRmsNormRules(source="[M] CV2T L363-428, L634-671, L981-1054"),
}
# the later code points share their neighbours' tables (see LATER_CODE_POINTS)
for _name, _like in LATER_CODE_POINTS:
    ADD_RMS_NORM_RULES[_name] = ADD_RMS_NORM_RULES[_like]
