"""Normal-mode configs and SMs (MC610-MC613): DeepEP `Config` objects, `num_sms` and QPs.

`dispatch_config` / `combine_config` are `[nvl_send, nvl_recv, rdma_send, rdma_recv]`; the `Config`
constructor requires all four > 0, `nvl_send < nvl_recv`, and, after it rounds `rdma_recv` up to a
multiple of `rdma_send`, `rdma_send < rdma_recv` and `rdma_send <= rdma_recv / 2` (together:
`rdma_send < rdma_recv` as written). `num_sms` must be even (one channel = 2 SMs; `Buffer.set_num_sms`
asserts it), and internode needs at least 2 channels (N15). Internode combine (N12, N13) with
`r = num_ranks / 8` nodes, `wpf = max(24 / r, 1)` warps per forwarder: `r <= 24`, `r * wpf > 8`,
`nvl_recv % r == 0`, `nvl_recv / r > max(rdma_send, nvl_send)`, `nvl_recv / r - wpf >= nvl_send` and
`rdma_send >= wpf` of the combine config. Internode kernels need `num_qps_per_rank == num_sms / 2` or
`>= num_sms` (N20). These rules apply to normal mode only; low-latency kernels take no Config.
"""
from __future__ import annotations

from moecfg.core.registry import lazy_module, rule
from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.backends.deepep.shared.rules import AT, finding

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.deepep.ops.v1.rules.examples_base")
_F = "deepep-configs"
CONSTRUCTOR = rule("MC610", "deepep-config-invalid", "error", "Config(nvl_send, nvl_recv, rdma_send, rdma_recv) constructor rules",
                   family=_F, source=AT + "csrc/legacy/config.hpp struct Config",
                   docs=lambda: dict(
                       why=eg.host("csrc/legacy/config.hpp", " (struct Config)", when="when the job builds the Config,"),
                       fail_example=eg.ex(eg.INTRA, dispatch_config=[256, 256, 6, 128]),
                       pass_example=eg.ex(eg.INTRA, dispatch_config=[6, 256, 6, 128]),
                       fix="All four sizes > 0, nvl_send < nvl_recv and rdma_send < rdma_recv (DeepEP's table has working "
                           "values for each rank count)."))
NUM_SMS = rule("MC611", "deepep-num-sms", "error", "normal mode: num_sms even; internode: at least 2 channels",
               family=_F, source=AT + "deep_ep/buffers/legacy.py:162 (B10); csrc/legacy/buffer.hpp:436 (N1); csrc/kernels/legacy/internode.cu:1519 (N15)",
               docs=lambda: dict(
                   why="Buffer.set_num_sms asserts an even SM count (one channel = 2 SMs); internode cached notify "
                       "also needs at least 2 channels (csrc/kernels/legacy/internode.cu:1519).",
                   cann_error="AssertionError: The SM count must be even", fail_example=eg.ex(eg.INTRA, num_sms=21),
                   pass_example=eg.ex(eg.INTRA, num_sms=24),
                   fix="Use an even num_sms (DeepEP's default 20, its README 24), at least 4 internode."))
COMBINE_CHUNKS = rule("MC612", "deepep-internode-combine-chunks", "error", "internode combine chunk sizes vs the node count",
                      family=_F, source=AT + "csrc/legacy/buffer.hpp:1326-1327 (N12); csrc/kernels/legacy/internode.cu:2363-2373 (N13)",
                      docs=lambda: dict(
                          why=eg.host("csrc/legacy/buffer.hpp:1326-1327", " (or the kernel traps, csrc/kernels/legacy/internode.cu:2363-2373): the combine chunk "
                              "sizes do not fit the node count (DeepEP issues #114, #300)", when="at the first internode combine"),
                          fail_example=eg.ex(eg.INTER, combine_config=[1, 288, 8, 128]),
                          pass_example=eg.ex(eg.INTER, combine_config=[4, 288, 12, 128]),
                          fix="Take the combine config of DeepEP's table for your rank count (here [4, 288, 12, 128] for 16 "
                              "ranks), or tune one with DeepEP's tests."))
INTERNODE_QPS = rule("MC613", "deepep-internode-qps", "error", "internode: num_qps_per_rank == num_sms / 2 or >= num_sms",
                     family=_F, source=AT + "csrc/kernels/legacy/internode.cu:497 (N20); DeepEP issue #134",
                     docs=lambda: dict(
                         why=eg.trap("csrc/kernels/legacy/internode.cu:497", after=" (DeepEP issue #134)"),
                         fail_example=eg.ex(eg.INTER, num_qps_per_rank=16),
                         pass_example=eg.ex(eg.INTER, num_qps_per_rank=12),
                         fix="Set num_qps_per_rank to num_sms / 2 or at least num_sms."))

FIELD_NAMES = ("nvl_send", "nvl_recv", "rdma_send", "rdma_recv")


def constructor_problems(values) -> list[tuple[int, str]]:
    """(index of the offending entry, reason) for a [nvl_send, nvl_recv, rdma_send, rdma_recv] list."""
    nvl_send, nvl_recv, rdma_send, rdma_recv = values
    problems = [(i, f"{FIELD_NAMES[i]} = {v} must be > 0") for i, v in enumerate(values) if v <= 0]
    if problems:
        return problems
    if nvl_send >= nvl_recv:
        problems.append((0, f"nvl_send = {nvl_send} must be < nvl_recv = {nvl_recv}"))
    stored = fx.stored_rdma_chunked_recv(rdma_send, rdma_recv)
    if not (rdma_send < stored and rdma_send <= stored // 2):
        problems.append((2, f"rdma_send = {rdma_send} must be < rdma_recv = {rdma_recv} (Config rounds rdma_recv up to "
                            f"{stored} and requires rdma_send <= {stored} / 2)"))
    return problems


def configs(d, f):
    if d.low_latency:
        return
    for name in ("dispatch_config", "combine_config"):
        values = getattr(d, name)
        if values is None:
            continue
        for index, reason in constructor_problems(values):
            yield finding(CONSTRUCTOR, (name, index), f"`{name}` = {list(values)}: {reason}; DeepEP's Config "
                          "constructor asserts this")


def num_sms(d, f):
    if d.low_latency:
        return
    if d.num_sms % 2:
        yield finding(NUM_SMS, "num_sms", f"`num_sms` = {d.num_sms} must be even (one channel = 2 SMs); DeepEP: "
                      f"\"The SM count must be even\"; use {d.num_sms - 1 or 2} or {d.num_sms + 1}")
    elif f.internode and d.num_sms // 2 * 2 <= 3:
        yield finding(NUM_SMS, "num_sms", f"`num_sms` = {d.num_sms} gives {d.num_sms // 2} channel(s); internode "
                      "cached notify needs num_channels * 2 > 3, so num_sms >= 4")


def combine_chunks(d, f):
    c = f.combine
    if not f.internode or c is None or constructor_problems((c.nvl_send, c.nvl_recv, c.rdma_send, c.rdma_recv)):
        return
    r = f.num_rdma_ranks
    wpf = max(24 // r, 1)
    where = "combine_config" if d.combine_config is not None else "num_ranks"
    shown = f"combine config [{c.nvl_send}, {c.nvl_recv}, {c.rdma_send}, {c.rdma_recv}] with {r} nodes"
    rules = (
        (r <= 24 and r * wpf > 8 and (r * wpf) % r == 0, f"{r} nodes: forwarder warps {r} * {wpf} must be > 8"),
        (c.nvl_recv % r == 0, f"nvl_recv = {c.nvl_recv} must be divisible by the {r} nodes"),
        (c.nvl_send <= c.nvl_recv // r, f"nvl_send = {c.nvl_send} must be <= nvl_recv / nodes = {c.nvl_recv // r}"),
        (c.nvl_recv // r > max(c.rdma_send, c.nvl_send),
         f"nvl_recv / nodes = {c.nvl_recv // r} must be > max(rdma_send, nvl_send) = {max(c.rdma_send, c.nvl_send)}"),
        (c.nvl_recv // r - wpf >= c.nvl_send,
         f"nvl_recv / nodes - warps_per_forwarder = {c.nvl_recv // r} - {wpf} must be >= nvl_send = {c.nvl_send}"),
        (c.rdma_send >= wpf, f"rdma_send = {c.rdma_send} must be >= warps_per_forwarder = max(24 / {r}, 1) = {wpf}"),
    )
    for ok, reason in rules:
        if not ok:
            yield finding(COMBINE_CHUNKS, where, f"internode combine: {reason} ({shown}); DeepEP asserts this at "
                          "launch; pick nvl_recv as a multiple of the node count that is large enough")
            return


def internode_qps(d, f):
    qps = d.num_qps_per_rank
    if not f.internode or qps is None or qps < 1 or d.num_sms % 2:
        return
    channels = d.num_sms // 2
    if not (qps == channels or qps >= d.num_sms):
        yield finding(INTERNODE_QPS, "num_qps_per_rank", f"`num_qps_per_rank` = {qps} with num_sms = {d.num_sms}: "
                      f"internode kernels need num_qps_per_rank == num_sms / 2 = {channels} or >= num_sms = "
                      f"{d.num_sms} (the kernel traps otherwise); set {channels} or {d.num_sms}")


CHECKS = (configs, num_sms, combine_chunks, internode_qps)
