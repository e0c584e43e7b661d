"""The dispatch/combine v2 checks as a unit: the rule families every op built on dispatch v2 runs
(dispatch_combine_v2, combine_add_rms_norm), and the derived values they report."""
from __future__ import annotations

from moecfg.backends.ascend.shared.model import AscendConfig
from moecfg.backends.ascend.shared.rules import attrs, buffers, comm_alg, experts, inputs

FAMILIES = (attrs, experts, comm_alg, inputs, buffers)


def run_families(cfg, facts, findings: list) -> None:
    """Run the dispatch/combine v2 rule families (shared by the ops built on dispatch v2)."""
    for family in FAMILIES:
        for check in family.CHECKS:
            findings.extend(check(cfg, facts))


def derived(cfg: AscendConfig, f) -> dict:
    d = {"comm_alg": f.alg or None, "local_expert_num": f.local_moe, "max_bs": f.max_bs, "global_bs": f.global_bs,
         "A": f.recv_moe_rank}
    if f.recv_shared_rank is not None:
        d["A_shared_rank"] = f.recv_shared_rank
    if cfg.product == "A3":
        d["shared_expert_num"] = f.shared_num
    start = cfg.moe_expert_num
    for name in ("zero", "copy", "const"):
        n = getattr(cfg, f"{name}_expert_num")
        if n > 0:
            d[f"{name}_expert_ids"] = [start, start + n]  # half-open [first, end)
            start += n
    return d
