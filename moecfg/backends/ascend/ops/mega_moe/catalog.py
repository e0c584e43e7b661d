"""Limits of `op: mega_moe` per rule set, as frozen data.

MegaMoE is CANN's (ops-transformer mc2/mega_moe, A2/A3 tiling arch22/mega_moe_tiling_arch22.cpp, torch wrapper
torch_extension/cann_ops_transformer/ops/csrc/mega_moe.cpp). Read at: v8.5.0 (9efe27c) and v9.0.0 / v9.0.1
(afe7214 / 8038339): no mega_moe at all; v9.1.0-beta.2/.3: Ascend 950 tiling only; v9.1.0.pre (121f37d, the
moecfg "9.1" rule set): first A2/A3 tiling; branch 9.1.0 head (3311e26, 2026-07-23); master 25fb6b9
(2026-07-24, the newest master in the GitHub mirror; moecfg's "latest" names 5778144, which the mirror lacks).
"""
from __future__ import annotations

from moecfg.core.record import record

MIB = 1 << 20


@record(frozen=True, slots=True)
class MegaMoeRules:
    """MegaMoE on A2/A3: the tiling's limits, and the torch wrapper's (`get_symm_buffer_for_mega_moe`)."""

    available: bool
    source: str
    # tiling (arch22/mega_moe_tiling_arch22.cpp [master] L84-100)
    ep_values: tuple = (2, 4, 8, 16, 32, 64, 128)
    expert_min: int = 1
    expert_max: int = 1024
    experts_per_rank_max: int = 128  # MAX_EXPERT_PER_RANK: also sizes the token-per-expert table of the buffer
    bs_max: int = 4096  # x.dim0 and num_max_tokens_per_rank
    h_min: int = 1024
    h_max: int = 8192
    h_multiple: int = 512
    inter_min: int = 1024  # weight2.dim0 = intermediate_hidden
    inter_max: int = 3072
    inter_multiple: int = 512
    k_max: int = 16
    combine_quant_modes: tuple = (0,)
    comm_algs: tuple = ("",)
    activations: tuple = ("swiglu",)
    auto_max_recv: bool = True  # max_recv_token_num 0 -> bs * ep * min(k, experts/rank) (aa7907c, 2026-07-13)
    reserved_bytes: int = 10 * MIB  # RESERVED_SPACE_SIZE of the CCL window
    # torch wrapper GetMegaMoeCclBufferSize, called by get_symm_buffer_for_mega_moe before the op exists
    wrapper_checks: bool = True  # v9.1.0.pre's SymmBuffer did not call it (added with 66aec6b, 2026-07-13)
    wrapper_ep_values: tuple = (2, 4, 8, 16, 32)
    wrapper_expert_max: int = 2048
    wrapper_quant_modes: tuple = (0, 2, 4)


_UNAVAILABLE = dict(available=False)
MEGA_MOE_RULES = {
    "8.5": MegaMoeRules(**_UNAVAILABLE, source="ops-transformer v8.5.0 (9efe27c): no mc2/mega_moe"),
    "9.0": MegaMoeRules(**_UNAVAILABLE, source="ops-transformer v9.0.0 (afe7214) / v9.0.1 (8038339): no mc2/mega_moe"),
    "9.1": MegaMoeRules(available=True, source="ops-transformer v9.1.0.pre (121f37d)", auto_max_recv=False,
                        wrapper_checks=False),
    "9.1.0": MegaMoeRules(available=True, source="ops-transformer branch 9.1.0 head (3311e26)",
                          ep_values=(2, 4, 8, 16, 32, 64)),  # 0899bff "fix mega_moe tiling ep check"
    "latest": MegaMoeRules(available=True, source="ops-transformer master 25fb6b9 (2026-07-24)"),
}


def mega_moe_rules(ruleset_name: str) -> MegaMoeRules:
    """The entry of a rule set; rule sets added after this table: 9.1.x lines -> the 9.1.0 branch head, else latest."""
    if ruleset_name in MEGA_MOE_RULES:
        return MEGA_MOE_RULES[ruleset_name]
    return MEGA_MOE_RULES["9.1.0" if ruleset_name.startswith("9.1") else "latest"]
