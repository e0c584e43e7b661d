"""The validated document (`AscendConfig`) and the values derived from it (`Facts`)."""
from __future__ import annotations

from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.shared.catalog import A2Rules, A3Rules, RuleSet
from moecfg.core.record import field_names, record

DEFAULT_HCCL_BUFFSIZE_MB = 200


@record(frozen=True, slots=True)
class DispatchCombineAttrs:
    """Attributes every dispatch/combine op pair shares (v1 and v2); ops subclass it with their own."""

    product: str
    bs: int
    h: int
    k: int
    ep_world_size: int
    moe_expert_num: int
    ep_rank_id: int | None
    tp_world_size: int
    tp_rank_id: int
    expert_shard_type: int
    shared_expert_num: int
    shared_expert_rank_num: int
    quant_mode: int
    global_bs: int
    expert_token_nums_type: int
    comm_quant_mode: int
    x_dtype: str
    env: dict
    hccl_buffer_size: dict | None

    @classmethod
    def field_values(cls, values: dict, skip=()) -> dict:
        """Constructor keywords of `cls` from validated values (env defaults to {})."""
        kw = {n: values.get(n) for n in field_names(cls) if n not in skip}
        kw["env"] = kw["env"] or {}
        return kw

    @property
    def hccl_buffsize_env(self) -> int | None:
        return self.env.get("HCCL_BUFFSIZE")


@record(frozen=True, slots=True)
class AscendConfig(DispatchCombineAttrs):
    """A validated dispatch/combine document: the op's attributes, release, op, comm_alg, optional inputs, buffers."""

    cann_version: str | None
    op: str
    comm_alg: str
    zero_expert_num: int
    copy_expert_num: int
    const_expert_num: int
    group_ep: str | None
    group_tp: str | None
    scales: bool
    x_active_mask: str
    expert_scales: bool
    elastic_info: bool
    performance_info: bool
    present: frozenset  # top-level keys written in the file
    ori_x: bool = False  # combine special-expert tensors (copy experts: ori_x; const: all four)
    const_expert_alpha_1: bool = False
    const_expert_alpha_2: bool = False
    const_expert_v: bool = False
    api: str = "torch_npu"  # torch_npu | aclnn_v2 .. aclnn_v5 (v5 = context mode, op MoeDistributeDispatchV3)
    ccl_buffer_size: int | None = None  # aclnn_v5: bytes

    @classmethod
    def from_values(cls, values: dict, present) -> "AscendConfig":
        kw = cls.field_values(values, skip=("present",))
        kw["comm_alg"] = kw["comm_alg"] or ""
        kw["api"] = kw["api"] or "torch_npu"  # ops whose table has no `api`
        for name in ("ori_x", "const_expert_alpha_1", "const_expert_alpha_2", "const_expert_v"):
            kw[name] = bool(kw[name])
        return cls(**kw, present=frozenset(present))

    @property
    def context_mode(self) -> bool:
        return self.api == "aclnn_v5"

    @property
    def special_experts(self) -> int:
        return self.zero_expert_num + self.copy_expert_num + self.const_expert_num


@record(frozen=True, slots=True)
class Facts:
    """Derived values; None where the inputs do not allow computing them (e.g. ep <= shared ranks)."""

    ruleset: RuleSet
    limits: A2Rules | A3Rules
    alg: str  # resolved algorithm: fullmesh_v1 | fullmesh_v2 | hierarchy (A3); fullmesh | hierarchy (A2); "" if invalid
    alg_reason: str  # how it was chosen (for A2 "" and small ep)
    shared_num: int  # after the (1, 0) normalisation (A3); 0 on A2 (shared experts are not supported)
    shared_rank: int  # 0 on A2
    moe_ranks: int  # ep - shared_rank
    local_moe: int | None
    global_bs: int | None
    max_bs: int | None
    recv_moe_rank: int | None  # A on a MoE rank
    recv_shared_rank: int | None  # A on a shared-expert rank (None without shared experts)

    @property
    def layered(self) -> bool:
        return self.alg == "hierarchy"

    @property
    def recv_tokens_max(self) -> int | None:
        vals = [v for v in (self.recv_moe_rank, self.recv_shared_rank) if v is not None]
        return max(vals) if vals else None


def resolve_a2_alg(cfg: AscendConfig, lim: A2Rules) -> tuple[str, str]:
    """A2 algorithm choice (DV2A22[M] L90-130): ep <= 8 is always flat (R90+), '' / '0' follows env."""
    if lim.ep_any_upto and 0 < cfg.ep_world_size <= lim.ep_any_upto:
        return "fullmesh", f"ep_world_size={cfg.ep_world_size} <= {lim.ep_any_upto} always runs fullmesh"
    if cfg.comm_alg in ("", "0"):
        pcie, roce = cfg.env.get("HCCL_INTRA_PCIE_ENABLE"), cfg.env.get("HCCL_INTRA_ROCE_ENABLE")
        if pcie == 1 and roce == 0:
            return "hierarchy", "comm_alg '' with HCCL_INTRA_PCIE_ENABLE=1 and HCCL_INTRA_ROCE_ENABLE=0 selects hierarchy"
        return "fullmesh", "comm_alg '' without HCCL_INTRA_PCIE_ENABLE=1/HCCL_INTRA_ROCE_ENABLE=0 selects fullmesh"
    if cfg.comm_alg in ("fullmesh", "hierarchy"):
        return cfg.comm_alg, ""
    return "", ""


def derive(cfg: AscendConfig, ruleset: RuleSet) -> Facts:
    lim = ruleset.product(cfg.product)
    if cfg.product == "A3":
        alg = {"": "fullmesh_v1"}.get(cfg.comm_alg, cfg.comm_alg) if cfg.comm_alg in lim.comm_algs else ""
        reason = "comm_alg '' is fullmesh_v1" if cfg.comm_alg == "" else ""
        shared_num = fx.normalized_shared_expert_num(cfg.shared_expert_num, cfg.shared_expert_rank_num)
        shared_rank = cfg.shared_expert_rank_num
    else:
        alg, reason = resolve_a2_alg(cfg, lim)
        shared_num = shared_rank = 0
    ep = cfg.ep_world_size
    moe_ranks = ep - shared_rank
    local = gbs = mbs = recv_moe = recv_shared = None
    if ep > 0 and moe_ranks > 0:
        local = fx.local_moe_expert_num(cfg.moe_expert_num, ep, shared_rank)
        gbs = fx.effective_global_bs(cfg.bs, ep, cfg.global_bs)
        mbs = fx.max_bs_per_rank(gbs, ep)
        if cfg.k > 0 and gbs >= 0 and local >= 0:
            recv_moe = fx.recv_tokens_moe_rank(gbs, local, cfg.k)
        if shared_rank > 0 and shared_num > 0 and mbs >= 0:
            recv_shared = fx.recv_tokens_shared_rank(mbs, fx.max_shared_group_num(ep, shared_num, shared_rank))
        if cfg.elastic_info and recv_moe is not None and cfg.product == "A3":
            recv_moe = max(recv_moe, recv_shared or 0)  # DV2T[M]: elastic ranks may take either role
    return Facts(ruleset, lim, alg, reason, shared_num, shared_rank, moe_ranks, local, gbs, mbs,
                 recv_moe, recv_shared)
