"""Hidden size (MC620-MC624): which hidden sizes each DeepEP kernel accepts.

Low-latency kernels are compiled for hidden in {2048, 2560, 3072, 4096, 5120, 6144, 7168, 8192} only
("Unsupported hidden", L3; every listed size also meets L2 `hidden % 128` and the FP8 rule L8
`hidden % 512`). Normal mode needs `hidden * elem_size % 16 == 0` for the dispatch dtype and the BF16
combine (N2). Intranode dispatch on SM90 needs `hidden_int4 % 2 == 0` and `hidden_int4 / 2 * 16 + 8 <= 8192`,
so BF16 hidden <= 8176 (N10). Internode kernels stage a token in 16 KiB of shared memory:
`align16(hidden_bytes + 8 + scales*4 + topk*8) + 8 <= 16384` for dispatch and `align16(2*hidden + 8 +
topk*4) + 8 <= 16384` for combine (N16, N17: BF16 top-8 hidden <= 8144 / 8160), and the TMA combine
forwarder needs BF16 hidden % 256 == 0 (N18; 2880 fails). So hidden 8192 works only in low-latency mode.
"""
from __future__ import annotations

from moecfg.core.registry import lazy_module, rule
from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.backends.deepep.shared.rules import AT, finding

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.deepep.ops.v1.rules.examples_base")
_F = "deepep-hidden"
HIDDEN_BYTES = rule("MC620", "deepep-hidden-bytes-multiple", "error", "normal mode: hidden * elem_size % 16 == 0",
                    family=_F, source=AT + fx.NORMAL_MODE_HIDDEN_BYTES_MULTIPLE.source + " (N2)",
                    docs=lambda: dict(
                        why=eg.host("csrc/legacy/buffer.hpp:458", " (`(hidden * elem_size) % 16 == 0`): tokens move in 16-byte int4 "
                            "units", when="at the first normal-mode dispatch or combine"),
                        fail_example=eg.ex(eg.INTRA, hidden=4100), pass_example=eg.ex(eg.INTRA, hidden=4096),
                        fix="Use a hidden size whose bytes per token are a multiple of 16 (BF16: hidden % 8 == 0)."))
LL_HIDDEN = rule("MC621", "deepep-ll-hidden-unsupported", "error", "low-latency: hidden in the compiled list",
                 family=_F, source=AT + fx.LOW_LATENCY_HIDDEN_SIZES.source + " (L2, L3, L8)",
                 docs=lambda: dict(
                     why="Low-latency kernels are compiled for eight hidden sizes only (SWITCH_HIDDEN in "
                         "csrc/kernels/legacy/launch.cuh); any other size fails at the first low-latency dispatch.",
                     cann_error="Unsupported hidden", fail_example=eg.ex(eg.LL, hidden=2880),
                     pass_example=eg.ex(eg.LL, hidden=3072),
                     fix="Pad hidden to the next compiled size (2048, 2560, 3072, 4096, 5120, 6144, 7168, 8192), as vLLM "
                         "does, or use normal mode."))
INTRANODE_HIDDEN = rule("MC622", "deepep-intranode-hidden-limit", "error", "intranode dispatch TMA: BF16 hidden <= 8176",
                        family=_F, source=AT + fx.INTRANODE_DISPATCH_TMA_BYTES_PER_WARP.source + " (N10)",
                        docs=lambda: dict(
                            why=eg.trap("csrc/kernels/legacy/intranode.cu:304", " of SM90 builds (the dispatch TMA stages a token "
                                "in 8192 bytes)", "; DeepEP issue #722: hidden 8192 fails"),
                            fail_example=eg.ex(eg.INTRA, hidden=8192), pass_example=eg.ex(eg.INTRA, hidden=7168),
                            fix="BF16 hidden <= 8176 in intranode normal mode, or use mode: low_latency (which takes 8192)."))
INTERNODE_TOKEN = rule("MC623", "deepep-internode-token-bytes", "error", "internode: a staged token fits 16 KiB of shared memory",
                       family=_F, source=AT + fx.INTERNODE_TMA_BYTES_PER_WARP.source + " (N16, N17)",
                       docs=lambda: dict(
                           why=eg.trap("csrc/kernels/legacy/internode.cu:578, 1758", " when an internode token does not fit the 16 KiB "
                               "of shared memory a warp stages it in"), fail_example=eg.ex(eg.INTER, hidden=8192),
                           pass_example=eg.ex(eg.INTER, hidden=7168),
                           fix="Lower hidden (BF16 top-8: <= 8144) or use mode: low_latency."))
INTERNODE_COMBINE_HIDDEN = rule("MC624", "deepep-internode-combine-hidden", "error", "internode combine TMA: BF16 hidden % 256 == 0",
                                family=_F, source=AT + fx.INTERNODE_COMBINE_HIDDEN_BYTES_MULTIPLE.source + " (N18)",
                                docs=lambda: dict(
                                    why=eg.trap("csrc/kernels/legacy/internode.cu:1588", " (the internode combine forwarder always uses TMA on "
                                        "512-byte multiples)", "; DeepEP issue #506: gpt-oss hidden 2880 fails"),
                                    fail_example=eg.ex(eg.INTER, hidden=2880),
                                    pass_example=eg.ex(eg.INTER, hidden=3072),
                                    fix="Use a BF16 hidden divisible by 256 internode, or mode: low_latency."))

BF16_BYTES = 2  # combine is always BF16


def _ll_hidden(d):
    sizes = fx.LOW_LATENCY_HIDDEN_SIZES.value
    if d.hidden in sizes:
        return
    above = [s for s in sizes if s > d.hidden]
    fix = f"pad hidden to {above[0]} (vLLM rounds up to the next supported size)" if above else (
        f"the largest supported is {sizes[-1]}; use mode: normal")
    yield finding(LL_HIDDEN, "hidden", f"`hidden` = {d.hidden}: low-latency kernels are compiled for hidden in "
                  f"{', '.join(map(str, sizes))} only (DeepEP: \"Unsupported hidden\"); {fix}")


def hidden_sizes(d, f):
    if d.low_latency:
        yield from _ll_hidden(d)
        return
    multiple = fx.NORMAL_MODE_HIDDEN_BYTES_MULTIPLE.value
    for what, elem in ((f"{d.dtype} dispatch", d.elem_size), ("BF16 combine", BF16_BYTES)):
        if d.hidden * elem % multiple:
            yield finding(HIDDEN_BYTES, "hidden", f"`hidden` = {d.hidden}: {what} moves hidden * {elem} = "
                          f"{d.hidden * elem} bytes per token, not a multiple of {multiple}; use a hidden divisible by "
                          f"{multiple // elem}")
            return
    yield from (_internode(d, f) if f.internode else _intranode(d))


def _intranode(d):
    hidden_bytes = d.hidden * d.elem_size
    tma = fx.intranode_dispatch_tma_bytes(hidden_bytes)
    limit = fx.INTRANODE_DISPATCH_TMA_BYTES_PER_WARP.value
    if (hidden_bytes // fx.INT4_BYTES) % 2 or tma > limit:
        yield finding(INTRANODE_HIDDEN, "hidden", f"`hidden` = {d.hidden} ({d.dtype}, {hidden_bytes} bytes): intranode "
                      f"dispatch TMA needs an even number of int4 and hidden_int4 / 2 * 16 + 8 = {tma} <= {limit} (SM90 "
                      f"builds trap otherwise, DeepEP issue #722); BF16 hidden <= "
                      f"{fx.INTRANODE_DISPATCH_MAX_HIDDEN_BF16.value} in normal mode, or use mode: low_latency")


def _internode(d, f):
    limit = fx.INTERNODE_TMA_BYTES_PER_WARP.value
    scales = d.hidden // 128 if d.dtype == "fp8" else 0
    dispatch = fx.internode_dispatch_token_bytes(d.hidden * d.elem_size, scales, d.num_topk) + 8
    combine = fx.internode_combine_token_bytes(d.hidden * BF16_BYTES, d.num_topk) + 8
    for what, need in (("dispatch", dispatch), ("combine", combine)):
        if need > limit:
            yield finding(INTERNODE_TOKEN, "hidden", f"`hidden` = {d.hidden} with num_topk = {d.num_topk}: an internode "
                          f"{what} token takes {need} bytes of shared memory (align16(token) + 8), over {limit}; the "
                          "kernel traps; lower hidden (BF16 top-8: <= 8144) or use mode: low_latency")
            return
    multiple = fx.INTERNODE_COMBINE_HIDDEN_BYTES_MULTIPLE.value
    if d.hidden * BF16_BYTES % multiple:
        yield finding(INTERNODE_COMBINE_HIDDEN, "hidden", f"`hidden` = {d.hidden}: the internode combine forwarder uses "
                      f"TMA on {d.hidden * BF16_BYTES} BF16 bytes per token, not a multiple of {multiple} (DeepEP issue "
                      f"#506); use a hidden divisible by {multiple // BF16_BYTES}, e.g. {-(-d.hidden // 256) * 256}")


CHECKS = (hidden_sizes,)
