"""Rank counts (MC602-MC605): how many GPUs DeepEP can run on.

Every mode needs `num_ranks < 8` or a multiple of 8 (B5: 8 GPUs per NVLink node; `NUM_MAX_NVL_PEERS` is
fixed). Normal mode allows at most 20 nodes = 160 ranks (B4, N11); low-latency mode has no rank limit.
Normal mode without both `dispatch_config` and `combine_config` takes DeepEP's default table, which has
entries for 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 144 and 160 ranks only ("Unsupported number of EP
ranks"; tables before September 2025 lack 48 and 96, vLLM's list still does). With explicit configs the
normal-mode kernels still exist only for 2, 4 or 8 ranks in one node and for 2, 3, 4, 6, 8, 12, 16, 18
or 20 nodes (`SWITCH_RANKS` / `SWITCH_RDMA_RANKS`).
"""
from __future__ import annotations

from moecfg.core.registry import lazy_module, rule
from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.backends.deepep.shared.rules import AT, finding

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.deepep.ops.v1.rules.examples_base")
_F = "deepep-topology"
RANK_LAYOUT = rule("MC602", "deepep-rank-layout", "error", "num_ranks < 8 or a multiple of 8 (all modes)", family=_F,
                   source=AT + "csrc/legacy/buffer.hpp:114 (B5)",
                   docs=lambda: dict(
                       why=eg.host("csrc/legacy/buffer.hpp:114", " (`num_ranks < NUM_MAX_NVL_PEERS or num_ranks % NUM_MAX_NVL_PEERS "
                           "== 0`): DeepEP assumes full nodes of 8 GPUs in every mode"),
                       fail_example=eg.ex(eg.INTER, num_ranks=12, num_experts=240), pass_example=eg.ex(eg.INTER),
                       fix="Use fewer than 8 ranks (one node) or whole nodes of 8 GPUs."))
NORMAL_MAX_RANKS = rule("MC603", "deepep-normal-max-ranks", "error", "normal mode: at most 160 ranks (20 nodes of 8)",
                        family=_F, source=AT + "csrc/legacy/buffer.hpp:113,902 (B4, N11)",
                        docs=lambda: dict(
                            why=eg.host("csrc/legacy/buffer.hpp:113", " (normal mode allows at most NUM_MAX_RDMA_PEERS = 20 nodes)"),
                            fail_example=eg.ex(eg.INTER, num_ranks=192, num_experts=384),
                            pass_example=eg.ex(eg.LL, num_ranks=192, num_experts=384),
                            fix="At most 160 ranks in normal mode, or mode: low_latency (no rank limit)."))
DEFAULT_TABLE = rule("MC604", "deepep-default-config-missing", "error", "normal mode without configs: num_ranks must be in DeepEP's default config table",
                     family=_F, source=AT + "deep_ep/buffers/legacy.py get_dispatch_config/get_combine_config",
                     docs=lambda: dict(
                         why="Without explicit configs DeepEP picks the chunk sizes from its table in deep_ep/buffers/legacy.py "
                             "(get_dispatch_config / get_combine_config), which raises at the first dispatch.",
                         cann_error="AssertionError: Unsupported number of EP ranks: 6",
                         fail_example=eg.ex(eg.INTRA, num_ranks=6, num_experts=48), pass_example=eg.ex(eg.INTRA),
                         fix="Use a rank count of the table (2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 144, 160), or pass both "
                             "dispatch_config and combine_config."))
KERNELS = rule("MC605", "deepep-kernel-rank-count", "error", "normal mode: kernels are compiled for 2/4/8 ranks or 2-20 listed node counts",
               family=_F, source=AT + "csrc/kernels/legacy/launch.cuh SWITCH_RANKS, SWITCH_RDMA_RANKS",
               docs=lambda: dict(
                   why="The normal-mode kernels are template-instantiated only for 2, 4, 8 ranks in a node "
                       "(SWITCH_RANKS) and 2-20 listed node counts (SWITCH_RDMA_RANKS); any other count fails at launch "
                       "even with hand-written configs.", cann_error="Unsupported ranks",
                   fail_example=eg.ex(eg.INTRA, num_ranks=6, num_experts=48, dispatch_config=[6, 256, 6, 128],
                                   combine_config=[4, 256, 6, 128]),
                   pass_example=eg.ex(eg.INTRA, dispatch_config=[6, 256, 6, 128], combine_config=[4, 256, 6, 128]),
                   fix="Use 2, 4 or 8 ranks in a node, or 16, 24, 32, 48, 64, 96, 128, 144 or 160 ranks."))


def _nearest(value: int, allowed) -> str:
    lower = [a for a in allowed if a < value]
    higher = [a for a in allowed if a > value]
    picks = ([str(max(lower))] if lower else []) + ([str(min(higher))] if higher else [])
    return " or ".join(picks)


def rank_counts(d, f):
    r = d.num_ranks
    if not (r < fx.NUM_MAX_NVL_PEERS or r % fx.NUM_MAX_NVL_PEERS == 0):
        yield finding(RANK_LAYOUT, "num_ranks", f"`num_ranks` = {r} must be < 8 or a multiple of 8 (8 GPUs per NVLink "
                      f"node); nearest valid: {r // 8 * 8} or {(r // 8 + 1) * 8}; DeepEP: \"num_ranks < NUM_MAX_NVL_PEERS "
                      "or num_ranks % NUM_MAX_NVL_PEERS == 0\"")
        return
    if d.low_latency:
        return
    limit = fx.NORMAL_MODE_MAX_NUM_RANKS.value
    if r > limit:
        yield finding(NORMAL_MAX_RANKS, "num_ranks", f"`num_ranks` = {r} exceeds {limit} (20 nodes x 8 GPUs) in normal "
                      "mode; use mode: low_latency or at most 160 ranks")
        return
    yield from _table_and_kernels(d, r)


def _table_and_kernels(d, r):
    table = fx.DEFAULT_CONFIG_NUM_RANKS
    missing = [n for n in ("dispatch_config", "combine_config") if getattr(d, n) is None]
    if missing and r not in table:
        yield finding(DEFAULT_TABLE, "num_ranks", f"`num_ranks` = {r} has no entry in DeepEP's default config table "
                      f"({', '.join(map(str, table))}); DeepEP: \"Unsupported number of EP ranks: {r}\"; use "
                      f"{_nearest(r, table)} ranks, or give {' and '.join(missing)}")
        return
    intranode, internode = fx.INTRANODE_KERNEL_NUM_RANKS.value, fx.INTERNODE_KERNEL_NUM_RANKS.value
    compiled = intranode + internode
    if r not in compiled:
        what = "Unsupported ranks" if r <= fx.NUM_MAX_NVL_PEERS else "Unsupported RDMA ranks"
        yield finding(KERNELS, "num_ranks", f"`num_ranks` = {r}: DeepEP's normal-mode kernels are compiled for "
                      f"{', '.join(map(str, compiled))} ranks only (DeepEP: \"{what}\"); use {_nearest(r, compiled)}")


CHECKS = (rank_counts,)
