"""DeepEP buffers (MC650-MC655): `num_nvl_bytes` and `num_rdma_bytes` against what the kernels need.

Normal mode sizes each buffer as DeepEP's README and Megatron do: the max over the dispatch and combine
configs (the file's, or DeepEP's default table for `num_ranks`) of `get_nvl_buffer_size_hint` /
`get_rdma_buffer_size_hint`, with `hidden_bytes = hidden * max(elem_size, 2)`:
`nvl_hint = ceil128(ch * nvl * (2 * nodes + 3) * 4 + ch * nvl * nvl_recv * (hidden_bytes + 2056))` and
`rdma_hint = ceil128(ch * nodes * 144 + ch * nodes * rdma_recv * 2 * (hidden_bytes + 2072))` (0 for <= 8
ranks), ch = num_sms / 2. Low-latency mode: `num_rdma_bytes = get_low_latency_rdma_size_hint(T, hidden,
num_ranks, num_experts)`, which rounds with "+128" (it adds 32-128 bytes even to an aligned total), and
no NVL buffer. `mode: auto` (SGLang's default: one Buffer with `low_latency_mode=True` for both kernels)
needs the normal-mode NVL buffer and RDMA = max(normal-mode RDMA hint, low-latency hint). A buffer below that is an error, except where DeepEP's own host check is smaller (the
intranode byte checks N7-N9, the low-latency layout total L6): there it is a warning.
Buffer sizes must be multiples of 128 (B1, B2); a normal-mode RDMA buffer, and an NVL buffer next to an
RDMA one, at most INT_MAX; any buffer / 16 below INT_MAX (the 32 GiB wall, B3) and below
INT_MAX * device_sms / 2 (B7). An RDMA buffer for <= 8 ranks needs low-latency mode (B6).
"""
from __future__ import annotations

from moecfg.core.record import record
from moecfg.core.diagnostics import WARNING
from moecfg.core.registry import lazy_module, rule
from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.backends.deepep.shared.rules import AT, finding

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.deepep.ops.v1.rules.examples_base")
_F = "deepep-buffers"
NVL_SMALL = rule("MC650", "deepep-nvl-buffer-too-small", "error", "num_nvl_bytes below DeepEP's NVL buffer hint", family=_F,
                 source=AT + "csrc/legacy/config.hpp get_nvl_buffer_size_hint; csrc/legacy/buffer.hpp:552,627-637,807-811 (N7-N9)", tags=("buffer", "autofix"),
                 docs=lambda: dict(
                     why="A buffer below the hint overruns at the first large batch: the intranode host checks "
                         "(csrc/legacy/buffer.hpp:552, 627-637, 807-811) raise `RuntimeError: Assertion exception`, internode "
                         "the kernels write past the buffer (corrupt tokens or a hang). Below the hint but above DeepEP's own "
                         "check is a warning.", fail_example=eg.ex(eg.INTER, num_nvl_bytes=268435456),
                     pass_example=eg.ex(eg.INTER, num_nvl_bytes=1073741824),
                     fix="Size num_nvl_bytes with Config.get_nvl_buffer_size_hint (the figure moecfg prints), as DeepEP's "
                         "README and Megatron do."))
RDMA_SMALL = rule("MC651", "deepep-rdma-buffer-too-small", "error", "num_rdma_bytes below DeepEP's RDMA / low-latency buffer hint",
                  family=_F, source=AT + "csrc/legacy/config.hpp get_rdma_buffer_size_hint, get_low_latency_rdma_size_hint; csrc/legacy/buffer.hpp:1503 (L6)",
                  tags=("buffer", "autofix"),
                  docs=lambda: dict(
                      why="An RDMA buffer below the hint overruns internode (uccl PR #670: a fixed 1 GB RDMA buffer "
                          "overflowed at 8 nodes); in low-latency mode csrc/legacy/buffer.hpp:1503 asserts the layout total <= "
                          "num_rdma_bytes at the first dispatch (`RuntimeError: Assertion exception`).",
                      fail_example=eg.ex(eg.INTER, num_rdma_bytes=67108864),
                      pass_example=eg.ex(eg.INTER, num_rdma_bytes=134217728),
                      fix="Size num_rdma_bytes with get_rdma_buffer_size_hint (normal) or get_low_latency_rdma_size_hint "
                          "(low-latency), the figure moecfg prints."))
ALIGNMENT = rule("MC652", "deepep-buffer-alignment", "error", "num_nvl_bytes and num_rdma_bytes are multiples of 128", family=_F,
                 source=AT + "csrc/legacy/buffer.hpp:107,109 (B1, B2)",
                 docs=lambda: dict(
                     why=eg.host("csrc/legacy/buffer.hpp:107 (NVL) / 154 (RDMA)", " (`num_nvl_bytes % NUM_BUFFER_ALIGNMENT_BYTES "
                         "== 0`)"), fail_example=eg.ex(eg.INTRA, num_nvl_bytes=1000000001),
                     pass_example=eg.ex(eg.INTRA, num_nvl_bytes=1000000128),
                     fix="Round the byte count up to a multiple of 128."))
SIZE_LIMIT = rule("MC653", "deepep-buffer-size-limit", "error", "configured buffers within INT_MAX / 32 GiB limits", family=_F,
                  source=AT + "csrc/legacy/buffer.hpp:107-112,129-130 (B1-B3, B7)",
                  docs=lambda: dict(
                      why=eg.host("csrc/legacy/buffer.hpp:107-112", ": a normal-mode RDMA buffer (and an "
                          "NVL buffer next to an RDMA one) is at most INT_MAX bytes, any buffer below 32 GiB"),
                      fail_example=eg.ex(eg.INTER, num_rdma_bytes=4294967296),
                      pass_example=eg.ex(eg.INTER, num_rdma_bytes=134217728),
                      fix="Pass at most 2147483647 bytes for a normal-mode RDMA buffer (the hint is usually far smaller)."))
REQUIRED_LIMIT = rule("MC654", "deepep-required-buffer-over-limit", "error", "the buffer this setup needs exceeds DeepEP's size limits",
                      family=_F, source=AT + "csrc/legacy/buffer.hpp:109-112 (B2, B3)",
                      docs=lambda: dict(
                          why="The setup needs more than DeepEP can allocate: sized with the hint the Buffer constructor fails "
                              "(`RuntimeError: Assertion exception (csrc/legacy/buffer.hpp:109-112)`); sized below it the kernels "
                              "overrun.", fail_example=eg.ex(eg.INTER, num_ranks=128, num_sms=64),
                          pass_example=eg.ex(eg.INTER, num_ranks=128, num_sms=24),
                          fix="Lower num_sms (fewer channels) or the chunk sizes; in low-latency mode lower "
                              "num_max_dispatch_tokens_per_rank or the experts."))
RDMA_INTRANODE = rule("MC655", "deepep-rdma-buffer-intranode", "error", "an RDMA buffer for <= 8 ranks needs low-latency mode",
                      family=_F, source=AT + "csrc/legacy/buffer.hpp:115-116 (B6)",
                      docs=lambda: dict(
                          why=eg.host("csrc/legacy/buffer.hpp:115-116", " (`num_ranks > NUM_MAX_NVL_PEERS or low_latency_mode`): "
                              "a single node has no RDMA peer in normal mode"),
                          fail_example=eg.ex(eg.INTRA, num_rdma_bytes=1073741824),
                          pass_example=eg.ex(eg.INTRA, num_rdma_bytes=0),
                          fix="Pass num_rdma_bytes: 0 for normal mode on one node (or use mode: low_latency)."))

B3_MAX = fx.MAX_BUFFER_BYTES_ANY_MODE.value  # num_bytes / 16 < INT_MAX


@record(frozen=True, slots=True)
class Requirement:
    """A DeepEP buffer the setup needs (NVL or RDMA): bytes, formula and terms, and what is configured."""

    domain: str  # "nvl" | "rdma"
    required_bytes: int  # what DeepEP's hint (what the README / Megatron pass) gives
    formula: str
    terms: tuple  # ((name, value), ...)
    configured_bytes: int | None
    hard_min_bytes: int  # below this DeepEP's own host check fails (or memory is overrun)
    hard_check: str  # what the hard minimum is
    note: str = ""

    @property
    def field(self) -> str:
        return f"num_{self.domain}_bytes"

    @property
    def sufficient(self) -> bool | None:
        return None if self.configured_bytes is None else self.configured_bytes >= self.required_bytes

    def to_json(self) -> dict:
        out = {"required_bytes": self.required_bytes}
        if self.configured_bytes is not None:
            out["configured_bytes"] = self.configured_bytes
            out["configured_from"] = self.field
        out["sufficient"] = self.sufficient
        if self.configured_bytes is not None:
            gap = self.configured_bytes - self.required_bytes
            out["headroom_bytes" if gap >= 0 else "shortfall_bytes"] = abs(gap)
        out.update(formula=self.formula, terms=dict(self.terms))
        if self.note:
            out["note"] = self.note
        return out


def _hint_args(c: fx.DeepEPConfig):
    return (c.num_sms, c.nvl_send, c.nvl_recv, c.rdma_send, c.rdma_recv)


def _normal(d, f) -> list[Requirement]:
    hb, r, c_d, c_c = f.hidden_bytes, d.num_ranks, f.dispatch, f.combine
    nvl_d, nvl_c = (fx.nvl_buffer_size_hint(hb, r, *_hint_args(c)) for c in (c_d, c_c))
    rdma_d, rdma_c = (fx.rdma_buffer_size_hint(hb, r, *_hint_args(c)) for c in (c_d, c_c))
    common = (("hidden_bytes", hb), ("num_channels", d.num_sms // 2), ("nvl_ranks", f.num_nvl_ranks),
              ("rdma_ranks", f.num_rdma_ranks))
    nvl_terms = common + (("dispatch nvl_recv", c_d.nvl_recv), ("combine nvl_recv", c_c.nvl_recv),
                          ("nvl_hint(dispatch)", nvl_d), ("nvl_hint(combine)", nvl_c))
    nvl_formula = (f"max over dispatch/combine configs of ceil128(num_channels * nvl_ranks * (2 * rdma_ranks + 3) * 4 "
                   f"+ num_channels * nvl_ranks * nvl_recv * (hidden_bytes + {fx.NVL_HINT_SLOT_EXTRA_BYTES}))")
    nvl_need = max(nvl_d, nvl_c)
    hard, check = nvl_need, "the hint"
    if not f.internode:
        hard = max(fx.intranode_notify_bytes(r, d.num_experts),
                   fx.intranode_dispatch_bytes(r, c_d.num_sms, c_d.nvl_recv, d.hidden, d.elem_size, d.num_topk,
                                               d.hidden // 128 if d.dtype == "fp8" else 0),
                   fx.intranode_combine_bytes(r, c_c.num_sms, c_c.nvl_recv, d.hidden, 2, d.num_topk))
        check = f"DeepEP's intranode host checks for num_topk = {d.num_topk} (N7-N9)"
    note = (f"configs from {f.config_source}; hidden_bytes = hidden * max(elem_size, 2) = {d.hidden} * "
            f"{max(d.elem_size, 2)}; the hint assumes top-k 128 and FP8 scales")
    if not f.internode:
        note += f" ({check} need {hard} bytes)"
    reqs = [Requirement("nvl", nvl_need, nvl_formula, nvl_terms, d.num_nvl_bytes, hard, check, note)]
    if f.internode:
        rdma_terms = common + (("dispatch rdma_recv (stored)", fx.stored_rdma_chunked_recv(c_d.rdma_send, c_d.rdma_recv)),
                               ("combine rdma_recv (stored)", fx.stored_rdma_chunked_recv(c_c.rdma_send, c_c.rdma_recv)),
                               ("rdma_hint(dispatch)", rdma_d), ("rdma_hint(combine)", rdma_c))
        rdma_formula = (f"max over dispatch/combine configs of ceil128(num_channels * rdma_ranks * 144 + num_channels * "
                        f"rdma_ranks * rdma_recv * 2 * (hidden_bytes + {fx.RDMA_HINT_SLOT_EXTRA_BYTES}))")
        need = max(rdma_d, rdma_c)
        reqs.append(Requirement("rdma", need, rdma_formula, rdma_terms, d.num_rdma_bytes, need, "the hint",
                                f"configs from {f.config_source}; rdma_recv is rounded up to a multiple of rdma_send"))
    else:
        reqs.append(Requirement("rdma", 0, "0: intranode (num_ranks <= 8) normal mode uses no RDMA buffer", (),
                                d.num_rdma_bytes, 0, "none"))
    return reqs


def _low_latency(d, f) -> list[Requirement]:
    t, h, e = d.num_max_dispatch_tokens_per_rank, d.hidden, d.num_experts
    layout = fx.low_latency_layout(t, h, d.num_ranks, e)
    need = fx.low_latency_rdma_size_hint(t, h, d.num_ranks, e)
    terms = (("T", t), ("hidden", h), ("num_experts", e), ("dispatch_msg", layout.num_bytes_per_dispatch_msg),
             ("combine_msg", layout.num_bytes_per_combine_msg), ("send", layout.send_buffer_bytes),
             ("recv", layout.recv_buffer_bytes), ("signaling", layout.signaling_buffer_bytes_aligned),
             ("total", layout.total_bytes))
    formula = ("(2 * send + 2 * recv + 2 * signaling + 128) // 128 * 128; send = max(T * dispatch_msg, num_experts * T * "
               "combine_msg), recv = num_experts * T * max(dispatch_msg, combine_msg), signaling = align128(4 * num_experts)")
    note = ("get_low_latency_rdma_size_hint; dispatch_msg = 16 + max(2 * hidden, hidden + hidden / 128 * 4), "
            "combine_msg = hidden / 128 * 4 + 2 * hidden; the '+128' rounding adds bytes to an aligned total; DeepEP "
            f"itself asserts only total = {layout.total_bytes} <= num_rdma_bytes")
    return [Requirement("nvl", 0, "0: low-latency kernels use only the RDMA buffer", (), d.num_nvl_bytes, 0, "none"),
            Requirement("rdma", need, formula, terms, d.num_rdma_bytes, layout.total_bytes,
                        "the low-latency layout total (L6)", note)]


def _auto(d) -> list[Requirement]:
    """mode: auto (SGLang's one Buffer): NVL as normal mode, RDMA = max(normal RDMA hint, low-latency hint)."""
    from moecfg.backends.deepep.ops.v1.model import derive

    normal, ll = ((v, derive(v)) for v in d.views())
    if normal[1].dispatch is None or normal[1].combine is None:
        return []
    nvl, rdma_n = _normal(*normal)
    rdma_l = _low_latency(*ll)[1]
    need = max(rdma_n.required_bytes, rdma_l.required_bytes)
    terms = (("normal RDMA hint", rdma_n.required_bytes), ("low-latency RDMA hint", rdma_l.required_bytes))
    rdma = Requirement("rdma", need, "max(normal-mode RDMA hint, get_low_latency_rdma_size_hint) (SGLang "
                       "DeepEPBuffer.get_deepep_buffer, deepep_mode auto)", terms + rdma_l.terms, d.num_rdma_bytes,
                       max(rdma_n.hard_min_bytes, rdma_l.hard_min_bytes), "the larger of both modes' checks",
                       "one Buffer with low_latency_mode=True serves both kernels; " + rdma_l.note)
    return [nvl, rdma]


def requirements(d, f) -> list[Requirement]:
    """The two buffers, or [] when DeepEP itself could not size them (no config, or a formula assert)."""
    try:
        if d.mode == "auto":
            return _auto(d)
        if d.low_latency:
            return _low_latency(d, f)
        if f.dispatch is None or f.combine is None:
            return []
        return _normal(d, f)
    except ValueError:
        return []


def too_small(d, f):
    from moecfg.backends.deepep.ops.v1.rules import cross

    reqs = requirements(d, f)
    yield from cross.sglang_fp8(d, f, reqs)  # MC644 names the cause where the size is SGLang's FP8 figure
    for req in reqs:
        have = req.configured_bytes
        if have is None or have >= req.required_bytes or cross.sglang_signature(d, req.domain):
            continue
        code = NVL_SMALL if req.domain == "nvl" else RDMA_SMALL
        short = req.required_bytes - have
        fix = f"set {req.field}: {req.required_bytes}"
        edit = _raised(req)
        if have >= req.hard_min_bytes:
            yield finding(code, req.field, f"`{req.field}` = {have} is {short} bytes below DeepEP's {req.domain.upper()} "
                          f"buffer hint {req.required_bytes}; it passes {req.hard_check} ({req.hard_min_bytes} bytes) but "
                          f"DeepEP's README and Megatron size it with the hint; {fix}", WARNING, fix=edit)
        else:
            yield finding(code, req.field, f"`{req.field}` = {have} is too small: this setup needs {req.required_bytes} "
                          f"bytes ({req.formula.split(';')[0]}), short by {short} bytes; {fix}", fix=edit)


def _raised(req):
    """MC650/MC651's fix: the buffer set to the hint (bytes, as the document writes it)."""
    from moecfg.core.fixes import Suggestion

    return Suggestion((req.field,), req.field, req.required_bytes)


def alignment_and_limits(d, f):
    nvl, rdma = d.num_nvl_bytes, d.num_rdma_bytes
    for name, value in (("num_nvl_bytes", nvl), ("num_rdma_bytes", rdma)):
        if value is None or value < 0:
            continue
        if value % fx.NUM_BUFFER_ALIGNMENT_BYTES:
            yield finding(ALIGNMENT, name, f"`{name}` = {value} is not a multiple of 128; DeepEP asserts "
                          f"{name} % NUM_BUFFER_ALIGNMENT_BYTES == 0; use {fx.align_up(value, 128)}")
        yield from _limits(d, name, value)
    if nvl is not None and rdma is not None and rdma > 0 and nvl > fx.INT_MAX:
        yield finding(SIZE_LIMIT, "num_nvl_bytes", f"`num_nvl_bytes` = {nvl} exceeds INT_MAX ({fx.INT_MAX}) while "
                      f"num_rdma_bytes = {rdma} > 0 (B1)")
    if rdma is not None and rdma > 0 and not d.low_latency_mode and d.num_ranks <= fx.NUM_MAX_NVL_PEERS:
        yield finding(RDMA_INTRANODE, "num_rdma_bytes", f"`num_rdma_bytes` = {rdma} with {d.num_ranks} ranks: an RDMA "
                      "buffer on a single node needs low_latency mode; DeepEP asserts num_ranks > NUM_MAX_NVL_PEERS or "
                      "low_latency_mode; set num_rdma_bytes: 0")


def _limits(d, name, value):
    if name == "num_rdma_bytes" and not d.low_latency_mode and value > fx.INT_MAX:
        yield finding(SIZE_LIMIT, name, f"`{name}` = {value} exceeds INT_MAX ({fx.INT_MAX}) in normal mode (B2)")
    elif value // 16 >= fx.INT_MAX:
        yield finding(SIZE_LIMIT, name, f"`{name}` = {value}: {name} / 16 must stay below INT_MAX, i.e. at most "
                      f"{B3_MAX} bytes (the 32 GiB wall, B3)")
    elif d.device_sms >= 2 and -(-value // (d.device_sms // 2)) >= fx.INT_MAX:
        yield finding(SIZE_LIMIT, name, f"`{name}` = {value}: ceil({name} / (device_sms / 2)) must stay below INT_MAX "
                      f"with device_sms = {d.device_sms} (B7)")


def required_limits(d, f):
    for req in requirements(d, f):
        if req.domain == "rdma" and not d.low_latency_mode and req.required_bytes > fx.INT_MAX:
            yield finding(REQUIRED_LIMIT, "num_ranks", f"this setup needs an RDMA buffer of {req.required_bytes} bytes, but "
                          f"normal mode allows at most INT_MAX = {fx.INT_MAX}; lower num_sms or the rdma_recv chunk size")
        elif req.domain == "nvl" and f.internode and req.required_bytes > fx.INT_MAX:
            yield finding(REQUIRED_LIMIT, "num_ranks", f"this setup needs an NVL buffer of {req.required_bytes} bytes, over "
                          f"INT_MAX = {fx.INT_MAX} next to an RDMA buffer (B1); lower num_sms or the nvl_recv chunk size")
        elif req.required_bytes > B3_MAX:
            field = "num_max_dispatch_tokens_per_rank" if d.low_latency_mode else "num_sms"
            yield finding(REQUIRED_LIMIT, field, f"this setup needs a {req.domain.upper()} buffer of {req.required_bytes} "
                          f"bytes, over DeepEP's 32 GiB wall ({B3_MAX} bytes, B3){_ll_fix(d)}")


def _ll_fix(d) -> str:
    if not d.low_latency_mode:
        return ""
    try:
        return _ll_largest_tokens(d)
    except ValueError:  # a smaller T hits the layout's own 16-byte assert (hidden outside the compiled list)
        return ""


def _ll_largest_tokens(d) -> str:
    if fx.low_latency_rdma_size_hint(1, d.hidden, d.num_ranks, d.num_experts) > B3_MAX:
        return f"; even 1 token per rank does not fit with {d.num_experts} experts: use fewer experts"
    lo, hi = 1, d.num_max_dispatch_tokens_per_rank
    while lo < hi:  # largest T whose hint stays within the wall (the hint grows with T)
        mid = (lo + hi + 1) // 2
        if fx.low_latency_rdma_size_hint(mid, d.hidden, d.num_ranks, d.num_experts) <= B3_MAX:
            lo = mid
        else:
            hi = mid - 1
    return f"; with {d.num_experts} experts, num_max_dispatch_tokens_per_rank <= {lo} fits"


CHECKS = (too_small, alignment_and_limits, required_limits)
