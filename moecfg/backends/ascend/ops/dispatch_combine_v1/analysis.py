"""`op: dispatch_combine_v1`: npu_moe_distribute_dispatch / npu_moe_distribute_combine (the v1 pair).

Fields are the v1 keyword arguments (a subset of v2's: no comm_alg, special experts, elastic_info or
performance_info). On A2 the layered algorithm is chosen only by the environment (HCCL_INTRA_PCIE_ENABLE=1
with HCCL_INTRA_ROCE_ENABLE=0). Rules: rules.py plus the generic rank, quant-mode, token-type, shard-type
and buffer-value checks of the v2 families.
"""
from __future__ import annotations

from moecfg.core.record import record
from moecfg.backends import Analysis, Options
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.ops.dispatch_combine_v1 import formulas as v1x
from moecfg.backends.ascend import kind
from moecfg.backends.ascend.ops.dispatch_combine_v1.catalog import V1_RULES, V1A2Rules, V1A3Rules, V1Rules
from moecfg.backends.ascend.shared.model import DispatchCombineAttrs
from moecfg.backends.ascend.shared.rules import attrs, buffers
from moecfg.backends.ascend.ops.dispatch_combine_v1 import rules as v1

OP = "dispatch_combine_v1"


@record(frozen=True, slots=True)
class V1Config(DispatchCombineAttrs):
    """v1 has exactly the attributes the dispatch/combine pairs share."""

    @classmethod
    def from_values(cls, values: dict) -> "V1Config":
        return cls(**cls.field_values(values))


@record(frozen=True, slots=True)
class V1Facts:
    ruleset: V1Rules
    limits: V1A2Rules | V1A3Rules
    alg: str  # A2: fullmesh | hierarchy (from the environment); A3: fullmesh
    alg_reason: str
    moe_ranks: int  # ep - shared ranks (A3); ep (A2)
    local_moe: int | None
    global_bs: int | None
    max_bs: int | None
    recv_moe_rank: int | None  # A on a MoE rank
    recv_shared_rank: int | None  # A on a shared-expert rank (A3 with shared ranks)

    @property
    def layered(self) -> bool:
        return self.alg == "hierarchy"


def _alg(cfg: V1Config) -> tuple[str, str]:
    if cfg.product == "A3":
        return "fullmesh", ""
    pcie, roce = cfg.env.get("HCCL_INTRA_PCIE_ENABLE"), cfg.env.get("HCCL_INTRA_ROCE_ENABLE")
    if pcie == 1 and roce == 0:
        return "hierarchy", "v1 has no comm_alg: HCCL_INTRA_PCIE_ENABLE=1 and HCCL_INTRA_ROCE_ENABLE=0 select hierarchy"
    return "fullmesh", "v1 has no comm_alg: without HCCL_INTRA_PCIE_ENABLE=1/HCCL_INTRA_ROCE_ENABLE=0 it runs fullmesh"


def derive_v1(cfg: V1Config, rules: V1Rules) -> V1Facts:
    alg, reason = _alg(cfg)
    ep, shared = cfg.ep_world_size, (cfg.shared_expert_rank_num if cfg.product == "A3" else 0)
    moe_ranks = ep - shared
    local = gbs = mbs = recv_moe = recv_shared = None
    if ep > 0 and moe_ranks > 0:
        local = fx.local_moe_expert_num(cfg.moe_expert_num, ep, shared)
        gbs = fx.effective_global_bs(cfg.bs, ep, cfg.global_bs)
        mbs = fx.max_bs_per_rank(gbs, ep)
        if cfg.k > 0 and gbs >= 0 and local >= 0:
            recv_moe = fx.recv_tokens_moe_rank(gbs, local, cfg.k)
        if shared > 0 and gbs >= 0:
            recv_shared = v1x.v1_recv_tokens_shared_rank(gbs, shared)
    return V1Facts(rules, rules.product(cfg.product), alg, reason, moe_ranks, local, gbs, mbs, recv_moe, recv_shared)


GENERIC_CHECKS = (attrs.rank_range, attrs.quant, attrs.token_type, attrs.shard_type, buffers.buffer_values)


def analyze(doc, options: Options) -> Analysis:
    values, findings, broken, ruleset = kind.validate(doc, options, OP)
    out = Analysis(findings=findings, kind="ascend", op=OP, product=values.get("product"),
                   ruleset=ruleset.name if ruleset else None)
    if ruleset is None or broken:
        return out
    cfg = V1Config.from_values(values)
    facts = derive_v1(cfg, V1_RULES[ruleset.name])
    for check in GENERIC_CHECKS + v1.CHECKS:
        findings.extend(check(cfg, facts))
    out.buffers = {r.domain: r.to_json() for r in v1.requirements(cfg, facts)}
    out.derived = derived(cfg, facts)
    return out


def derived(cfg: V1Config, f: V1Facts) -> dict:
    d = {"comm_alg": f.alg, "local_expert_num": f.local_moe, "max_bs": f.max_bs, "global_bs": f.global_bs,
         "A": f.recv_moe_rank, "expand_idx_len": cfg.bs * cfg.k}
    if f.recv_shared_rank is not None:
        d["A_shared_rank"] = f.recv_shared_rank
    if cfg.product == "A3":
        d["scales_dim0"] = cfg.moe_expert_num + (1 if cfg.shared_expert_rank_num > 0 else 0)
    return d
