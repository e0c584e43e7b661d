"""MindSpeed's per-group HCCL buffers: `--hccl-group-buffer "dp:200;tp:300;exp:400"` (MB) parsed as MindSpeed parses
it, and `--hccl-group-buffer-adaptive`'s formulas. Read at Ascend/MindSpeed@028de58 (MS below),
mindspeed/core/hccl_buffer/hccl_adaptive_func.py (HAF) and adaptor.py:
- syntax (HAF:45-67): split on ',' when the text holds one, else on ';'; every part `key:value` (exactly one ':'),
  blanks removed; key in ALLOWED_KEYS (HAF:12-43) else "Key '<k>' is not allowed in --hccl-group-buffer"; value
  int() > 0 else "'<v>' is not a valid positive integer for key '<k>'" / "Value <v> for key '<k>' must be greater
  than 0"; any other part (a trailing ';' leaves an empty one) "The value format of --hccl-group-buffer is not
  valid. Expected 'key:value' pairs separated by ';'". All RuntimeError, raised in initialize_model_parallel
  (adaptor.py:46-57), i.e. at start-up.
- adaptive (HAF:78-359): per group MB from seq S, micro-batch B, hidden H, CP, TP, EP, top-k, the dispatcher and
  --hccl-ep-group-buffer-adaptive-factor f (default -1.0: EP groups get the constant 200); each `2 x ceil(bytes /
  MiB)` (the 2: bf16). The cp groups by --context-parallel-algo (MindSpeed-LLM's default megatron_cp_algo,
  mindspeed_llm/features_manager/context_parallel/context_parallel_feature.py:21-24 at Ascend/MindSpeed-LLM@c77308a):
  ulysses, megatron (ring; --cp-window-size, --use-cp-send-recv-overlap) and hybrid (--ulysses-degree-in-cp).
- applied (adaptor.py:16-28): get_nccl_options returns {"hccl_buffer_size": MB} for a group named in the table ONLY
  when --hccl-group-buffer-adaptive is set; otherwise every group keeps HCCL's process-wide HCCL_BUFFSIZE. Both
  flags: the adaptive wrapper runs first (registered last, MS mindspeed/patch_utils.py:123-124), then the manual
  entries override it key by key.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from moecfg.frameworks.values import clipped, integer

HAF = "Ascend/MindSpeed@028de58 mindspeed/core/hccl_buffer/hccl_adaptive_func.py"
_H = "hccl_adaptive_func.py"  # in per-group texts
ALLOWED_KEYS = ("dp", "dp_cp", "cp", "mp", "mp_exp", "tp", "pp", "embd", "tp_dp_cp", "tp_dp", "tp_cp", "tp_exp",
                "tp_ep_mp", "exp", "ep", "dp_modulo_exp", "pp_new_stream", "cp2", "cp_ulysses", "cp_ring",
                "cp_ring_intra", "cp_ring_intra_overlap", "nd1_dim1", "ag_x_sd_rcv_overlap", "nd1_dim2",
                "ag_y_sd_rcv_overlap", "nd2_dim1", "nd2_dim2", "default_group")
MIB = 1024 * 1024


class SyntaxRefused(ValueError):
    """What MindSpeed raises for this --hccl-group-buffer text (the message is MindSpeed's own)."""


def parse_group_buffer(text: str) -> dict[str, int]:
    """{group: MB} as HAF:45-67 reads `text`; raises SyntaxRefused with MindSpeed's message."""
    out: dict[str, int] = {}
    if not text:
        return out
    parts = text.split(";") if "," not in text else text.split(",")
    for part in parts:
        pair = part.split(":")
        if len(pair) != 2:
            raise SyntaxRefused("The value format of --hccl-group-buffer is not valid. Expected 'key:value' pairs "
                                "separated by ';'")
        key, value = (p.strip().replace(" ", "") for p in pair)
        if key not in ALLOWED_KEYS:  # MindSpeed's messages, with the file's text clipped
            raise SyntaxRefused(f"Key '{clipped(key)}' is not allowed in --hccl-group-buffer")
        number = integer(value)
        if number is None:
            raise SyntaxRefused(f"'{clipped(value)}' is not a valid positive integer for key '{key}'")
        if number <= 0:
            raise SyntaxRefused(f"Value {clipped(number)} for key '{key}' must be greater than 0")
        out[key] = number
    return out


@dataclass(frozen=True, slots=True)
class Shape:
    """What the adaptive formulas read (MindSpeed's args names)."""

    seq: int
    mbs: int
    hidden: int
    tp: int
    cp: int
    ep: int
    topk: int
    dispatcher: str
    sequence_parallel: bool
    factor: float  # --hccl-ep-group-buffer-adaptive-factor
    tp_extend_ep: bool
    cp_algo: str = "megatron_cp_algo"  # MindSpeed-LLM's default (context_parallel_feature.py:21-24)
    heads: int | None = None  # --num-attention-heads (ring attention)
    query_groups: int | None = None  # --num-query-groups with --group-query-attention, else None
    window: int = 1  # --cp-window-size
    overlap: bool = False  # --use-cp-send-recv-overlap
    ulysses: int | None = None  # --ulysses-degree-in-cp (hybrid_cp_algo)


def _mb(volume: float) -> int:
    """2 x ceil(volume / MiB), as every line of HAF writes it."""
    return 2 * math.ceil(volume / MIB)


def adaptive(s: Shape) -> dict[str, tuple[int, str]]:
    """{group: (MB, how)} as hccl_buffer_auto_adaptive sets them (HAF:78-212, the ulysses branch :218-228)."""
    out: dict[str, tuple[int, str]] = {}
    tokens = f"S {s.seq} / CP {s.cp} x B {s.mbs} x H {s.hidden}"
    mlp = _mb(s.seq / s.cp * s.mbs * s.hidden)
    tp = (mlp, f"2 x ceil({tokens} / MiB) (sequence parallel)") if s.sequence_parallel else \
        (2 * mlp, f"2 x 2 x ceil({tokens} / MiB) (no sequence parallel)")
    if s.dispatcher == "alltoall_seq":
        moe = _mb(s.factor * s.seq / s.cp / s.tp * s.mbs * s.hidden * s.topk) if s.factor > 0 else 200
        if moe > tp[0]:
            tp = (moe, f"2 x ceil(f {s.factor:g} x S {s.seq} / CP {s.cp} / TP {s.tp} x B {s.mbs} x H {s.hidden} x "
                       f"top-k {s.topk} / MiB) (alltoall_seq; > the dense {tp[0]})" if s.factor > 0 else
                       f"200 (alltoall_seq without a factor; > the dense {tp[0]})")
    out["tp"] = (tp[0], f"{tp[1]} ({_H}:98-131)")
    per_tp = f"S {s.seq} / CP {s.cp} / TP {s.tp} x B {s.mbs} x H {s.hidden}"
    pp = _mb(s.seq / s.cp / s.tp * s.mbs * s.hidden) if s.sequence_parallel else _mb(s.seq / s.cp * s.mbs * s.hidden)
    pp_how = f"2 x ceil({per_tp if s.sequence_parallel else tokens} / MiB) ({_H}:133-150)"
    out["pp"] = out["pp_new_stream"] = (pp, pp_how)
    out["mp"] = out["mp_exp"] = (10, f"constant 10 ({_H}:152-155)")
    if s.factor > 0:
        out["exp"] = (_mb(s.seq / s.cp / s.tp * s.mbs * s.hidden * s.topk),
                      f"2 x ceil({per_tp} x top-k {s.topk} / MiB) ({_H}:157-172; the factor only gates it)")
    else:
        out["exp"] = (200, f"200: --hccl-ep-group-buffer-adaptive-factor not > 0 ({_H}:170-172)")
    if s.dispatcher == "allgather":
        out["tp_exp"] = (_mb(s.factor * s.seq / s.cp * s.mbs * s.hidden * s.ep), f"2 x ceil(f {s.factor:g} x {tokens} "
                         f"x EP {s.ep} / MiB) ({_H}:177-191)") if s.factor > 0 else (200, f"200 ({_H}:189-191)")
    elif s.dispatcher == "alltoall_seq" and s.tp_extend_ep:
        out["tp_exp"] = (_mb(s.factor * s.seq / s.cp / s.tp * s.mbs * s.hidden * s.topk), f"2 x ceil(f {s.factor:g} "
                         f"x {per_tp} x top-k {s.topk} / MiB) ({_H}:192-209)") if s.factor > 0 else \
            (200, f"200 ({_H}:207-209)")
    out["tp_cp"] = (10, f"constant 10 ({_H}:211-212)")
    if s.cp > 1:  # a one-rank cp group has no communicator: its size is not needed (nor the heads it reads)
        out |= _context_parallel(s)
    return out


def _context_parallel(s: Shape) -> dict[str, tuple[int, str]]:
    """The cp groups (HAF:214-359); raises ValueError when a value the algorithm reads is not known."""
    if s.cp_algo == "ulysses_cp_algo":
        return {"cp": (_mb(s.seq / s.cp * s.mbs * s.hidden / s.tp), f"2 x ceil(S {s.seq} / CP {s.cp} x B {s.mbs} x "
                       f"H {s.hidden} / TP {s.tp} / MiB) (ulysses_cp_algo, {_H}:218-228)")}
    if s.cp_algo not in ("megatron_cp_algo", "hybrid_cp_algo"):
        raise ValueError(f"--context-parallel-algo {s.cp_algo}: not an algorithm MindSpeed sizes")
    if s.heads is None:
        raise ValueError(f"{s.cp_algo} sizes the cp groups by --num-attention-heads")
    kv = f" x groups {s.query_groups}" if s.query_groups else ""

    def per_head(x: float) -> float:  # in HAF's order: / heads (x groups) / TP
        x = x / s.heads
        return (x * s.query_groups if s.query_groups else x) / s.tp

    if s.cp_algo == "megatron_cp_algo":
        one = _mb(per_head(s.seq / s.cp * s.mbs * s.hidden))
        text = f"ceil(S {s.seq} / CP {s.cp} x B {s.mbs} x H {s.hidden} / heads {s.heads}{kv} / TP {s.tp} / MiB)"
        cp = (one, f"2 x {text} (send-recv overlap)") if s.overlap else (2 * one, f"2 x 2 x {text}")
        return _with_ring_groups({"cp": (cp[0], f"{cp[1]} (megatron_cp_algo, {_H}:229-297)")}, "cp", s)
    if not s.ulysses or s.cp % s.ulysses:
        raise ValueError("hybrid_cp_algo sizes the cp groups by --ulysses-degree-in-cp (a divisor of CP)")
    ring_cp = s.cp // s.ulysses
    uly = _mb(s.seq / s.ulysses * s.mbs * s.hidden / s.tp)
    ring = _mb(per_head(s.seq / ring_cp * s.mbs * s.hidden))
    ring = ring if s.overlap else 2 * ring
    out = {"cp": (10, f"constant 10 (hybrid_cp_algo: the loss only, {_H}:340-359)"),
           "cp_ulysses": (uly, f"2 x ceil(S {s.seq} / ulysses {s.ulysses} x B {s.mbs} x H {s.hidden} / TP {s.tp} / "
                               f"MiB) ({_H}:298-309)"),
           "cp_ring": (ring, f"{'' if s.overlap else '2 x '}2 x ceil(S {s.seq} / ring {ring_cp} x B {s.mbs} x H "
                             f"{s.hidden} / heads {s.heads}{kv} / TP {s.tp} / MiB) ({_H}:310-359)")}
    return _with_ring_groups(out, "cp_ring", s)


def _with_ring_groups(out: dict, ring: str, s) -> dict:
    """The groups sized like the ring group: cp2 (send-recv overlap), cp_ring_intra (a window > 1) and its overlap."""
    if s.overlap:
        out["cp2"] = out[ring]
    if s.window > 1:
        out["cp_ring_intra"] = out[ring]
        if s.overlap:
            out["cp_ring_intra_overlap"] = out[ring]
    return out
