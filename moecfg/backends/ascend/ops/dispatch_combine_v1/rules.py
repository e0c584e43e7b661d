"""dispatch/combine v1 (MC82x): npu_moe_distribute_dispatch / npu_moe_distribute_combine, per product.

A3 (the same constants in every release): ep_world_size in {8, 16, 32, 64, 128, 144, 256, 288}; h exactly
7168; k in (0, 8] and <= moe_expert_num; bs in [1, 512]; moe_expert_num in (0, 512] and divisible by
ep_world_size - shared_expert_rank_num; shared_expert_num exactly 1 and, with shared-expert ranks,
ep_world_size divisible by shared_expert_rank_num; tp_world_size in [0, 2]; combine comm_quant_mode 0 or 2.
Its EP window is `ep * max_bs * H * 2 * 2 * local_expert_num` (an error when HCCL_BUFFSIZE or
hccl_buffer_size.ep is smaller) and, with tp_world_size = 2, the TP window `A * (2H + 128) * 2`.
A2: ep_world_size a multiple of 8 up to 256, moe_expert_num <= 512 and divisible by ep_world_size, at most
24 experts per rank unless layered, h a multiple of 32 up to 7168, bs <= 256, k <= 16. v1 has no comm_alg:
layered (hierarchy) runs only when HCCL_INTRA_PCIE_ENABLE=1 and HCCL_INTRA_ROCE_ENABLE=0; the latest
rules then warn when the buffer is below `(moe + ep/8*2) * max_bs * (2H + 16 * Align8(K)) + 6 MB`.
"""
from __future__ import annotations

from moecfg.core.diagnostics import WARNING
from moecfg.core.registry import lazy_module, rule
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.ops.dispatch_combine_v1 import formulas as v1x
from moecfg.backends.ascend.shared.rules import buffers, finding, outside, where
from moecfg.backends.ascend.shared.rules.buffers import Requirement
from moecfg.backends.ascend.shared.rules.comm_alg import RESOLVED
from moecfg.backends.ascend.shared.rules.experts import A2_SHARED

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.ascend.shared.rules.examples_base")
_F = "ascend-v1"
EP = rule("MC820", "v1-ep-world-size", "error", "v1 ep_world_size: A3 one of 8..288 listed, A2 a multiple of 8 up to 256", family=_F,
          source="R85 moe_distribute_dispatch_tiling.cpp L168-170, L248-254",
          docs=lambda: dict(
              why=eg.V1_TILING + " On A3 v1 runs only on the listed EP sizes; on A2 on multiples of 8 up to 256.",
              cann_error="epWorldSize should be in the list[8, 16, 32, 64, 128, 144, 256, 288]",
              fail_example=eg.ex(eg.V1, ep_world_size=24, moe_expert_num=240), pass_example=eg.ex(eg.V1),
              fix="Use a listed EP size, or op dispatch_combine_v2 (2-768 ranks on A3)."))
H = rule("MC821", "v1-hidden-size", "error", "v1 h: A3 exactly 7168, A2 a multiple of 32 up to 7168", family=_F,
         source="R85 dispatch v1 tiling L303; combine v1 L486",
         docs=lambda: dict(
             why=eg.V1_TILING, cann_error="xShape dims1(H) only supports 7168", fail_example=eg.ex(eg.V1, h=4096),
             pass_example=eg.ex(eg.V1),
             fix="v1 on A3 is built for DeepSeek-V3's h = 7168 only; use op dispatch_combine_v2 for other models."))
K = rule("MC822", "v1-top-k", "error", "v1 k: A3 (0, 8], A2 (0, 16], and <= moe_expert_num", family=_F, source="R85 dispatch v1 tiling",
         docs=lambda: dict(
             why=eg.V1_TILING + " v1 takes at most 8 experts per token on A3 (16 on A2), and no more than exist.",
             fail_example=eg.ex(eg.V1, k=9), pass_example=eg.ex(eg.V1),
             fix="k <= 8 on A3 (16 on A2), or op dispatch_combine_v2 (k <= 16)."))
SHARED = rule("MC823", "v1-shared-experts", "error", "v1 A3: shared_expert_num exactly 1; ep_world_size divisible by shared_expert_rank_num", family=_F,
              source="R85 dispatch v1 tiling L203-204, L232-234",
              docs=lambda: dict(
                  why=eg.V1_TILING, cann_error="sharedExpertNum only support 1",
                  fail_example=eg.ex(eg.V1, shared_expert_num=2), pass_example=eg.ex(eg.V1, shared_expert_num=1),
                  fix="shared_expert_num: 1 (torch_npu's default), with ep_world_size divisible by "
                      "shared_expert_rank_num."))
MOE = rule("MC824", "v1-moe-expert-num", "error", "v1 moe_expert_num in (0, 512], divisible by the MoE ranks; A2 fullmesh <= 24 per rank", family=_F,
           source="R85 dispatch v1 tiling; §5",
           docs=lambda: dict(
               why=eg.V1_TILING + " Every MoE rank holds the same number of experts, at most 512 in all.",
               fail_example=eg.ex(eg.V1, moe_expert_num=250), pass_example=eg.ex(eg.V1),
               fix="moe_expert_num a multiple of the MoE ranks (ep_world_size - shared_expert_rank_num), <= 512."))
BS = rule("MC825", "v1-bs", "error", "v1 bs: A3 [1, 512], A2 [1, 256]", family=_F, source="R85 dispatch v1 tiling",
          docs=lambda: dict(
              why=eg.V1_TILING + " v1 takes at most 512 tokens per rank on A3, 256 on A2.",
              fail_example=eg.ex(eg.V1, bs=513, env={"HCCL_BUFFSIZE": 4096}),
              pass_example=eg.ex(eg.V1, bs=512, env={"HCCL_BUFFSIZE": 4096}),
              fix="Lower the tokens per rank (micro-batch)."))
TP = rule("MC826", "v1-tp-world-size", "error", "v1 A3 tp_world_size in [0, 2] with tp_rank_id in [0, tp)", family=_F,
          source="R85 dispatch v1 tiling",
          docs=lambda: dict(
              why=eg.V1_TILING + " The TP group of v1 has 0, 1 or 2 ranks.",
              fail_example=eg.ex(eg.V1, tp_world_size=4),
              pass_example=eg.ex(eg.V1, tp_world_size=2, group_tp="tp_group"),
              fix="tp_world_size 0, 1 or 2, with tp_rank_id in [0, tp_world_size)."))
COMM_QUANT = rule("MC827", "v1-comm-quant-mode", "error", "v1 A3 combine comm_quant_mode 0 or 2", family=_F,
                  source="R85 moe_distribute_combine_tiling.cpp L440",
                  docs=lambda: dict(
                      why="The v1 combine tiling (moe_distribute_combine_tiling.cpp L440) rejects comm_quant_mode at the "
                          "first combine.", fail_example=eg.ex(eg.V1, comm_quant_mode=1),
                      pass_example=eg.ex(eg.V1, comm_quant_mode=2), fix="comm_quant_mode 0 (none) or 2 (int8)."))
EP_WINDOW = rule("MC828", "v1-ep-buffer", "error", "v1 EP window: A3 ep*max_bs*H*2*2*local (error); A2 layered advisory (latest)", family=_F,
                 source="R85 dispatch v1 tiling L479-497; [M] arch22 a2a3 L284-297", tags=("buffer",),
                 docs=lambda: dict(
                     why="A3: the v1 tiling compares the EP window ep * max_bs * h * 2 * 2 * local_expert_num with the "
                         "communicator's HCCL buffer and refuses to run. A2 (layered, latest rules): CANN only logs a warning "
                         "and the op runs with a window too small for large batches.",
                     cann_error="HCCL_BUFFSIZE is too SMALL", fail_example=eg.ex(eg.V1, env={"HCCL_BUFFSIZE": 256}),
                     pass_example=eg.ex(eg.V1),
                     fix="Set HCCL_BUFFSIZE (or hccl_buffer_size.ep) to at least the size the message names."))
TP_WINDOW = rule("MC829", "v1-tp-buffer", "error", "v1 A3 with tp_world_size = 2: TP window A*(2H+128)*2", family=_F,
                 source="R85 dispatch v1 tiling L501-512", tags=("buffer",),
                 docs=lambda: dict(
                     why="With tp_world_size = 2 the v1 tiling also checks the TP communicator's buffer against "
                         "A * (2h + 128) * 2 (L501-512) and refuses to run when it is smaller.",
                     fail_example=eg.ex(eg.V1, tp_world_size=2, group_tp="tp_group", hccl_buffer_size={"ep": 512, "tp": 1}),
                     pass_example=eg.ex(eg.V1, tp_world_size=2, group_tp="tp_group"),
                     fix="Give the TP communicator (hccl_buffer_size.tp, else HCCL_BUFFSIZE) the size the message names."))


def ep_world_size(cfg, f):
    ep, lim = cfg.ep_world_size, f.limits
    if cfg.product == "A3":
        if ep not in lim.ep_values:
            yield finding(EP, "ep_world_size", f"`ep_world_size` = {ep} is not one of {list(lim.ep_values)} (v1, "
                          f"{where(cfg, f)}); CANN: \"epWorldSize should be in the list[8, 16, 32, 64, 128, 144, 256, 288]\"")
    elif not 0 < ep <= lim.ep_max or ep % lim.ep_multiple:
        yield finding(EP, "ep_world_size", f"`ep_world_size` = {ep} must be a multiple of {lim.ep_multiple} in "
                      f"[{lim.ep_multiple}, {lim.ep_max}] (v1, {where(cfg, f)}); CANN: \"epWorldSize is invalid.\"")


def hidden(cfg, f):
    h, lim = cfg.h, f.limits
    if cfg.product == "A3":
        if h != lim.h_value:
            yield finding(H, "h", f"`h` = {h}: v1 on A3 supports only h = {lim.h_value}; use op dispatch_combine_v2 "
                          "for other hidden sizes; CANN: \"xShape dims1(H) only supports 7168\"")
    elif not 0 < h <= lim.h_max or h % lim.h_multiple:
        yield finding(H, "h", f"`h` = {h} must be a multiple of {lim.h_multiple} in [{lim.h_multiple}, {lim.h_max}] "
                      f"(v1, {where(cfg, f)}); CANN: \"hiddensize is invalid.\"")


def top_k(cfg, f):
    if not 0 < cfg.k <= f.limits.k_max:
        yield finding(K, "k", outside("k", cfg.k, 1, f.limits.k_max, cfg, f, ", v1"))
    elif cfg.k > cfg.moe_expert_num > 0:
        yield finding(K, "k", f"`k` = {cfg.k} exceeds moe_expert_num = {cfg.moe_expert_num}: a token cannot pick more "
                      "distinct experts than exist")


def shared_experts(cfg, f):
    num, ranks, ep = cfg.shared_expert_num, cfg.shared_expert_rank_num, cfg.ep_world_size
    if cfg.product == "A2":
        if ranks > 0:
            yield finding(A2_SHARED, "shared_expert_rank_num", f"`shared_expert_rank_num` = {ranks}: A2 does not "
                          f"support shared-expert ranks; v1 spreads moe_expert_num over all {ep} ranks")
        return
    if num != f.limits.shared_expert_num:
        yield finding(SHARED, "shared_expert_num", f"`shared_expert_num` = {num}: v1 on A3 supports exactly "
                      f"{f.limits.shared_expert_num}; CANN: \"sharedExpertNum only support 1\"")
    if not 0 <= ranks < ep:
        yield finding(SHARED, "shared_expert_rank_num", f"`shared_expert_rank_num` = {ranks} is outside [0, {ep}) "
                      "(ep_world_size)")
    elif ranks > 0 and ep % ranks:
        yield finding(SHARED, "shared_expert_rank_num", f"`ep_world_size` = {ep} is not divisible by "
                      f"shared_expert_rank_num = {ranks} (v1, {where(cfg, f)})")


def moe_experts(cfg, f):
    moe, lim = cfg.moe_expert_num, f.limits
    if not 0 < moe <= lim.moe_max:
        yield finding(MOE, "moe_expert_num", outside("moe_expert_num", moe, 1, lim.moe_max, cfg, f, ", v1"))
        return
    if f.moe_ranks <= 0:
        return
    if moe % f.moe_ranks:
        lo, hi = moe // f.moe_ranks * f.moe_ranks, (moe // f.moe_ranks + 1) * f.moe_ranks
        denom = "ep_world_size - shared_expert_rank_num" if cfg.product == "A3" else "ep_world_size"
        yield finding(MOE, "moe_expert_num", f"`moe_expert_num` = {moe} is not divisible by {denom} = {f.moe_ranks}; "
                      f"nearest valid: {' or '.join(str(v) for v in (lo, hi) if v > 0)}")
    elif cfg.product == "A2" and not f.layered and lim.moe_per_rank_max_flat and f.local_moe > lim.moe_per_rank_max_flat:
        yield finding(MOE, "moe_expert_num", f"{f.local_moe} experts per rank (moe_expert_num / ep_world_size = {moe} / "
                      f"{cfg.ep_world_size}) exceeds {lim.moe_per_rank_max_flat} with fullmesh (v1, {where(cfg, f)}); "
                      "use more ranks or the layered algorithm (HCCL_INTRA_PCIE_ENABLE=1, HCCL_INTRA_ROCE_ENABLE=0)")


def batch_size(cfg, f):
    if not 1 <= cfg.bs <= f.limits.bs_max:
        yield finding(BS, "bs", outside("bs", cfg.bs, 1, f.limits.bs_max, cfg, f, ", v1"))


def tensor_parallel(cfg, f):
    tp = cfg.tp_world_size
    if cfg.product == "A2":
        if tp > 1:
            yield finding(TP, "tp_world_size", f"`tp_world_size` = {tp}: A2 has no TP domain; v1 ignores it", WARNING)
        return
    if not 0 <= tp <= f.limits.tp_max:
        yield finding(TP, "tp_world_size", outside("tp_world_size", tp, 0, f.limits.tp_max, cfg, f, ", v1"))
    elif tp > 1 and not 0 <= cfg.tp_rank_id < tp:
        yield finding(TP, "tp_rank_id", f"`tp_rank_id` = {cfg.tp_rank_id} is outside [0, {tp})")


def comm_quant(cfg, f):
    if cfg.product == "A3" and cfg.comm_quant_mode not in f.limits.comm_quant_modes:
        yield finding(COMM_QUANT, "comm_quant_mode", f"`comm_quant_mode` = {cfg.comm_quant_mode} is not 0 (none) or "
                      "2 (int8) for combine v1")


def algorithm(cfg, f):
    if cfg.product == "A2":
        yield finding(RESOLVED, (), f"resolved algorithm: {f.alg} ({f.alg_reason})")


def _computable(cfg, f) -> bool:
    return (min(cfg.bs, cfg.h, cfg.k, cfg.moe_expert_num, cfg.ep_world_size) > 0 and f.moe_ranks > 0
            and f.max_bs is not None and f.max_bs >= 0)


def requirements(cfg, f) -> list:
    if not _computable(cfg, f):
        return []
    h, ep, mbs = cfg.h, cfg.ep_world_size, f.max_bs
    if cfg.product == "A2":
        if not (f.layered and f.limits.layered_window_warning):
            return []
        mb, src, path = buffers._window(cfg, "ep", env_only=False)
        need = v1x.v1_a2_layered_window_bytes(h, cfg.k, ep, cfg.moe_expert_num, mbs)
        return [Requirement("ep", need, "(moe_expert_num + ep_world_size / 8 * 2) * max_bs * (2 * h + 16 * Align8(k)) + 6 MB",
                            (("moe_expert_num", cfg.moe_expert_num), ("ep_world_size", ep), ("max_bs", mbs),
                             ("h", h), ("Align8(k)", fx.align_up(cfg.k, 8))), mb, src, path, "warning",
                            "CANN only logs a warning when the buffer is smaller")]
    mb, src, path = buffers._window(cfg, "ep", env_only=False)
    reqs = [Requirement("ep", v1x.v1_a3_ep_window_bytes(ep, mbs, h, f.local_moe),
                        "ep_world_size * max_bs * h * 2 * 2 * local_expert_num",
                        (("ep_world_size", ep), ("max_bs", mbs), ("h", h), ("local_expert_num", f.local_moe)),
                        mb, src, path, "error")]
    if cfg.tp_world_size == 2:
        a = _tp_recv_tokens(cfg, f)
        if a is not None:
            mb, src, path = buffers._window(cfg, "tp", env_only=False)
            reqs.append(Requirement("tp", v1x.v1_a3_tp_window_bytes(a, h), "A * (2 * h + 128) * 2",
                                    (("A", a), ("h", h)), mb, src, path, "error"))
    return reqs


def _tp_recv_tokens(cfg, f):
    if cfg.ep_rank_id is not None and 0 <= cfg.ep_rank_id < cfg.ep_world_size and f.recv_shared_rank is not None:
        return f.recv_shared_rank if cfg.ep_rank_id < cfg.shared_expert_rank_num else f.recv_moe_rank
    return max(v for v in (f.recv_moe_rank, f.recv_shared_rank, 0) if v is not None)


def windows(cfg, f):
    for req in requirements(cfg, f):
        if req.sufficient or req.configured_mb <= 0:
            continue
        what, have, fix = req.needed_text, req.configured_text, req.fix
        if req.domain == "tp":
            yield finding(TP_WINDOW, req.config_path, f"v1 TP window: tp_world_size = 2 needs {what}, configured {have}; {fix}")
        elif req.enforced == "error":
            yield finding(EP_WINDOW, req.config_path, f"v1 EP window: {what} needed, configured {have}; {fix}; CANN: "
                          "\"HCCL_BUFFSIZE is too SMALL\"")
        else:
            yield finding(EP_WINDOW, req.config_path, f"A2 v1 layered expects {what} of HCCL buffer, configured {have} "
                          f"({where(cfg, f)}; CANN only warns); {fix}", WARNING)


CHECKS = (ep_world_size, hidden, top_k, shared_experts, moe_experts, batch_size, tensor_parallel, comm_quant,
          algorithm, windows)
