"""Tutel MoE layer (MC701-MC708): experts vs GPUs, adaptive parallelism, expert sharding and overlap.

Tutel places E experts on W GPUs: E >= W needs `E % W == 0` (E / W local experts); E < W means
`s = W / E` GPUs share each expert and needs `W % E == 0` (MC702). `adaptive_degree` r is clamped to
[0, s] and must then be 0 or a divisor of s ("Unexpected value of adaptive_degree", MC703); r = 0 is
data parallel, 1 DP+EP, s MP+EP. Each GPU holds `hidden_size_per_expert / s` of an expert, so
`hidden_size_per_expert % s == 0` (MC704); `model_dim` must be even (MC705). `a2a_ffn_overlap_degree` is
at most 32 and must divide the split dimension of the dispatched tensor (capacity C, or C * r / s when
E < W) (MC706). Capacity follows Tutel exactly: `top_k * int(capacity_factor * ceil(tokens / E))`
(Python float product, so 1.15 x 100 gives 114), rounded up to `alignment = ceil(s * overlap / mega) *
mega` (multiples of 128 above 256), where Tutel uses megablocks only on one GPU with several experts and
autograd off, else mega = 1 (MC708 warns); capacity_factor <= 0 needs `max_expert_load`. MC707 (info) compares r
with the communication model: all-to-all `4 * r * D` plus expert zero-gather `2 * (P/E/r - P/E/s)` bytes per
training step, D = E * C * model_dim * dtype bytes, P = E * (2 * M * H + H + M) * dtype bytes.
"""
from __future__ import annotations

import math

from moecfg.core.diagnostics import Finding
from moecfg.core.registry import lazy_module, rule
from moecfg.core.input_rules import MISSING_KEY
from moecfg.backends.tutel.ops.moe_layer import formulas as fx
from moecfg.backends.tutel.ops.moe_layer.model import communication, recommended_degree

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.tutel.ops.moe_layer.examples_base")
_F = "tutel"
VALUE_RANGE = rule("MC701", "tutel-value-range", "error", "Tutel counts positive, overlap >= 1, megablocks and max load >= 0",
                   family=_F, source="tutel/impls/moe_layer.py, fast_dispatch.py",
                   docs=lambda: dict(
                       why="Tutel sizes the capacity and the expert shards from these counts: a zero or negative value "
                           "raises in moe_layer (ZeroDivisionError, or \"Unexpected value\") or builds empty tensors. moecfg "
                           "skips the other Tutel rules for the document.",
                       fail_example=eg.ex(eg.TUTEL, tokens_per_device=0), pass_example=eg.ex(eg.TUTEL),
                       fix="Counts >= 1, a2a_ffn_overlap_degree >= 1, megablocks_size and max_expert_load >= 0."))
EXPERTS_WORLD = rule("MC702", "tutel-experts-world-divisibility", "error", "E % W == 0 (E >= W) or W % E == 0 (E < W)",
                     family=_F, source="tutel/impls/moe_layer.py global_expert_count, sharded_count",
                     docs=lambda: dict(
                         why="tutel/impls/moe_layer.py cannot place the experts: with fewer experts than GPUs each expert is "
                             "shared by W / E GPUs (num_local_experts = -W / E), which must be a whole number, else the layer's "
                             "constructor asserts (the error below: num_local_experts = -3 on 16 GPUs); with more, every GPU holds "
                             "E / W.",
                         cann_error="AssertionError: Excepting 3 devices to share an expert param, while global device count "
                                    "is 16.", fail_example=eg.ex(eg.TUTEL, num_global_experts=6, adaptive_degree=2),
                         pass_example=eg.ex(eg.TUTEL),
                         fix="num_global_experts a multiple of world_size, or a divisor of it."))
ADAPTIVE_DEGREE = rule("MC703", "tutel-adaptive-degree", "error", "adaptive_degree is 0 or a divisor of W / E",
                       family=_F, source="tutel/impls/moe_layer.py valid_rs ('Unexpected value of adaptive_degree')",
                       docs=lambda: dict(
                           why="moe_layer raises at construction when parallel_type 'adaptive:r' is not 0 or a divisor of "
                               "sharded_count = W / E (values above it are silently clamped: a warning).",
                           cann_error="Exception: Unexpected value of adaptive_degree: 3, expecting a candidate within [0, 1, 2, 4].",
                           fail_example=eg.ex(eg.TUTEL, adaptive_degree=3), pass_example=eg.ex(eg.TUTEL),
                           fix="Use 0 (DP), 1 (DP+EP), W / E (MP+EP) or another divisor of W / E."))
HIDDEN_SHARDING = rule("MC704", "tutel-hidden-sharding", "error", "hidden_size_per_expert % sharded_count == 0",
                       family=_F, source="tutel/experts/ffn.py",
                       docs=lambda: dict(
                           why="tutel/experts/ffn.py splits every expert's FFN over the sharded_count GPUs that share it: an "
                               "uneven split fails when the expert is built.",
                           fail_example=eg.ex(eg.TUTEL, hidden_size_per_expert=8190), pass_example=eg.ex(eg.TUTEL),
                           fix="Use a hidden_size_per_expert divisible by world_size / num_global_experts."))
MODEL_DIM_EVEN = rule("MC705", "tutel-model-dim-even", "error", "model_dim is even", family=_F,
                      source="tutel/impls/moe_layer.py MOELayer.__init__ (assert model_dim % 2 == 0)",
                      docs=lambda: dict(
                          why="moe_layer asserts an even model dimension when the layer is built.",
                          cann_error="AssertionError: Model_dim (2047) must be even value, while this Model_dim mod 2 > 0.",
                          fail_example=eg.ex(eg.TUTEL, model_dim=2047), pass_example=eg.ex(eg.TUTEL),
                          fix="Use an even model_dim."))
OVERLAP = rule("MC706", "tutel-overlap-degree", "error", "a2a_ffn_overlap_degree <= 32 and divides the split capacity",
               family=_F, source="tutel/impls/overlap.py a2a_ffn_overlap_forward",
               docs=lambda: dict(
                   why="tutel/impls/overlap.py asserts at the first forward: at most AllToAllStatus.max_num_split = 32 "
                       "splits, and the split dimension (the capacity) must divide evenly.",
                   fail_example=eg.ex(eg.TUTEL, a2a_ffn_overlap_degree=64),
                   pass_example=eg.ex(eg.TUTEL, a2a_ffn_overlap_degree=2),
                   fix="a2a_ffn_overlap_degree <= 32 and a divisor of the capacity (a megablocks_size that is a "
                       "multiple of it aligns the capacity, but only in single-GPU inference with several local experts: "
                       "elsewhere Tutel forces megablocks_size to 0, MC708)."))
MEGABLOCKS_OFF = rule(
    "MC708", "tutel-megablocks-ignored", "warning", "megablocks_size > 0 is forced to 0 (world_size > 1, one local "
    "expert, or grad enabled)", family=_F, source="microsoft/tutel@82af7aa tutel/impls/moe_layer.py:278-280",
    why="MOELayer.forward sets megablocks_size = 0 unless the layer runs on one GPU (world_size 1) holding several "
    "experts with autograd off (torch.no_grad() / inference_mode()). Nothing fails: the capacity is aligned to "
    "sharded_count * a2a_ffn_overlap_degree only, so a capacity, alignment or overlap split planned around the "
    "megablocks block size is not the one Tutel uses.",
    cann_error="(none: Tutel switches megablocks off silently)",
    fail_example="kind: tutel\nworld_size: 16\nnum_global_experts: 16\ntokens_per_device: 400\nmodel_dim: 2048\n"
    "hidden_size_per_expert: 8192\nmegablocks_size: 4\n",
    pass_example="kind: tutel\nworld_size: 1\nnum_global_experts: 4\ntokens_per_device: 400\nmodel_dim: 2048\n"
    "hidden_size_per_expert: 8192\nmegablocks_size: 4\ngrad_enabled: false\nadaptive_degree: 0\n",
    fix="Drop megablocks_size (it only applies to single-GPU inference with several local experts), or run that "
    "inference with grad_enabled: false.")
DEGREE_ADVICE = rule("MC707", "tutel-adaptive-degree-advice", "info", "another adaptive_degree moves fewer bytes (section 2.3 model)",
                     family=_F, source="gpu-rules.md 2.3 (derived from tutel/impls/moe_layer.py, tutel/experts/ffn.py)",
                     docs=lambda: dict(
                         why="Nothing fails: this is moecfg's communication model (gpu-rules 2.3, derived from Tutel's code, "
                             "not measured), which finds an adaptive_degree that moves fewer bytes per training step.",
                         fail_example=eg.ex(eg.TUTEL, adaptive_degree=1), pass_example=eg.ex(eg.TUTEL),
                         fix="Try the adaptive_degree the message names and measure the step time before switching."))

MAX_WORLD_SIZE = 1 << 20  # moecfg's own bound: adaptive degrees are the divisors of W / E
_POSITIVE = ("world_size", "num_global_experts", "top_k", "tokens_per_device", "model_dim", "hidden_size_per_expert",
             "a2a_ffn_overlap_degree")


def value_ranges(t):
    """Gate: errors here stop the other rules (they would divide by zero or size nothing)."""
    for name in _POSITIVE:
        if getattr(t, name) < 1:
            yield Finding(VALUE_RANGE.code, (name,), f"`{name}` = {getattr(t, name)} must be >= 1")
    if t.world_size > MAX_WORLD_SIZE:
        yield Finding(VALUE_RANGE.code, ("world_size",), f"`world_size` = {t.world_size} is above the {MAX_WORLD_SIZE} "
                      "GPUs moecfg models (it enumerates the adaptive degrees)")
    if t.megablocks_size < 0:
        yield Finding(VALUE_RANGE.code, ("megablocks_size",), f"`megablocks_size` = {t.megablocks_size} must be >= 0")
    if not math.isfinite(t.capacity_factor):
        yield Finding(VALUE_RANGE.code, ("capacity_factor",), f"`capacity_factor` = {t.capacity_factor} must be finite")
    elif t.num_global_experts >= 1 and t.tokens_per_device >= 1:
        bound = abs(t.capacity_factor) * fx.samples_per_expert(t.tokens_per_device, t.num_global_experts)
        if not math.isfinite(bound):
            yield Finding(VALUE_RANGE.code, ("capacity_factor",), f"`capacity_factor` = {t.capacity_factor} times the "
                          "samples per expert overflows a float; Tutel's int(cf * samples) raises OverflowError")
    load = t.max_expert_load
    if load is not None and load < 0:
        yield Finding(VALUE_RANGE.code, ("max_expert_load",), f"`max_expert_load` = {load} must be >= 0")
    if t.capacity_factor <= 0 and load is None:
        yield Finding(MISSING_KEY.code, (), f"missing required key `max_expert_load`: capacity_factor = "
                      f"{t.capacity_factor} sizes capacity by the largest per-expert load (Tutel all-reduces it at run time)")


def experts_world(t, f):
    e, w = t.num_global_experts, t.world_size
    if e >= w and e % w:
        yield Finding(EXPERTS_WORLD.code, ("num_global_experts",), f"`num_global_experts` = {e} is not divisible by "
                      f"world_size = {w}: every GPU holds the same number of experts; nearest valid: {e // w * w} or "
                      f"{(e // w + 1) * w}")
    elif e < w and w % e:
        shareable = [d for d in fx.valid_adaptive_degrees(w) if d > 0]  # expert counts W GPUs share evenly
        near = f"{max(d for d in shareable if d < e)} or {min(d for d in shareable if d > e)}"
        yield Finding(EXPERTS_WORLD.code, ("num_global_experts",), f"`num_global_experts` = {e} < world_size = {w} "
                      f"needs world_size % num_global_experts == 0: W / E GPUs share one expert and {w} / {e} is not "
                      "a whole number (Tutel's num_local_experts = -GPUs per expert; it asserts world_size % GPUs per "
                      f"expert == 0: \"Excepting N devices to share an expert param, while global device count is "
                      f"{w}.\"); nearest valid: {near}")


def adaptive_degree(t, f):
    r, s = t.adaptive_degree, f.sharded_count
    if f.degree not in f.valid_degrees:
        yield Finding(ADAPTIVE_DEGREE.code, ("adaptive_degree",), f"`adaptive_degree` = {r}: Tutel: \"Unexpected value "
                      f"of adaptive_degree: {r}, expecting a candidate within {list(f.valid_degrees)}\" (0 or a divisor "
                      f"of sharded_count = world_size / num_global_experts = {s})")
    elif f.degree != r:
        yield Finding(ADAPTIVE_DEGREE.code, ("adaptive_degree",), f"`adaptive_degree` = {r} is outside [0, {s}]; Tutel "
                      f"silently clamps it to {f.degree}; write {f.degree}", "warning")


def hidden_sharding(t, f):
    h, s = t.hidden_size_per_expert, f.sharded_count
    if h % s:
        yield Finding(HIDDEN_SHARDING.code, ("hidden_size_per_expert",), f"`hidden_size_per_expert` = {h} is not "
                      f"divisible by sharded_count = {s} (each of the {s} GPUs sharing an expert holds H / {s}); nearest "
                      f"valid: {h // s * s or s} or {(h // s + 1) * s}")


def model_dim_even(t, f):
    if t.model_dim % 2:
        yield Finding(MODEL_DIM_EVEN.code, ("model_dim",), f"`model_dim` = {t.model_dim} must be even; Tutel: "
                      f"\"Model_dim ({t.model_dim}) must be even value, while this Model_dim mod 2 > 0.\"")


def overlap(t, f):
    o = t.a2a_ffn_overlap_degree
    if o > fx.MAX_A2A_FFN_OVERLAP_DEGREE:
        yield Finding(OVERLAP.code, ("a2a_ffn_overlap_degree",), f"`a2a_ffn_overlap_degree` = {o} exceeds "
                      f"AllToAllStatus.max_num_split = {fx.MAX_A2A_FFN_OVERLAP_DEGREE}")
        return
    if o == 1 or f.degree == 0:
        return
    split, what = f.capacity, f"capacity {f.capacity}"
    if t.num_global_experts < t.world_size:
        split, what = f.capacity * f.degree // f.sharded_count, f"capacity * r / s = {f.capacity} * {f.degree} / {f.sharded_count}"
    if split % o:
        yield Finding(OVERLAP.code, ("a2a_ffn_overlap_degree",), f"`a2a_ffn_overlap_degree` = {o} does not divide the "
                      f"split dimension of the dispatched tensor ({what} = {split}); Tutel asserts input.shape[1] % "
                      f"a2a_ffn_overlap_degree == 0; {_overlap_fix(t, o, split)}")


def _overlap_fix(t, o: int, split: int) -> str:
    if fx.effective_megablocks_size(1, max(t.num_global_experts // t.world_size, 1), t.grad_enabled, t.world_size):
        return f"use a megablocks_size that is a multiple of {o}, or a divisor of {split}"
    return f"use a divisor of {split} (megablocks_size cannot align it here: {_megablocks_off_reason(t)})"


def _megablocks_off_reason(t) -> str:
    why = []
    if t.world_size > 1:
        why.append(f"world_size = {t.world_size} > 1")
    if max(t.num_global_experts // t.world_size, 1) <= 1:
        why.append("one local expert per GPU")
    if t.grad_enabled:
        why.append("grad_enabled (training)")
    return "Tutel forces it to 0 with " + ", ".join(why)


def megablocks_ignored(t, f):
    if t.megablocks_size > 0 and f.megablocks_size == 0:
        yield Finding(MEGABLOCKS_OFF.code, ("megablocks_size",), f"`megablocks_size` = {t.megablocks_size} is ignored: "
                      f"{_megablocks_off_reason(t)} (tutel moe_layer.py:278-280); capacity {f.capacity} is aligned to "
                      f"{f.alignment} = sharded_count * a2a_ffn_overlap_degree without it; drop megablocks_size or run "
                      "single-GPU inference with grad_enabled: false")


def degree_advice(t, f):
    if f.degree not in f.valid_degrees or len(f.valid_degrees) < 2:
        return
    best = recommended_degree(t, f)
    if best == f.degree:
        return
    cost = {row["r"]: row["total_bytes"] for row in communication(t, f)}
    yield Finding(DEGREE_ADVICE.code, ("adaptive_degree",), f"adaptive_degree r = {f.degree} moves {cost[f.degree]} "
                  f"bytes per GPU per training step (all-to-all + expert zero-gather); r = {best} moves {cost[best]} "
                  "(moecfg's model of Tutel's communication, gpu-rules 2.3; measure before switching)")


CHECKS = (experts_world, adaptive_degree, hidden_sharding, model_dim_even, overlap, megablocks_ignored, degree_advice)
