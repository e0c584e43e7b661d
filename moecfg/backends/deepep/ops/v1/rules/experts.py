"""Experts and top-k (MC630-MC633).

`num_experts % num_ranks == 0` in every mode (N3, L5). Local experts `num_experts / num_ranks` <= 1024
in normal mode (N3); intranode notify runs 128 threads, so <= 128 local experts (N4); internode notify
runs 512 threads, so `num_experts / nodes <= 512` (N5). Top-k: normal mode <= 32 (N6), low-latency <= 11
(L9; 9 before DeepEP 9af0e0d). Low-latency kernels split the experts over the GPU's SMs in warp groups:
`ceil(num_experts / device_sms) <= 14`, i.e. `num_experts <= 14 * device_sms` (1848 on H100/H800,
1092 on H20) (L11), and the 32 MiB workspace holds `num_experts * 8` bytes (L12).
"""
from __future__ import annotations

from moecfg.core.registry import lazy_module, rule
from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.backends.deepep.shared.rules import AT, finding, mode_text

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.deepep.ops.v1.rules.examples_base")
_F = "deepep-experts"
DIVISIBLE = rule("MC630", "deepep-experts-divisibility", "error", "num_experts % num_ranks == 0", family=_F,
                 source=AT + "csrc/legacy/buffer.hpp:468,1483 (N3, L5)",
                 docs=lambda: dict(
                     why=eg.host("csrc/legacy/buffer.hpp:468", " (`num_experts % num_ranks == 0`; low-latency: csrc/legacy/buffer.hpp:1483): "
                         "every rank holds the same number of experts", when="at the first dispatch"),
                     fail_example=eg.ex(eg.INTRA, num_experts=250), pass_example=eg.ex(eg.INTRA),
                     fix="Round num_experts up to a multiple of num_ranks with redundant (EPLB) experts."))
LOCAL_LIMIT = rule("MC631", "deepep-local-experts-limit", "error", "normal mode: experts per rank / per node within the notify kernels",
                   family=_F, source=AT + "csrc/legacy/buffer.hpp:469 (N3); csrc/kernels/legacy/intranode.cu:167-168 (N4); csrc/kernels/legacy/internode.cu:227,415 (N5)",
                   docs=lambda: dict(
                       why=eg.trap("csrc/kernels/legacy/intranode.cu:167-168; csrc/kernels/legacy/internode.cu:227", " (the notify kernels count experts "
                           "with one thread each: 128 per rank intranode, 512 per node internode)", "; above 1024 local experts "
                           "the host assert csrc/legacy/buffer.hpp:469 fails first"),
                       fail_example=eg.ex(eg.INTRA, num_experts=2048),
                       pass_example=eg.ex(eg.INTER, num_ranks=32, num_experts=2048),
                       fix="Spread the experts over more ranks (or nodes), or use fewer experts."))
TOPK_LIMIT = rule("MC632", "deepep-topk-limit", "error", "num_topk <= 32 (normal) or <= 11 (low-latency)", family=_F,
                  source=AT + f"{fx.NORMAL_MODE_MAX_TOPK.source} (N6); {fx.LOW_LATENCY_MAX_TOPK.source} (L9)",
                  docs=lambda: dict(
                      why=eg.trap("csrc/kernels/legacy/internode_ll.cu:493-501; normal mode: csrc/kernels/legacy/intranode.cu:251, csrc/kernels/legacy/internode.cu:519",
                          " (the kernels are compiled for at most 11 experts per token in low-latency mode, 32 in normal "
                          "mode)"), fail_example=eg.ex(eg.LL, num_topk=12), pass_example=eg.ex(eg.LL),
                      fix="num_topk <= 11 in low-latency mode (<= 32 in normal mode)."))
LL_EXPERTS_SMS = rule("MC633", "deepep-ll-experts-per-sm", "error", "low-latency: num_experts <= 14 x device_sms and fits the workspace",
                      family=_F, source=AT + f"{fx.LOW_LATENCY_MAX_WARP_GROUPS.source} (L11); {fx.LOW_LATENCY_MAX_EXPERTS_BY_WORKSPACE.source} (L12)",
                      docs=lambda: dict(
                          why=eg.trap("csrc/kernels/legacy/internode_ll.cu:382, 916", " (low-latency kernels give an SM the warp "
                              "groups of at most 14 experts)", "; above the 32 MiB workspace (num_experts * 8 bytes) the launch's "
                              "host assert csrc/kernels/legacy/internode_ll.cu:506 fails instead"),
                          fail_example=eg.ex(eg.LL, num_experts=1152, device_sms=78),
                          pass_example=eg.ex(eg.LL, num_experts=1152, device_sms=132),
                          fix="num_experts <= 14 x device_sms (H20: 1092, H100/H800: 1848); use a GPU with more SMs or fewer "
                              "(redundant) experts."))


def divisibility(d, f):
    e, r = d.num_experts, d.num_ranks
    if e % r:
        lo, hi = e // r * r, (e // r + 1) * r
        near = f"{lo} or {hi}" if lo else str(hi)
        yield finding(DIVISIBLE, "num_experts", f"`num_experts` = {e} is not divisible by num_ranks = {r}; nearest "
                      f"valid: {near} (add redundant EPLB experts to round up)")


def local_limits(d, f):
    if d.low_latency or f.local_experts is None:
        return
    local = f.local_experts
    if local > fx.NORMAL_MODE_MAX_LOCAL_EXPERTS.value:
        yield finding(LOCAL_LIMIT, "num_experts", f"{local} local experts per rank (num_experts / num_ranks = "
                      f"{d.num_experts} / {d.num_ranks}) exceeds {fx.NORMAL_MODE_MAX_LOCAL_EXPERTS.value} (NUM_MAX_LOCAL_EXPERTS)")
    elif not f.internode and local > fx.INTRANODE_NOTIFY_MAX_LOCAL_EXPERTS.value:
        yield finding(LOCAL_LIMIT, "num_experts", f"{local} local experts per rank (num_experts / num_ranks = "
                      f"{d.num_experts} / {d.num_ranks}) exceeds {fx.INTRANODE_NOTIFY_MAX_LOCAL_EXPERTS.value}: the "
                      "intranode notify kernel has 128 threads; use more ranks or fewer experts")
    elif f.internode and d.num_experts // f.num_rdma_ranks > fx.INTERNODE_NOTIFY_MAX_EXPERTS_PER_RDMA_RANK.value:
        per_node = d.num_experts // f.num_rdma_ranks
        yield finding(LOCAL_LIMIT, "num_experts", f"{per_node} experts per node (num_experts / nodes = {d.num_experts} "
                      f"/ {f.num_rdma_ranks}) exceeds {fx.INTERNODE_NOTIFY_MAX_EXPERTS_PER_RDMA_RANK.value}: the internode "
                      "notify kernel has 512 threads; use more nodes or fewer experts")


def topk(d, f):
    limit = fx.LOW_LATENCY_MAX_TOPK if d.low_latency else fx.NORMAL_MODE_MAX_TOPK
    if d.num_topk > limit.value:
        yield finding(TOPK_LIMIT, "num_topk", f"`num_topk` = {d.num_topk} exceeds {limit.value} in {mode_text(d)}; the "
                      "kernels are compiled for at most that many experts per token")


def ll_experts_per_sm(d, f):
    if not d.low_latency:
        return
    groups, _ = fx.low_latency_warp_groups(d.num_experts, d.device_sms)
    if groups > fx.LOW_LATENCY_MAX_NUM_WARP_GROUPS:
        yield finding(LL_EXPERTS_SMS, "num_experts", f"`num_experts` = {d.num_experts} needs ceil({d.num_experts} / "
                      f"{d.device_sms} SMs) = {groups} warp groups, over {fx.LOW_LATENCY_MAX_NUM_WARP_GROUPS}: low-latency "
                      f"kernels accept at most 14 x device_sms = {fx.low_latency_max_experts(d.device_sms)} experts")
    elif d.num_experts > fx.LOW_LATENCY_MAX_EXPERTS_BY_WORKSPACE.value:
        yield finding(LL_EXPERTS_SMS, "num_experts", f"`num_experts` = {d.num_experts}: num_experts * 8 bytes exceeds the "
                      f"32 MiB workspace (at most {fx.LOW_LATENCY_MAX_EXPERTS_BY_WORKSPACE.value} experts)")


CHECKS = (divisibility, local_limits, topk, ll_experts_per_sm)
