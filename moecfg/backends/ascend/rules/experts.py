"""Expert layout (MC2xx): divisibility, experts per rank, shared experts and special experts.

MoE experts are split evenly over the MoE ranks: A3 needs `moe_expert_num % (ep_world_size -
shared_expert_rank_num) == 0` and `local_expert_num * ep_world_size <= 2048`; A2 needs `moe % ep == 0`
(A2 has no shared-expert ranks; CANN ignores those attributes there) and, in CANN 8.5 only, at most 24
experts per rank unless `hierarchy` is used. Shared experts (A3): `shared_expert_num` in [0, 4],
`shared_expert_rank_num` in [0, ep), both zero or both non-zero after torch_npu's default (1, 0) is
normalised to "none", and the shared ranks divisible by the shared experts. Special experts (zero, copy,
const; IDs after the MoE experts) must be >= 0 and their sum with the MoE experts must fit INT32; A2
refuses const experts.
"""
from __future__ import annotations

from moecfg.core.diagnostics import WARNING
from moecfg.core.registry import rule
from moecfg.backends.ascend.formulas import INT32_MAX
from moecfg.backends.ascend.rules import finding, where

_F = "ascend-experts"
DIVISIBLE = rule("MC201", "moe-expert-divisibility", "error", "moe_expert_num divisible by the MoE ranks", family=_F,
                 source="DV2T[M] L961-968; DV2A22[M] L285-295")
LOCAL_MAX = rule("MC202", "local-expert-limit", "error", "A3: local_expert_num * ep_world_size <= 2048 and > 0", family=_F,
                 source="DV2T[M] L969-976")
A2_PER_RANK = rule("MC203", "a2-experts-per-rank", "error", "A2, CANN 8.5, fullmesh: at most 24 experts per rank", family=_F,
                   source="R85 DV2T L1148-1150 (e416eec)")
SHARED_NUM = rule("MC204", "shared-expert-num-range", "error", "A3: shared_expert_num in [0, 4]", family=_F, source="DV2T[M] L802-804")
SHARED_RANKS = rule("MC205", "shared-expert-rank-num-range", "error", "A3: shared_expert_rank_num in [0, ep_world_size)", family=_F,
                    source="DV2T[M] L805-809")
SHARED_PAIR = rule("MC206", "shared-expert-pairing", "error", "A3: shared_expert_num and shared_expert_rank_num both zero or both non-zero", family=_F,
                   source="DV2T[M] L878-888")
SHARED_DIV = rule("MC207", "shared-expert-divisibility", "error", "A3: shared_expert_rank_num divisible by shared_expert_num", family=_F,
                  source="DV2T[M] L889-898")
SPECIAL_NEG = rule("MC208", "special-expert-negative", "error", "zero/copy/const_expert_num >= 0", family=_F, source="DV2T[M] L777-785")
SPECIAL_SUM = rule("MC209", "special-expert-overflow", "error", "moe + zero + copy + const fits INT32", family=_F,
                   source="DV2T[M] L788-793; DV2A22[M] L359-369")
A2_CONST = rule("MC210", "a2-const-expert", "error", "A2: const_expert_num must be 0", family=_F, source="DV2A22[M] L341-348")
A2_SHARED = rule("MC211", "a2-shared-experts-ignored", WARNING, "A2 ignores shared-expert attributes", family=_F,
                 source="DV2A22[M]: not validated, forced to 0")


def divisibility(cfg, f):
    moe = cfg.moe_expert_num
    if moe <= 0 or f.moe_ranks <= 0:
        return
    if moe % f.moe_ranks:
        lo, hi = moe // f.moe_ranks * f.moe_ranks, (moe // f.moe_ranks + 1) * f.moe_ranks
        if cfg.product == "A3":
            denom = f"ep_world_size - shared_expert_rank_num = {cfg.ep_world_size} - {cfg.shared_expert_rank_num} = {f.moe_ranks}"
        else:
            denom = f"ep_world_size = {cfg.ep_world_size}"
        fix = f"; nearest valid: {lo} or {hi}" if lo > 0 else f"; nearest valid: {hi}"
        cann = ("moeExpertNum should be divisible by (epWorldSize - sharedExpertRankNum)" if cfg.product == "A3"
                else "moeExpertNum is invalid.")  # A2: DV2A22[M] L285-295, R85 L1145-1147
        yield finding(DIVISIBLE, "moe_expert_num", f"`moe_expert_num` = {moe} is not divisible by {denom}{fix}; "
                      f"CANN: \"{cann}\"")


def local_limit(cfg, f):
    if cfg.product != "A3" or f.local_moe is None or cfg.moe_expert_num <= 0:
        return
    total = f.local_moe * cfg.ep_world_size
    if f.local_moe == 0:
        yield finding(LOCAL_MAX, "moe_expert_num", f"`moe_expert_num` = {cfg.moe_expert_num} is fewer than the "
                      f"{f.moe_ranks} MoE ranks: a rank would hold 0 experts")
    elif total > f.limits.local_x_ep_max:
        yield finding(LOCAL_MAX, "moe_expert_num", f"local_expert_num * ep_world_size = {f.local_moe} * "
                      f"{cfg.ep_world_size} = {total} exceeds {f.limits.local_x_ep_max}; CANN: \"localMoeExpertNum * "
                      "epWorldSize must be less than or equal to 2048\"")


def a2_per_rank(cfg, f):
    cap = getattr(f.limits, "moe_per_rank_max_flat", None)
    if cfg.product != "A2" or cap is None or f.layered or f.local_moe is None:
        return
    if f.local_moe > cap:
        yield finding(A2_PER_RANK, "moe_expert_num", f"{f.local_moe} experts per rank (moe_expert_num / ep_world_size "
                      f"= {cfg.moe_expert_num} / {cfg.ep_world_size}) exceeds {cap} with fullmesh ({where(cfg, f)}); "
                      "use comm_alg hierarchy, more ranks, or CANN 9.0+ (limit removed)")


def shared_experts(cfg, f):
    if cfg.product != "A3":
        if cfg.shared_expert_rank_num > 0:
            yield finding(A2_SHARED, "shared_expert_rank_num", f"`shared_expert_rank_num` = {cfg.shared_expert_rank_num}: "
                          "A2 does not support shared-expert ranks; CANN ignores it and spreads moe_expert_num over all "
                          f"{cfg.ep_world_size} ranks")
        return
    num, ranks = cfg.shared_expert_num, cfg.shared_expert_rank_num
    if not f.layered:
        if not 0 <= num <= f.limits.shared_num_max:
            yield finding(SHARED_NUM, "shared_expert_num", f"`shared_expert_num` = {num} is outside [0, {f.limits.shared_num_max}]")
        if not 0 <= ranks < cfg.ep_world_size:
            yield finding(SHARED_RANKS, "shared_expert_rank_num", f"`shared_expert_rank_num` = {ranks} is outside "
                          f"[0, {cfg.ep_world_size}) (ep_world_size)")
    norm = f.shared_num
    if norm == 0 and ranks > 0:
        yield finding(SHARED_PAIR, "shared_expert_rank_num", f"`shared_expert_rank_num` = {ranks} but shared_expert_num "
                      "is 0; set shared_expert_num or use 0 shared ranks")
    elif norm > 0 and ranks == 0:
        yield finding(SHARED_PAIR, "shared_expert_num", f"`shared_expert_num` = {num} needs shared_expert_rank_num > 0 "
                      "(only the default pair (1, 0) means \"no shared experts\")")
    elif norm > 0 and ranks > 0 and ranks % norm:
        yield finding(SHARED_DIV, "shared_expert_rank_num", f"`shared_expert_rank_num` = {ranks} is not divisible by "
                      f"shared_expert_num = {norm}")


def special_experts(cfg, f):
    names = ["zero_expert_num", "copy_expert_num", "const_expert_num"]
    for name in names:
        v = getattr(cfg, name)
        if v < 0:
            yield finding(SPECIAL_NEG, name, f"`{name}` = {v} must be >= 0")
    if cfg.product == "A2":
        if cfg.const_expert_num != 0:
            yield finding(A2_CONST, "const_expert_num", f"`const_expert_num` = {cfg.const_expert_num}: A2 supports no "
                          "const experts; CANN: \"constExpertNum is invalid. Must be 0.\"")
        names = names[:2]
    total = cfg.moe_expert_num + sum(getattr(cfg, n) for n in names)
    if total > INT32_MAX:
        terms = " + ".join(["moe_expert_num"] + names)
        yield finding(SPECIAL_SUM, "moe_expert_num", f"{terms} = {total} exceeds INT32_MAX ({INT32_MAX}): expert IDs "
                      "would overflow")


CHECKS = (divisibility, local_limit, a2_per_rank, shared_experts, special_experts)
