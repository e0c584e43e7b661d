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
from moecfg.core.registry import lazy_module, rule
from moecfg.backends.ascend.formulas import INT32_MAX
from moecfg.backends.ascend.rules import finding, where

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.ascend.rules.examples_base")
_F = "ascend-experts"
DIVISIBLE = rule("MC201", "moe-expert-divisibility", "error", "moe_expert_num divisible by the MoE ranks", family=_F,
                 source="DV2T[M] L961-968; DV2A22[M] L285-295",
                 docs=lambda: dict(
                     why=eg.TILING,
                     cann_error="moeExpertNum should be divisible by (epWorldSize - sharedExpertRankNum)",
                     fail_example=eg.ex(eg.A3, moe_expert_num=250), pass_example=eg.ex(eg.A3),
                     fix="Pad moe_expert_num to the nearest multiple the message names."))
LOCAL_MAX = rule("MC202", "local-expert-limit", "error", "A3: local_expert_num * ep_world_size <= 2048 and > 0", family=_F,
                 source="DV2T[M] L969-976",
                 docs=lambda: dict(
                     why=eg.TILING, cann_error="localMoeExpertNum * epWorldSize must be less than or equal to 2048",
                     fail_example=eg.ex(eg.A3, bs=16, ep_world_size=16, moe_expert_num=1024, shared_expert_num=4,
                                     shared_expert_rank_num=12, env={"HCCL_BUFFSIZE": 4096}),
                     pass_example=eg.ex(eg.A3),
                     fix="Every MoE rank needs at least one expert and local_expert_num * ep_world_size <= 2048."))
A2_PER_RANK = rule("MC203", "a2-experts-per-rank", "error", "A2, CANN 8.5, fullmesh: at most 24 experts per rank", family=_F,
                   source="R85 DV2T L1148-1150 (e416eec)",
                   docs=lambda: dict(
                       why=eg.TILING, fail_example=eg.ex(eg.A2, cann_version="8.5", moe_expert_num=512),
                       pass_example=eg.ex(eg.A2, cann_version="8.5", moe_expert_num=384),
                       fix="Use comm_alg hierarchy, more ranks, or CANN 9.0+."))
SHARED_NUM = rule("MC204", "shared-expert-num-range", "error", "A3: shared_expert_num in [0, 4]", family=_F, source="DV2T[M] L802-804",
                  docs=lambda: dict(
                      why=eg.TILING,
                      fail_example=eg.ex(eg.A3, shared_expert_num=5, shared_expert_rank_num=5, moe_expert_num=216, ep_world_size=32),
                      pass_example=eg.ex(eg.A3, shared_expert_num=2, shared_expert_rank_num=4, moe_expert_num=224),
                      fix="At most 4 shared experts."))
SHARED_RANKS = rule("MC205", "shared-expert-rank-num-range", "error", "A3: shared_expert_rank_num in [0, ep_world_size)", family=_F,
                    source="DV2T[M] L805-809",
                    docs=lambda: dict(
                        why=eg.TILING, fail_example=eg.ex(eg.A3, shared_expert_rank_num=32),
                        pass_example=eg.ex(eg.A3, shared_expert_rank_num=4, moe_expert_num=224),
                        fix="Shared-expert ranks are fewer than ep_world_size."))
SHARED_PAIR = rule("MC206", "shared-expert-pairing", "error", "A3: shared_expert_num and shared_expert_rank_num both zero or both non-zero", family=_F,
                   source="DV2T[M] L878-888",
                   docs=lambda: dict(
                       why=eg.TILING, fail_example=eg.ex(eg.A3, shared_expert_num=2),
                       pass_example=eg.ex(eg.A3, shared_expert_num=2, shared_expert_rank_num=4, moe_expert_num=224),
                       fix="Set both shared_expert_num and shared_expert_rank_num, or neither (torch_npu's default (1, 0) means none)."))
SHARED_DIV = rule("MC207", "shared-expert-divisibility", "error", "A3: shared_expert_rank_num divisible by shared_expert_num", family=_F,
                  source="DV2T[M] L889-898",
                  docs=lambda: dict(
                      why=eg.TILING,
                      fail_example=eg.ex(eg.A3, shared_expert_num=3, shared_expert_rank_num=4, moe_expert_num=224),
                      pass_example=eg.ex(eg.A3, shared_expert_num=2, shared_expert_rank_num=4, moe_expert_num=224),
                      fix="shared_expert_rank_num must be a multiple of shared_expert_num."))
SPECIAL_NEG = rule("MC208", "special-expert-negative", "error", "zero/copy/const_expert_num >= 0 (A3; A2's tiling "
                   "accepts negative zero/copy counts: a warning there)", family=_F,
                   source="DV2T[M] L777-785; A2: DV2A22[M] L337-370 and combine arch22 L225-313 check only that the "
                   "sum fits INT32",
                   docs=lambda: dict(
                       why=eg.TILING, fail_example=eg.ex(eg.A3, zero_expert_num=-1),
                       pass_example=eg.ex(eg.A3, zero_expert_num=1), fix="Special expert counts are >= 0."))
SPECIAL_SUM = rule("MC209", "special-expert-overflow", "error", "moe + zero + copy + const fits INT32", family=_F,
                   source="DV2T[M] L788-793; DV2A22[M] L359-369",
                   docs=lambda: dict(
                       why=eg.TILING, fail_example=eg.ex(eg.A3, zero_expert_num=2147483647),
                       pass_example=eg.ex(eg.A3, zero_expert_num=1),
                       fix="Expert IDs are INT32: keep the sum of all experts below 2^31."))
A2_CONST = rule("MC210", "a2-const-expert", "error", "A2: const_expert_num must be 0", family=_F, source="DV2A22[M] L341-348",
                docs=lambda: dict(
                    why=eg.TILING, cann_error="constExpertNum is invalid. Must be 0.",
                    fail_example=eg.ex(eg.A2, const_expert_num=1), pass_example=eg.ex(eg.A2),
                    fix="A2 has no const experts; remove const_expert_num."))
A2_SHARED = rule("MC211", "a2-shared-experts-ignored", WARNING, "A2 ignores shared-expert attributes", family=_F,
                 source="DV2A22[M]: not validated, forced to 0",
                 docs=lambda: dict(
                     why="CANN ignores the value on A2: experts are spread over all ranks, not the layout you described.",
                     fail_example=eg.ex(eg.A2, shared_expert_rank_num=2), pass_example=eg.ex(eg.A2),
                     fix="Remove the shared-expert attributes on A2."))


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
        if v < 0 and cfg.product == "A2" and name != "const_expert_num":  # A2: MC210 covers const
            yield finding(SPECIAL_NEG, name, f"`{name}` = {v} is negative: A2's tiling accepts it (it only checks "
                          "that moe + zero + copy fits INT32; A3's tiling refuses it), so the launch starts, but a "
                          "negative count of special experts means nothing; use 0 for none", WARNING)
        elif v < 0 and not (cfg.product == "A2" and name == "const_expert_num"):
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
