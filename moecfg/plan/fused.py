"""`moecfg plan --set op=mega_moe|dispatch_ffn_combine`: per EP size, the smallest HCCL_BUFFSIZE for a token
count (`--bs`), or the most tokens per rank a buffer holds (`--buffer`; mega_moe: num_max_tokens_per_rank up
to 4096). Every answer, and the next value (buffer - 1 MB, tokens + 1), is judged by the same engine as
`moecfg check`; an EP size the ops refuse lists its rule codes. `moecfg sweep` with the same `--set op=...`
draws the window the op needs against tokens per rank or EP size (sweep()). The sgl-kernel-npu DeepEP ops
(sgl_deepep_normal / sgl_deepep_low_latency) are solved the same way; plan/sgl.py places their tokens and buffer.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import yaml

from moecfg.core.diagnostics import ERROR
from moecfg.checking.engine import lint_text
from moecfg.backends import Options
from moecfg.plan import sgl

FUSED_OPS = ("mega_moe", "dispatch_ffn_combine") + sgl.OPS
_WINDOW = {"mega_moe": "ccl_window", "dispatch_ffn_combine": "hccl_window", **{op: "ep" for op in sgl.OPS}}
_MAX_TOKENS = {"mega_moe": 4096, "dispatch_ffn_combine": 1 << 16}  # mega_moe: the bs / wrapper limit
_PROBE_MB = 65535  # the largest HCCL_BUFFSIZE the ops read as given (sgl: parsed into 16 bits)
_NO_WINDOW = "no window check modelled"  # sgl DeepEP on A2 across servers (no host check), or comm_alg ccu


@dataclass
class FusedAnswer:
    ep: int
    tokens: int | None
    buffer_mb: int | None
    required_mb: int | None = None
    codes: tuple = ()  # error codes of the answer
    next_codes: tuple = ()  # error codes of the next value
    doc: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.tokens is not None and self.buffer_mb is not None and not self.codes


def _doc(base: dict, ep: int, tokens: int, buffer_mb: int) -> dict:
    if base["op"] in sgl.OPS:
        return sgl.doc(base, ep, tokens, buffer_mb)
    d = {**base, "ep_world_size": ep, "bs": tokens, "env": {**sgl.env_of(base), "HCCL_BUFFSIZE": buffer_mb}}
    if d["op"] == "mega_moe":
        d["num_max_tokens_per_rank"] = tokens
    elif "max_output_size" not in base:  # dispatch_ffn_combine: room for the worst case, bs * ep * min(k, e/ep)
        d["max_output_size"] = max(1, tokens * ep * min(d.get("k", 1), max(1, d.get("moe_expert_num", 0) // ep)))
    return d


def _lint(doc: dict, cann):
    (result,) = lint_text(yaml.safe_dump(doc, sort_keys=False), "<plan>", Options(cann=cann))[:1]
    return result


def _errors(result) -> tuple:
    return tuple(sorted({d.code for d in result.diagnostics if d.severity == ERROR}))


def _required_mb(base: dict, ep: int, tokens: int, cann) -> int | None:
    window = _lint(_doc(base, ep, tokens, _PROBE_MB), cann).buffers.get(_WINDOW[base["op"]])
    return window["required_mb"] if window else None


def _fits(base: dict, ep: int, tokens: int, buffer_mb: int, cann) -> bool:
    need = _required_mb(base, ep, tokens, cann)
    return need is not None and need <= buffer_mb


def _most_tokens(base: dict, ep: int, buffer_mb: int, cann) -> int | None:
    lo, hi = 0, sgl.max_tokens(base) if base["op"] in sgl.OPS else _MAX_TOKENS[base["op"]]  # the window grows with tokens: binary search the largest that fits
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if _fits(base, ep, mid, buffer_mb, cann) else (lo, mid - 1)
    return lo or None


def solve(base: dict, cann, eps, tokens: int | None, buffer_mb: int | None) -> list[FusedAnswer]:
    out = []
    for ep in eps:
        t = tokens if tokens is not None else _most_tokens(base, ep, buffer_mb, cann)
        if t is None:
            out.append(FusedAnswer(ep, None, buffer_mb, codes=("no token count fits",)))
            continue
        need = _required_mb(base, ep, t, cann)
        mb = buffer_mb if buffer_mb is not None else need
        if mb is None:
            probe = _lint(_doc(base, ep, t, _PROBE_MB), cann)
            out.append(FusedAnswer(ep, t, None, codes=_errors(probe) or (_NO_WINDOW,)))
            continue
        doc = _doc(base, ep, t, mb)
        nxt = _doc(base, ep, t + 1, mb) if tokens is None else _doc(base, ep, t, mb - 1)
        result = _lint(doc, cann)
        if "cann_version" not in doc and base["op"] not in sgl.OPS:  # pin the rule set it was solved with: the emitted file checks clean
            doc = {"cann_version": cann or result.ruleset, **doc}
        out.append(FusedAnswer(ep, t, mb, need, _errors(result), _errors(_lint(nxt, cann)), doc))
    return out


def _row(a: FusedAnswer, what: str) -> str:
    verdict = "ok" if a.ok else "rejected: " + ", ".join(a.codes)
    nxt = f"{what} {a.tokens + 1 if what == 'tokens' else (a.buffer_mb or 0) - 1}: {', '.join(a.next_codes) or 'ok'}"
    return f"{a.ep:>5} {a.tokens if a.tokens is not None else '-':>7} {a.buffer_mb if a.buffer_mb is not None else '-':>9}" \
           f" {a.required_mb if a.required_mb is not None else '-':>9}  {verdict:<24} {nxt if a.tokens and a.buffer_mb else ''}"


def plan_text(answers, base: dict, solving_tokens: bool) -> str:
    buffer = sgl.buffer_names(base) if base["op"] in sgl.OPS else "HCCL_BUFFSIZE"
    title = (f"{base.get('product')} {base['op']}: " + (f"most tokens per rank for {buffer}"
             if solving_tokens else f"smallest {buffer} per EP size"))
    lines = [title] + ([sgl.tokens_meaning(base)] if base["op"] in sgl.OPS else []) + [ f"{'ep':>5} {'tokens':>7} {'buffer MB':>9} {'needs MB':>9}  {'verdict':<24} next value"]
    lines += [_row(a, "tokens" if solving_tokens else "buffer") for a in answers]
    lines.append(f"{sum(a.ok for a in answers)} of {len(answers)} EP sizes valid")
    return "\n".join(lines) + "\n"


def plan_json(answers) -> str:
    rows = [{"ep_world_size": a.ep, "tokens": a.tokens, "hccl_buffsize_mb": a.buffer_mb, "required_mb": a.required_mb,
             "ok": a.ok, "codes": list(a.codes), "next_codes": list(a.next_codes)} for a in answers]
    return json.dumps({"answers": rows}, indent=2) + "\n"


def plan_yaml(answers) -> str:
    docs = [a.doc for a in answers if a.ok]
    return yaml.safe_dump_all(docs, sort_keys=False) if docs else ""


def sweep(base: dict, cann, vs: str, xs: list, fixed: int, rulesets, buffer_mb: int | None):
    """The window (bytes) the op needs per x, one series per rule set, as a plan.sweep.Sweep for its renderers."""
    from moecfg.plan.sweep import Series, Sweep

    series = []
    for name in rulesets or [cann]:
        pts, rejected, shown = [], [], name
        for x in xs:
            ep, tokens = (fixed, x) if vs == "bs" else (x, fixed)
            result = _lint(_doc(base, ep, tokens, _PROBE_MB), name)
            window = result.buffers.get(_WINDOW[base["op"]])
            pts.append({"ep": window["required_bytes"]} if window else {})
            rejected.append(_errors(result))  # a point past a limit is marked, not drawn as valid
            shown = result.ruleset or shown
        series.append(Series(base["op"], shown or "latest", pts, rejected))
    other = "ep_world_size" if vs == "bs" else "bs"
    return Sweep(vs, list(xs), {other: fixed}, series, {"configured buffer": buffer_mb} if buffer_mb else {})
