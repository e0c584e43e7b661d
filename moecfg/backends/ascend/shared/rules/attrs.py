"""Attribute ranges (MC1xx) of dispatch v2 / combine v2, per product and rule set.

What the host tiling of `MoeDistributeDispatchV2` / `MoeDistributeCombineV2` rejects before any data
moves: EP size (A3 [2, 768], `hierarchy` <= 256 and a multiple of 16; A2 multiples of 8 up to 384, any
ep <= 8 since CANN 9.0, 256 in 8.5, 64 for `hierarchy`), rank id, batch size (A3 <= 512, A2 <= 256, A2
`hierarchy` <= 512 since 9.0), hidden size (A3 [1024, 8192]; `hierarchy` (0, 7168] and % 32, no 1024 floor; A2 % 32 and
<= 7168 flat before 9.1, 10240 after, 5120 for INT32 x), top-k (<= 16 and <= all experts), expert count,
quant mode (0 or 2; 1 "static quant" is refused), expert_token_nums_type, shard type, communicator
names, TP (8.5-9.1: tp in [0, 2], tp = 2 needs one expert per rank; latest: TP removed, tp >= 2
rejected, combine v2 still wants tp >= 0 and tp_rank_id 0), combine's comm_quant_mode, and x dtype.
"""
from __future__ import annotations

from moecfg.core.diagnostics import WARNING
from moecfg.core.registry import lazy_module, rule
from moecfg.backends.ascend.shared.rules import finding, outside, where

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.ascend.shared.rules.examples_base")
_F = "ascend-attrs"
EP_RANGE = rule("MC101", "ep-world-size-range", "error", "ep_world_size within the product's range and alignment", family=_F,
                source="DV2T[M] L668-689; DV2A22[M] L258-274; R85 DV2T L511-513, L1136-1142",
                docs=lambda: dict(
                    why=eg.TILING, cann_error="epWorldSize is invalid",
                    fail_example=eg.ex(eg.A3, ep_world_size=1024, moe_expert_num=1024, bs=8),
                    pass_example=eg.ex(eg.A3),
                    fix="Use an EP size the product supports (A3: 2-768; hierarchy: multiple of 16 up to 256)."))
RANK = rule("MC102", "ep-rank-id-range", "error", "ep_rank_id in [0, ep_world_size)", family=_F, source="DV2T[M] L690-693",
            docs=lambda: dict(
                why=eg.TILING, cann_error="epRankId is invalid", fail_example=eg.ex(eg.A3, ep_rank_id=32),
                pass_example=eg.ex(eg.A3, ep_rank_id=31), fix="ep_rank_id counts from 0 to ep_world_size - 1."))
BS = rule("MC103", "bs-range", "error", "bs (tokens per rank) within [1, max]", family=_F,
          source="DV2T[M] L978-987; DV2A22[M] L482-487",
          docs=lambda: dict(
              why=eg.TILING, cann_error="xDim0(BS) is invalid",
              fail_example=eg.ex(eg.A3, bs=1024, env={"HCCL_BUFFSIZE": 8192}), pass_example=eg.ex(eg.A3),
              fix="Lower the tokens per rank (micro-batch) to the product's limit."))
H = rule("MC104", "hidden-size-range", "error", "h within the product's range and alignment", family=_F,
         source="DV2T[M] L1066-1074; DV2A22[M] L474-481",
         docs=lambda: dict(
             why=eg.TILING, cann_error="hiddensize is invalid.", fail_example=eg.ex(eg.A3, h=512),
             pass_example=eg.ex(eg.A3), fix="Check h against the product's range (A3: 1024-8192)."))
K = rule("MC105", "top-k-range", "error", "k in (0, min(16, all experts)]", family=_F, source="DV2T[M] L1097-1103; DV2A22[M] L498-504",
         docs=lambda: dict(
             why=eg.TILING, cann_error="K is invalid", fail_example=eg.ex(eg.A3, k=17), pass_example=eg.ex(eg.A3),
             fix="top-k is at most 16 and at most the number of experts."))
MOE = rule("MC106", "moe-expert-num-range", "error", "moe_expert_num within (0, max]", family=_F,
           source="DV2T[M] L811-813; DV2A22[M] L285-295",
           docs=lambda: dict(
               why=eg.TILING, cann_error="moeExpertNum is invalid",
               fail_example=eg.ex(eg.A3, moe_expert_num=2048, env={"HCCL_BUFFSIZE": 8192}), pass_example=eg.ex(eg.A3),
               fix="moe_expert_num counts the routed experts (> 0, at most the product's maximum)."))
QUANT = rule("MC107", "quant-mode", "error", "quant_mode is 0 or 2 (1, static quant, is refused)", family=_F,
             source="DV2A22[M] L783-822; DV2A22[M] L307-318",
             docs=lambda: dict(
                 why=eg.TILING, cann_error="cannot support static quant now.",
                 fail_example=eg.ex(eg.A3, quant_mode=1), pass_example=eg.ex(eg.A3, quant_mode=2),
                 fix="Use quant_mode 2 (dynamic int8) or 0."))
TOKEN_TYPE = rule("MC108", "expert-token-nums-type", "error", "expert_token_nums_type is 0 or 1", family=_F, source="DV2T[M] L728-731",
                  docs=lambda: dict(
                      why=eg.TILING, fail_example=eg.ex(eg.A3, expert_token_nums_type=2),
                      pass_example=eg.ex(eg.A3, expert_token_nums_type=0), fix="0 = prefix sums, 1 = counts."))
SHARD = rule("MC109", "expert-shard-type", "error", "expert_shard_type is 0 (A3)", family=_F, source="DV2T[M] L720-723",
             docs=lambda: dict(
                 why=eg.TILING, fail_example=eg.ex(eg.A3, expert_shard_type=1), pass_example=eg.ex(eg.A3),
                 fix="Only 0 (shared-expert ranks first) is implemented."))
GROUP = rule("MC110", "group-name", "error", "communicator names: length in [1, 128); group_tp distinct from group_ep with TP", family=_F,
             source="DV2T[M] L608-666; R85 L520-527",
             docs=lambda: dict(
                 why=eg.TILING, fail_example=eg.ex(eg.A3, group_ep="g" * 130),
                 pass_example=eg.ex(eg.A3, group_ep="ep_group"),
                 fix="Communicator names are 1-127 characters; TP and EP groups differ."))
TP = rule("MC111", "tp-world-size", "error", "TP group: [0, 2] with its rank rules (8.5-9.1); latest A3: tp in [0, 1], tp_rank_id 0", family=_F,
          source="CV2T[M] L288-302; DV2T[M] L695-699; R85 DV2T L514-531; DV2A22[M] L296-301",
          docs=lambda: dict(
              why=eg.TILING, cann_error="tpWorldSize is invalid, only support [0, 2]",
              fail_example=eg.ex(eg.A3, tp_world_size=4, moe_expert_num=32), pass_example=eg.ex(eg.A3),
              fix="TP group size 0, 1 or 2 (8.5-9.1); the latest rules removed TP."))
COMM_QUANT = rule("MC112", "comm-quant-mode", "error", "combine comm_quant_mode: A3 {0, 2}; A2 0 flat, {0, 2} hierarchy", family=_F,
                  source="CV2T[M] L336-349; CV2A22[M] L285-293",
                  docs=lambda: dict(
                      why=eg.TILING, cann_error="commQuantMode is invalid.",
                      fail_example=eg.ex(eg.A3, comm_quant_mode=1), pass_example=eg.ex(eg.A3, comm_quant_mode=2),
                      fix="comm_quant_mode 0 or 2 (A2 flat: 0)."))
X_DTYPE = rule("MC113", "x-dtype", "error", "x dtype: bf16/fp16; INT32 only on A2 (latest) with 1-D scales, quant 0, flat, H <= 5120", family=_F,
               source="DV2A22[M] L449-470, L319-326",
               docs=lambda: dict(
                   why=eg.TILING, fail_example=eg.ex(eg.A3, x_dtype="int32"), pass_example=eg.ex(eg.A3),
                   fix="Use bf16 or fp16 for x."))
TP_LOCAL = rule("MC114", "tp-local-experts", "error", "with tp_world_size = 2 a rank holds one expert and elastic_info is refused (8.5-9.1)", family=_F,
                source="R85 DV2T L674-678",
                docs=lambda: dict(
                    why=eg.TILING, cann_error="Cannot support multi-moeExpert in a rank when tpWorldSize > 1",
                    fail_example=eg.ex(eg.A3, tp_world_size=2, group_tp="tp_group", hccl_buffer_size={"ep": 1024, "tp": 2048}),
                    pass_example=eg.ex(eg.A3, moe_expert_num=32, tp_world_size=2, group_tp="tp_group"),
                    fix="With tp_world_size = 2 put one expert on each rank (moe_expert_num = ep_world_size)."))


def ep_range(cfg, f):
    ep, lim = cfg.ep_world_size, f.limits
    if cfg.product == "A3":
        hier = f.layered and lim.hierarchy
        hi = lim.hierarchy.ep_max if hier else lim.ep_max
        if not lim.ep_min <= ep <= hi:
            yield finding(EP_RANGE, "ep_world_size", outside("ep_world_size", ep, lim.ep_min, hi, cfg, f,
                          ", comm_alg hierarchy" if hier else "") + "; CANN: \"epWorldSize is invalid\"")
        elif hier and ep % lim.hierarchy.ep_multiple:
            yield finding(EP_RANGE, "ep_world_size", f"`ep_world_size` = {ep} must be a multiple of "
                          f"{lim.hierarchy.ep_multiple} with comm_alg hierarchy ({where(cfg, f)}); "
                          "CANN: \"epWorldSize should be 16 Aligned\"")
        return
    hi = lim.ep_max_hier if f.layered else lim.ep_max_flat
    small_ok = lim.ep_any_upto and 0 < ep <= lim.ep_any_upto
    if ep <= 0 or ep > hi:
        yield finding(EP_RANGE, "ep_world_size", outside("ep_world_size", ep, 1 if lim.ep_any_upto else lim.ep_multiple, hi, cfg, f,
                      f", {f.alg or 'comm_alg'}") + "; CANN: \"epWorldSize is invalid.\"")
    elif not small_ok and ep % lim.ep_multiple:
        allowed = f"any value <= {lim.ep_any_upto} or a multiple of {lim.ep_multiple}" if lim.ep_any_upto \
            else f"a multiple of {lim.ep_multiple}"
        yield finding(EP_RANGE, "ep_world_size", f"`ep_world_size` = {ep} must be {allowed} ({where(cfg, f)})")


def rank_range(cfg, f):
    r = cfg.ep_rank_id
    if r is not None and not 0 <= r < cfg.ep_world_size:
        yield finding(RANK, "ep_rank_id", f"`ep_rank_id` = {r} is outside [0, {cfg.ep_world_size}) "
                      "(must be below ep_world_size); CANN: \"epRankId is invalid\"")


def bs_range(cfg, f):
    lim = f.limits
    if cfg.product == "A3":
        hi = lim.hierarchy.bs_max if (f.layered and lim.hierarchy) else lim.bs_max
    else:
        hi = lim.bs_max_hier if f.layered else lim.bs_max_flat
    if not 1 <= cfg.bs <= hi:
        extra = f", comm_alg {f.alg}" if f.layered else ""
        yield finding(BS, "bs", outside("bs", cfg.bs, 1, hi, cfg, f, extra) + "; CANN: \"xDim0(BS) is invalid\"")


def hidden_range(cfg, f):
    h, lim = cfg.h, f.limits
    if cfg.product == "A3":
        hier = lim.hierarchy if f.layered else None
        lo, hi = (hier.h_min, hier.h_max) if hier else (lim.h_min, lim.h_max)
        if not lo <= h <= hi:
            yield finding(H, "h", outside("h", h, lo, hi, cfg, f, ", comm_alg hierarchy" if hier else ""))
        elif hier and h % hier.h_multiple:
            yield finding(H, "h", f"`h` = {h} must be a multiple of {hier.h_multiple} with comm_alg hierarchy ({where(cfg, f)})")
        return
    if cfg.x_dtype == "int32" and lim.h_max_int32:
        hi, what = lim.h_max_int32, "INT32 x"
    elif f.layered:
        hi, what = lim.h_max_hier, "hierarchy"
    else:
        hi, what = lim.h_max_flat, "fullmesh"
    if h <= 0 or h > hi:
        yield finding(H, "h", outside("h", h, 1, hi, cfg, f, f", {what}") + "; CANN: \"hiddensize is invalid.\"")
    elif h % lim.h_multiple:
        yield finding(H, "h", f"`h` = {h} must be a multiple of {lim.h_multiple} on A2 ({where(cfg, f)})")


def topk_range(cfg, f):
    lim = f.limits
    experts = cfg.moe_expert_num + cfg.zero_expert_num + cfg.copy_expert_num
    names = "moe + zero + copy"
    if cfg.product == "A3":
        experts += cfg.const_expert_num
        names += " + const"
    if cfg.k <= 0 or cfg.k > lim.k_max:
        yield finding(K, "k", outside("k", cfg.k, 1, lim.k_max, cfg, f))
    elif cfg.k > experts:
        yield finding(K, "k", f"`k` = {cfg.k} exceeds the number of experts ({names} = {experts}); "
                      "a token cannot pick more distinct experts than exist")


def moe_range(cfg, f):
    lim, moe = f.limits, cfg.moe_expert_num
    if cfg.product == "A3":
        hi = lim.hierarchy.moe_max if (f.layered and lim.hierarchy) else lim.moe_max
    else:
        hi = lim.moe_max_hier if f.layered else lim.moe_max_flat
    if not 0 < moe <= hi:
        extra = f", comm_alg {f.alg}" if f.layered else ""
        yield finding(MOE, "moe_expert_num", outside("moe_expert_num", moe, 1, hi, cfg, f, extra)
                      + "; CANN: \"moeExpertNum is invalid\"")


def quant(cfg, f):
    q = cfg.quant_mode
    if q == 1:
        yield finding(QUANT, "quant_mode", "`quant_mode` = 1 (static quant) is not supported; use 0 (none) or 2 "
                      "(dynamic int8); CANN: \"cannot support static quant now.\"")
    elif q not in (0, 2):
        yield finding(QUANT, "quant_mode", f"`quant_mode` = {q} is not 0 (none) or 2 (dynamic int8) ({where(cfg, f)})")


def token_type(cfg, f):
    if cfg.expert_token_nums_type not in (0, 1):
        yield finding(TOKEN_TYPE, "expert_token_nums_type", f"`expert_token_nums_type` = {cfg.expert_token_nums_type}"
                      " must be 0 (prefix sums) or 1 (counts)")


def shard_type(cfg, f):
    if cfg.product == "A3" and cfg.expert_shard_type != 0:
        yield finding(SHARD, "expert_shard_type", f"`expert_shard_type` = {cfg.expert_shard_type}: only 0 "
                      "(shared-expert ranks first) is supported")


def groups(cfg, f):
    for name in ("group_ep", "group_tp"):
        g = getattr(cfg, name)
        if g is None:
            continue
        if len(g) >= 128 or (name == "group_ep" and len(g) == 0):
            yield finding(GROUP, name, f"`{name}` has length {len(g)}; communicator names must have length in [1, 128)")
    if cfg.product == "A3" and f.limits.legacy_tp and cfg.tp_world_size > 1:
        if cfg.group_tp == "":
            yield finding(GROUP, "group_tp", f"`group_tp` is empty but tp_world_size = {cfg.tp_world_size} needs a TP "
                          f"communicator ({where(cfg, f)})")
        elif cfg.group_tp is not None and cfg.group_tp == cfg.group_ep:
            yield finding(GROUP, "group_tp", "`group_tp` equals `group_ep`; the torch_npu docs require distinct "
                          "EP and TP communicators on A3", WARNING)


def tp_rules(cfg, f):
    tp, lim = cfg.tp_world_size, f.limits
    if cfg.product == "A2":
        if lim.tp_max is not None and tp > lim.tp_max:
            yield finding(TP, "tp_world_size", f"`tp_world_size` = {tp}: TP was removed, tp_world_size >= 2 is "
                          f"rejected ({where(cfg, f)}); set 0 or 1")
        elif tp > 1:
            yield finding(TP, "tp_world_size", f"`tp_world_size` = {tp}: A2 has no TP domain; CANN {f.ruleset.name} "
                          "ignores it (forced to 0)", WARNING)
        return
    if not lim.legacy_tp:
        yield from _no_tp(cfg, f, tp)
        return
    if not 0 <= tp <= lim.tp_max:
        yield finding(TP, "tp_world_size", outside("tp_world_size", tp, 0, lim.tp_max, cfg, f)
                      + "; CANN: \"tpWorldSize is invalid, only support [0, 2]\"")
    elif tp > 1 and not 0 <= cfg.tp_rank_id < tp:
        yield finding(TP, "tp_rank_id", f"`tp_rank_id` = {cfg.tp_rank_id} is outside [0, {tp})")
    elif tp <= 1 and cfg.tp_rank_id != 0:
        yield finding(TP, "tp_rank_id", f"`tp_rank_id` = {cfg.tp_rank_id} must be 0 without TP (tp_world_size = {tp}); "
                      "CANN: \"NoTp mode only support 0\"")


def _no_tp(cfg, f, tp):
    # [M] CV2T L288-302: combine v2 kept the range [0, MAX_TP_WORLD_SIZE = 1] and "tpRankId should be 0 in
    # NoTp mode" after TP removal (7feca19); dispatch alone (DV2T[M] L695-699) would only reject tp >= 2
    if tp >= 2:
        yield finding(TP, "tp_world_size", f"`tp_world_size` = {tp}: TP was removed upstream (2026-06-25), "
                      f"tp_world_size >= 2 is rejected ({where(cfg, f)}); set 0 or 1, or pin cann_version 9.1 or older")
    elif tp < 0:
        yield finding(TP, "tp_world_size", outside("tp_world_size", tp, 0, f.limits.tp_max, cfg, f)
                      + " (combine v2 checks the range); set 0 or 1; CANN: \"Parameter tpWorldSize of operator %s "
                      "has incorrect value %s. It should be in supported range.\"")
    elif cfg.tp_rank_id != 0:
        yield finding(TP, "tp_rank_id", f"`tp_rank_id` = {cfg.tp_rank_id} must be 0: without TP combine v2 accepts "
                      f"only tp_rank_id 0 ({where(cfg, f)}); set tp_rank_id: 0; CANN: \"Parameter tpRankId of "
                      "operator %s has incorrect value %s. It should be should be 0 in NoTp mode.\"")


def tp_local(cfg, f):
    if cfg.product != "A3" or not f.limits.legacy_tp or cfg.tp_world_size <= 1:
        return
    if f.local_moe is not None and f.local_moe > 1:
        yield finding(TP_LOCAL, "tp_world_size", f"`tp_world_size` = {cfg.tp_world_size} needs one expert per rank, "
                      f"but each rank holds {f.local_moe} (moe_expert_num / (ep_world_size - shared_expert_rank_num)); "
                      "CANN: \"Cannot support multi-moeExpert in a rank when tpWorldSize > 1\"")
    if cfg.elastic_info:
        yield finding(TP_LOCAL, "elastic_info", f"elastic_info is not supported with tp_world_size = {cfg.tp_world_size}")


def comm_quant(cfg, f):
    cqm = cfg.comm_quant_mode
    if cfg.product == "A3":
        allowed = f.limits.combine_comm_quant_modes
        if cqm not in allowed:
            yield finding(COMM_QUANT, "comm_quant_mode", f"`comm_quant_mode` = {cqm} is not in {set(allowed)} "
                          "(0 none, 2 int8 communication quantisation) for combine v2")
        elif f.limits.comm_quant_zero_with_tp and cfg.tp_world_size > 1 and cqm != 0:
            yield finding(COMM_QUANT, "comm_quant_mode", f"`comm_quant_mode` = {cqm} must be 0 with tp_world_size = "
                          f"{cfg.tp_world_size} ({where(cfg, f)})")
        return
    allowed = f.limits.combine_comm_quant_hier if f.layered else f.limits.combine_comm_quant_flat
    if cqm not in allowed:
        yield finding(COMM_QUANT, "comm_quant_mode", f"`comm_quant_mode` = {cqm} is not allowed with A2 "
                      f"{f.alg or 'comm_alg'} (allowed {sorted(allowed)}); CANN: \"commQuantMode is invalid.\"")


def x_dtype(cfg, f):
    if cfg.x_dtype != "int32":
        return
    if cfg.product == "A3" or f.limits.h_max_int32 is None:
        yield finding(X_DTYPE, "x_dtype", f"`x_dtype` = int32 is not supported ({where(cfg, f)}); x must be bf16 or fp16"
                      + ("; INT32 x exists only on A2 with the latest rules" if cfg.product == "A2" else ""))
        return
    needs = []
    if not cfg.scales:
        needs.append("scales: true (1-D (BS,) float)")
    if cfg.quant_mode != 0:
        needs.append("quant_mode: 0")
    if f.layered:
        needs.append("a flat algorithm (not hierarchy)")
    if needs:
        yield finding(X_DTYPE, "x_dtype", "INT32 x on A2 needs " + ", ".join(needs))


CHECKS = (ep_range, rank_range, bs_range, hidden_range, topk_range, moe_range, quant, token_type, shard_type,
          groups, tp_rules, tp_local, comm_quant, x_dtype)
