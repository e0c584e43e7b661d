"""Limits of `op: dispatch_combine_v1` per rule set and product (ascend-mc2-rules.md §5); keyed by the names of
shared/rulesets.RULESETS."""
from __future__ import annotations

from moecfg.core.record import record, replace
from moecfg.backends.ascend.shared.catalog import LATER_CODE_POINTS


@record(frozen=True, slots=True)
class V1A3Rules:
    """npu_moe_distribute_dispatch / combine (v1) on A3 (§5: R85 dispatch tiling L168-512, combine L86-97, L440-717)."""

    ep_values: tuple = (8, 16, 32, 64, 128, 144, 256, 288)  # ep <= 288, %8, and (256 % ep == 0 or ep % 144 == 0)
    h_value: int = 7168
    k_max: int = 8
    bs_max: int = 512
    moe_max: int = 512
    shared_expert_num: int = 1
    tp_max: int = 2
    comm_quant_modes: tuple = (0, 2)


@record(frozen=True, slots=True)
class V1A2Rules:
    """v1 on A2 (§5): layered only through HCCL_INTRA_PCIE_ENABLE=1 / HCCL_INTRA_ROCE_ENABLE=0."""

    ep_max: int = 256
    ep_multiple: int = 8
    moe_max: int = 512
    moe_per_rank_max_flat: int | None = 24
    h_max: int = 7168
    h_multiple: int = 32
    bs_max: int = 256
    k_max: int = 16
    layered_window_warning: bool = False  # [M] arch22 a2a3 L284-297: warning-only window check


@record(frozen=True, slots=True)
class V1Rules:
    """Dispatch/combine v1 limits of one rule set, per product."""

    name: str
    source: str
    a2: V1A2Rules
    a3: V1A3Rules

    def product(self, product: str):
        return self.a2 if product == "A2" else self.a3


V1_RULES = {
    name: V1Rules(name=name, source=src, a2=V1A2Rules(layered_window_warning=(name == "latest")), a3=V1A3Rules())
    for name, src in (("8.5", "R85 moe_distribute_dispatch/combine tiling"), ("9.0", "R90 (constants as R85)"),
                      ("9.1", "R91 (constants as R85)"), ("latest", "[M] (constants as R85; A2 window warning)"))
}
# the later code points share their neighbours' tables (see LATER_CODE_POINTS)
for _name, _like in LATER_CODE_POINTS:
    V1_RULES[_name] = replace(V1_RULES[_like], name=_name)
