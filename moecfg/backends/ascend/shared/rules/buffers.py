"""HCCL buffer (MC5xx): the communication window each communicator must hold.

A3 (an error, the tiling refuses to run: "HCCL_BUFFSIZE_EP is too SMALL"): for "" / fullmesh_v1
`2 * (max_bs * Align512(Align32(2H) + 44) * ep * local + max_bs * Align512(2H) * (K + shared_expert_num))`,
for fullmesh_v2 the dispatch slot is rounded 480 -> 512, for hierarchy
`moe * max_bs * (2H + (3(K+7)/8*8)*4 + 64) + 404 MB`. The window compared is ccl_buffer_size - 1 MB in context
mode (api aclnn_v5), else hccl_buffer_size.ep if set, else env HCCL_BUFFSIZE, else HCCL's 200 MB default; hierarchy reads only HCCL_BUFFSIZE, through
GetMaxWindowSize, which keeps it in a uint16_t: 70000 MB is read as 70000 - 65536 = 4464 MB. CANN 8.5-9.1 with
tp_world_size = 2 also check the TP window `A * (Align512(Align32(2H)+44) + Align512(2H)) * 2`.
A2 (a warning: CANN 9.0+ only logs it, 8.5 has no host check; for 8.5 the torch_npu documented formula is
used). The exact minimum is ceil(bytes / 2^20) MB; the message says which value to set.
"""
from __future__ import annotations

from moecfg.core.record import record
from moecfg.core.diagnostics import WARNING
from moecfg.core.registry import lazy_module, rule
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend.shared.model import DEFAULT_HCCL_BUFFSIZE_MB
from moecfg.backends.ascend.shared.rules import finding, where

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.ascend.shared.rules.examples_base")
_F = "ascend-buffers"
EP_SMALL = rule("MC501", "ep-buffer-too-small", "error", "A3: the EP communicator's HCCL buffer holds the dispatch/combine window", family=_F,
                source="CWS[M] L52-172; R85 DV2T L954-1008", tags=("buffer", "autofix"),
                docs=lambda: dict(
                    why=eg.BUFFERS, cann_error="HCCL_BUFFSIZE_EP is too SMALL",
                    fail_example=eg.ex(eg.A3, env={"HCCL_BUFFSIZE": 200}), pass_example=eg.ex(eg.A3),
                    fix="Set HCCL_BUFFSIZE (or hccl_buffer_size.ep) to at least the size the message names."))
TP_SMALL = rule("MC502", "tp-buffer-too-small", "error", "A3, CANN 8.5-9.1, tp_world_size = 2: the TP communicator's buffer holds the TP window", family=_F,
                source="R85 DV2T L990-1006; CWS[R90] CheckTpWinSize", tags=("buffer", "autofix"),
                docs=lambda: dict(
                    why=eg.BUFFERS,
                    fail_example=eg.ex(eg.A3, moe_expert_num=32, tp_world_size=2, group_tp="tp_group", hccl_buffer_size={"ep": 1024, "tp": 1}),
                    pass_example=eg.ex(eg.A3, moe_expert_num=32, tp_world_size=2, group_tp="tp_group"),
                    fix="Give the TP communicator the buffer the message names."))
A2_ADVISORY = rule("MC503", "a2-buffer-advisory", "warning", "A2: HCCL_BUFFSIZE below the window the op expects (CANN only warns)", family=_F,
                   source="DV2A22[M] L160-218; torch_npu dispatch_v2 doc (8.5)", tags=("buffer", "autofix"),
                   docs=lambda: dict(
                       why="CANN only logs a warning on A2, but a window smaller than the op expects can corrupt or hang "
                           "large batches.", fail_example=eg.ex(eg.A2, env={"HCCL_BUFFSIZE": 64}),
                       pass_example=eg.ex(eg.A2), fix="Set HCCL_BUFFSIZE to at least the size the message names."))
BUFFSIZE_VALUE = rule("MC504", "hccl-buffsize-value", "error", "HCCL_BUFFSIZE / hccl_buffer_size must be positive; >= 65536 MB wraps", family=_F,
                      source="MTU[M] .cpp L344-360",
                      docs=lambda: dict(
                          why=eg.BUFFERS, cann_error="cclBufferSize is 0",
                          fail_example=eg.ex(eg.A3, env={"HCCL_BUFFSIZE": 0}), pass_example=eg.ex(eg.A3),
                          fix="HCCL_BUFFSIZE is a positive number of MB below 65536."))
OPTION_IGNORED = rule("MC505", "hccl-buffer-option-ignored", "warning", "A3 hierarchy reads only HCCL_BUFFSIZE, not hccl_buffer_size.ep", family=_F,
                      source="CWS[M] L63-73",
                      docs=lambda: dict(
                          why=eg.BUFFERS,
                          fail_example=eg.ex(eg.A3, comm_alg="hierarchy", expert_scales=True, hccl_buffer_size={"ep": 4096}),
                          pass_example=eg.ex(eg.A3, comm_alg="hierarchy", expert_scales=True, env={"HCCL_BUFFSIZE": 4096}),
                          fix="With hierarchy set HCCL_BUFFSIZE; hccl_buffer_size.ep is not read."))


@record(frozen=True, slots=True)
class Requirement:
    """A buffer a communicator needs: bytes, the formula and its terms, and what is configured."""

    domain: str  # "ep" | "tp"
    required_bytes: int
    formula: str
    terms: tuple  # ((name, value), ...)
    configured_mb: int
    configured_from: str  # where the compared value comes from
    config_path: tuple  # where to fix it
    enforced: str  # "error" (the op refuses to run) | "warning" (CANN only logs)
    note: str = ""
    max_mb: int | None = None  # the largest value the compared setting can express (uint16 for hierarchy)
    window_bytes: int | None = None  # context mode: the exact window in bytes (ccl_buffer_size - 1 MB)

    @property
    def required_mb(self) -> int:
        return fx.ceil_mb(self.required_bytes)

    @property
    def sufficient(self) -> bool:
        window = self.window_bytes if self.window_bytes is not None else self.configured_mb * fx.MB
        return self.required_bytes <= window

    @property
    def needed_text(self) -> str:
        return f"{self.required_bytes} bytes = {self.required_mb} MB"

    @property
    def configured_text(self) -> str:
        if self.window_bytes is not None:
            return f"{self.window_bytes} bytes ({self.configured_from})"
        return f"{self.configured_mb} MB ({self.configured_from})"

    @property
    def fix(self) -> str:
        """The setting to change, naming the value that was compared."""
        if self.configured_from.startswith("hccl_buffer_size"):
            return f"set hccl_buffer_size.{self.domain} >= {self.required_mb}"
        if self.window_bytes is not None:
            return f"set ccl_buffer_size >= {self.required_bytes + fx.MB} (bytes: the window is ccl_buffer_size - 1 MB)"
        if self.max_mb is not None and self.required_mb > self.max_mb:
            return (f"no HCCL_BUFFSIZE fits: this window is read as a uint16 (at most {self.max_mb} MB); "
                    "lower bs or moe_expert_num, or use another comm_alg")
        if self.max_mb is not None:
            return f"set HCCL_BUFFSIZE >= {self.required_mb} (and <= {self.max_mb}: larger values wrap)"
        return f"set HCCL_BUFFSIZE >= {self.required_mb}"

    def to_json(self) -> dict:
        return {"required_bytes": self.required_bytes, "required_mb": self.required_mb,
                "configured_mb": self.configured_mb, "sufficient": self.sufficient,
                "configured_from": self.configured_from, "enforced": self.enforced,
                "formula": self.formula, "terms": dict(self.terms), **({"note": self.note} if self.note else {}),
                **({"window_bytes": self.window_bytes} if self.window_bytes is not None else {})}


def _window(cfg, domain: str, env_only: bool):
    """(MB, description, path) of the buffer compared for `domain`; env_only = GetMaxWindowSize (hierarchy)."""
    opt = (cfg.hccl_buffer_size or {}).get(domain)
    if opt is not None and not env_only:
        return opt, f"hccl_buffer_size.{domain}", ("hccl_buffer_size", domain)
    env = cfg.hccl_buffsize_env
    if env is None:
        return DEFAULT_HCCL_BUFFSIZE_MB, "HCCL default (HCCL_BUFFSIZE unset)", ("env", "HCCL_BUFFSIZE")
    read = fx.max_window_size_mb(env) if env_only else env
    if read != env:  # CWS[M] L138 -> MTU[M] .h L257-258: hierarchy takes GetMaxWindowSize(), a uint16_t of MB
        return read, f"env HCCL_BUFFSIZE = {env}, which GetMaxWindowSize reads as {read} ({_why_read(env)})", \
            ("env", "HCCL_BUFFSIZE")
    return env, "env HCCL_BUFFSIZE", ("env", "HCCL_BUFFSIZE")


def _context_window(cfg, f):
    """Context mode (aclnn V5): (MB, description, path, window bytes), or None without a ccl_buffer_size."""
    ccl = cfg.ccl_buffer_size
    if not cfg.context_mode or ccl is None:
        return None
    # CWS[M] L152: maxWindowSizeEp = *cclBuffSizePtr - MB_SIZE in uint64 (R91+); R90 L93: need + 1 MB <= ccl
    window = fx.context_window_bytes(ccl, f.limits.context_window_wraps)
    return ccl // fx.MB, f"ccl_buffer_size {ccl} - 1 MB (context mode)", ("ccl_buffer_size",), window


def _why_read(env: int) -> str:
    if not -fx.INT32_MAX - 1 <= env <= fx.INT32_MAX:
        return "std::stoi throws above INT32_MAX and its 200 MB default stays"
    return f"stored in a uint16_t: {env} mod 65536"


def computable(cfg, f) -> bool:
    return (min(cfg.bs, cfg.h, cfg.k, cfg.moe_expert_num, cfg.ep_world_size) > 0 and f.moe_ranks > 0
            and f.max_bs is not None and f.max_bs >= 0 and bool(f.alg))


def requirements(cfg, f) -> list[Requirement]:
    if not computable(cfg, f):
        return []
    return _a3(cfg, f) if cfg.product == "A3" else _a2(cfg, f)


def _a3(cfg, f) -> list[Requirement]:
    h, k, ep, mbs = cfg.h, cfg.k, cfg.ep_world_size, f.max_bs
    if f.alg == "hierarchy":
        mb, src, path = _window(cfg, "ep", env_only=True)
        ctx = _context_window(cfg, f)
        if ctx:
            mb, src, path = ctx[:3]
        tok = fx.a3_hierarchy_token_bytes(h, k)
        need = fx.a3_hierarchy_window_bytes(h, k, cfg.moe_expert_num, mbs)
        doc = fx.a3_doc_hierarchy_window_bytes(h, k, cfg.moe_expert_num, cfg.bs, 2)
        reqs = [Requirement("ep", need, "moe_expert_num * max_bs * tok_hierarchy + 404 MB",
                            (("moe_expert_num", cfg.moe_expert_num), ("max_bs", mbs), ("tok_hierarchy", tok),
                             ("404 MB", fx.HIERARCHY_BASE_MB * fx.MB)), mb, src, path, "error",
                            f"tok_hierarchy = 2*h + (3*(k+7)/8*8)*4 + 64; the torch_npu docs' formula "
                            f"moe*BS*(2H+4*Align8(K)*4)+4MB+400MB gives {doc} bytes ({fx.ceil_mb(doc)} MB): the code needs more",
                            None if ctx else fx.UINT16_VALUES - 1, ctx[3] if ctx else None)]
    else:
        fm2 = f.alg == "fullmesh_v2"
        mb, src, path = _window(cfg, "ep", env_only=False)
        ctx = _context_window(cfg, f)
        if ctx:
            mb, src, path = ctx[:3]
        tok_d, tok_c = fx.a3_dispatch_token_bytes(h, fm2), fx.a3_combine_token_bytes(h)
        need = fx.a3_ep_window_bytes(h, k, ep, f.local_moe, mbs, f.shared_num, fm2)
        how = "480Align512(Align32(2*h) + 44)" if fm2 else "Align512(Align32(2*h) + 44)"
        reqs = [Requirement("ep", need, "2 * (max_bs * tok_dispatch * ep_world_size * local_expert_num"
                            " + max_bs * tok_combine * (k + shared_expert_num))",
                            (("max_bs", mbs), ("tok_dispatch", tok_d), ("ep_world_size", ep),
                             ("local_expert_num", f.local_moe), ("tok_combine", tok_c), ("k", k),
                             ("shared_expert_num", f.shared_num)), mb, src, path, "error",
                            f"tok_dispatch = {how}, tok_combine = Align512(2*h)", None, ctx[3] if ctx else None)]
    if f.limits.legacy_tp and cfg.tp_world_size == 2:
        a = _tp_recv_tokens(cfg, f)
        if a is not None:
            mb, src, path = _window(cfg, "tp", env_only=False)
            reqs.append(Requirement("tp", fx.a3_tp_window_bytes(a, h), "A * (tok_dispatch + tok_combine) * 2",
                                    (("A", a), ("tok_dispatch", fx.a3_dispatch_token_bytes(h, False)),
                                     ("tok_combine", fx.a3_combine_token_bytes(h))), mb, src, path, "error",
                                    "the ops-transformer docs give A*(2H+128)*2; the code and the torch_npu docs use this"))
    return reqs


def _tp_recv_tokens(cfg, f):
    if cfg.ep_rank_id is not None and 0 <= cfg.ep_rank_id < cfg.ep_world_size:
        shared = cfg.ep_rank_id < f.shared_rank
        return f.recv_shared_rank if shared else f.recv_moe_rank
    return f.recv_tokens_max


def _a2(cfg, f) -> list[Requirement]:
    h, k, ep, mbs = cfg.h, cfg.k, cfg.ep_world_size, f.max_bs
    x_bytes = 4 if cfg.x_dtype == "int32" else 2
    mb, src, path = _window(cfg, "ep", env_only=False)
    if f.limits.window_source == "doc":
        note = f"CANN {f.ruleset.name} has no host check; this is the torch_npu documented formula (BS, not max_bs)"
        if f.layered:
            need = fx.a2_doc85_hierarchy_window_bytes(h, k, cfg.moe_expert_num, cfg.bs, x_bytes)
            return [Requirement("ep", need, "moe_expert_num * bs * (h * sizeof(x) + 4 * Align8(k) * 4) + 4 MB + 100 MB",
                                (("moe_expert_num", cfg.moe_expert_num), ("bs", cfg.bs), ("h", h),
                                 ("sizeof(x)", x_bytes), ("Align8(k)", fx.align_up(k, 8))), mb, src, path, "warning", note)]
        need = fx.a2_doc85_flat_window_bytes(h, k, ep, f.local_moe, cfg.bs)
        return [Requirement("ep", need, "2 * (bs * ep_world_size * min(local_expert_num, k) * h * 2 + 2 MB)",
                            (("bs", cfg.bs), ("ep_world_size", ep), ("min(local_expert_num, k)", min(f.local_moe, k)),
                             ("h", h)), mb, src, path, "warning", note)]
    note = "CANN only logs a warning when the buffer is smaller"
    if f.layered:
        tok = fx.a2_layered_token_bytes(h, k, x_bytes)
        need = max(fx.a2_layered_window_bytes(h, k, ep, cfg.moe_expert_num, mbs, x_bytes),
                   fx.a2_layered_window_bytes(h, k, ep, cfg.moe_expert_num, mbs, 2))
        return [Requirement("ep", need, "Align512(max_bs * tok_layered) * (moe_expert_num + ep_world_size / 8 * 2) + 8 MB",
                            (("max_bs", mbs), ("tok_layered", tok), ("moe_expert_num", cfg.moe_expert_num),
                             ("ep_world_size", ep)), mb, src, path, "warning",
                            note + "; tok_layered = h * sizeof(x) + 4 * Align8(k) * 4")]
    int32 = cfg.x_dtype == "int32"
    tok = fx.a2_flat_token_bytes(h, x_bytes, int32)
    need = max(fx.a2_flat_window_bytes(h, k, ep, f.local_moe, mbs, x_bytes, int32),
               fx.a2_flat_window_bytes(h, k, ep, f.local_moe, mbs, 2, False))
    return [Requirement("ep", need, "2 * (max_bs * ep_world_size * min(local_expert_num, k) * tok_flat + 2 MB)",
                        (("max_bs", mbs), ("ep_world_size", ep), ("min(local_expert_num, k)", min(f.local_moe, k)),
                         ("tok_flat", tok)), mb, src, path, "warning", note + "; tok_flat = h * sizeof(x) (+32 for INT32 x)")]


def window_checks(cfg, f):
    for req in requirements(cfg, f):
        if req.sufficient or (req.window_bytes is None and _setting(cfg, req) <= 0):  # MC504's error
            continue
        what, have = req.needed_text, req.configured_text
        fix, other = _suggestion(req), _smaller_batch(cfg, f, req)
        if req.domain == "tp":
            yield finding(TP_SMALL, req.config_path, f"TP HCCL_BUFFSIZE is too SMALL: tp_world_size = 2 needs {what} in "
                          f"the TP communicator, configured {have}; {req.fix}", fix=fix)
        elif req.enforced == "error":
            yield finding(EP_SMALL, req.config_path, f"{f.limits.window_error}: comm_alg {f.alg} needs {what} in the EP "
                          f"communicator, configured {have}; {req.fix}{other}", fix=fix)
        else:
            yield finding(A2_ADVISORY, req.config_path, f"A2 {f.alg} expects {what} of HCCL buffer, configured {have} "
                          f"({where(cfg, f)}; CANN only warns, communication may fail or slow down); {req.fix}{other}",
                          fix=fix)


def _suggestion(req: Requirement):
    """The one right edit: the compared setting raised to what the window needs (none when no value fits)."""
    from moecfg.core.fixes import Suggestion

    if req.window_bytes is not None:
        return Suggestion(req.config_path, "ccl_buffer_size", req.required_bytes + fx.MB)
    if req.max_mb is not None and req.required_mb > req.max_mb:
        return None
    knob = "HCCL_BUFFSIZE" if req.config_path == ("env", "HCCL_BUFFSIZE") else ".".join(req.config_path)
    return Suggestion(req.config_path, knob, req.required_mb)


class _With:
    """`base` with some attributes replaced (a batch tried against the same window)."""

    def __init__(self, base, **values):
        self._base, self._values = base, values

    def __getattr__(self, name):
        return self._values[name] if name in self._values else getattr(self._base, name)


def _smaller_batch(cfg, f, req: Requirement) -> str:
    """The other edit, named: the largest batch the configured window holds (binary search: the window grows
    with the batch), or nothing when even one token does not fit."""
    window = req.window_bytes if req.window_bytes is not None else req.configured_mb * fx.MB
    per_rank = f.max_bs == cfg.bs  # else global_bs is set apart from bs: max_bs = global_bs / ep_world_size

    def fits(m: int) -> bool:
        reqs = requirements(_With(cfg, bs=m), _With(f, max_bs=m))
        return all(r.required_bytes <= window for r in reqs if r.domain == req.domain)

    lo, hi = 0, f.max_bs - 1
    if hi < 1 or not fits(1):
        return ""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    if per_rank:
        return f" (or lower bs to {lo})"
    # global_bs below bs x ep_world_size is not a smaller batch but another setting: no alternative then
    return f" (or lower global_bs to {lo * cfg.ep_world_size})" if lo >= cfg.bs else ""


def _setting(cfg, req) -> int:
    """The value written in the file that `req` compares (before GetMaxWindowSize reads it)."""
    if req.config_path[0] == "hccl_buffer_size":
        return cfg.hccl_buffer_size[req.domain]
    env = cfg.hccl_buffsize_env
    return DEFAULT_HCCL_BUFFSIZE_MB if env is None else env


def buffer_values(cfg, f):
    env = cfg.hccl_buffsize_env
    if env is not None:
        if env <= 0:
            yield finding(BUFFSIZE_VALUE, ("env", "HCCL_BUFFSIZE"), f"HCCL_BUFFSIZE = {env} must be a positive number of "
                          "MB; CANN: \"cclBufferSize is 0\"")
        elif env >= fx.UINT16_VALUES:
            read = fx.max_window_size_mb(env)
            yield finding(BUFFSIZE_VALUE, ("env", "HCCL_BUFFSIZE"), f"HCCL_BUFFSIZE = {env} MB does not fit 16 bits: "
                          f"GetMaxWindowSize (the window of A3 comm_alg hierarchy) reads it as {read} MB "
                          f"({_why_read(env)}); HCCL itself keeps {env} MB; set at most 65535", WARNING)
    for domain, mb in (cfg.hccl_buffer_size or {}).items():
        if mb is not None and mb <= 0:
            yield finding(BUFFSIZE_VALUE, ("hccl_buffer_size", domain), f"hccl_buffer_size.{domain} = {mb} must be a "
                          "positive number of MB")
    if cfg.product == "A3" and f.layered and not cfg.context_mode and (cfg.hccl_buffer_size or {}).get("ep") is not None:
        yield finding(OPTION_IGNORED, ("hccl_buffer_size", "ep"), "comm_alg hierarchy compares the window with env "
                      "HCCL_BUFFSIZE only; hccl_buffer_size.ep is ignored for this check")


CHECKS = (window_checks, buffer_values)
