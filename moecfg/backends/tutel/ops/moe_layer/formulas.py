"""Tutel formulas as pure functions (spec: gpu-rules.md section 2).

Source tag TUTEL is microsoft/tutel@82af7aad9fc3ec981395ba97e7242a480984a55e. Capacity uses Python
float semantics on purpose: Tutel computes ``int(capacity_factor * samples_per_expert)``, so
1.15 * 100 = 114.99999999999999 truncates to 114.

The communication-volume model (section 2.3) is derived from the code, not from the Tutel paper.
All volumes are bytes per GPU per MoE layer.
"""

from __future__ import annotations

import math
from fractions import Fraction

# tutel/impls/overlap.py AllToAllStatus.max_num_split: a2a_ffn_overlap_degree <= 32.
MAX_A2A_FFN_OVERLAP_DEGREE = 32
# tutel/impls/moe_layer.py forward.routing: alignments above 256 are rounded up to a multiple of 128.
LARGE_ALIGNMENT_THRESHOLD = 256
LARGE_ALIGNMENT_GRANULE = 128


# tutel/impls/moe_layer.py MOELayer.global_expert_count.
def global_expert_count(num_local_experts: int | float, world_size: int) -> int:
    """Number of global experts E for ``num_local_experts`` per GPU (negative: GPUs sharing one expert).

    A non-integer value becomes ``-int(1 / (n + 1e-5))`` as in Tutel, so 0.5 -> -1 and 0.25 -> -3.
    """
    if not isinstance(num_local_experts, int):
        num_local_experts = -int(1 / (num_local_experts + 1e-5))
    if num_local_experts == 0:
        raise ValueError(f"Invalid value of num_local_experts: {num_local_experts}")
    if num_local_experts > 0:
        return num_local_experts * world_size
    if world_size % -num_local_experts != 0:
        raise ValueError(
            f"Excepting {-num_local_experts} devices to share an expert param, "
            f"while global device count is {world_size}."
        )
    return world_size // -num_local_experts


# tutel/impls/moe_layer.py MOELayer.__init__: sharded_count = W // E if E < W else 1.
def sharded_count(num_global_experts: int, world_size: int) -> int:
    """How many GPUs share one expert (floor division, no divisibility check, as in Tutel)."""
    return world_size // num_global_experts if num_global_experts < world_size else 1


# tutel/impls/moe_layer.py MOELayer.__init__ valid_rs.
def valid_adaptive_degrees(sharded_count: int) -> tuple[int, ...]:
    """Valid adaptive parallel degrees r: 0 plus every divisor of ``sharded_count``."""
    small = [i for i in range(1, math.isqrt(max(sharded_count, 0)) + 1) if sharded_count % i == 0]
    large = [sharded_count // i for i in reversed(small) if i * i != sharded_count]
    return (0,) + tuple(small + large)


# tutel/impls/moe_layer.py MOELayer.__init__ 'adaptive:r': min(max(r, 0), sharded_count).
def clamp_adaptive_degree(adaptive_degree: int, sharded_count: int) -> int:
    """The r Tutel keeps for ``parallel_type='adaptive:r'`` before checking it against valid_rs."""
    return min(max(adaptive_degree, 0), sharded_count)


# tutel@82af7aa tutel/impls/moe_layer.py:278-280 MOELayer.forward: megablocks only for inference on one GPU
# holding several experts ("if self.num_local_experts <= 1 or torch.is_grad_enabled() or self.world_size > 1").
def effective_megablocks_size(megablocks_size: int, num_local_experts: int, grad_enabled: bool,
                              world_size: int) -> int:
    """The megablocks_size forward() uses: 0 when Tutel switches megablocks off."""
    if megablocks_size > 0 and (num_local_experts <= 1 or grad_enabled or world_size > 1):
        return 0
    return megablocks_size


# tutel/impls/moe_layer.py forward.routing alignment (megablocks_size and the >256 rounding).
def alignment(sharded_count: int, a2a_ffn_overlap_degree: int = 1, megablocks_size: int = 0) -> int:
    """Capacity alignment: ceil(s * overlap / mega) * mega, then to a multiple of 128 above 256."""
    mega_up = max(megablocks_size, 1)
    value = (sharded_count * a2a_ffn_overlap_degree + mega_up - 1) // mega_up * mega_up
    if value > LARGE_ALIGNMENT_THRESHOLD:
        value = (value + LARGE_ALIGNMENT_GRANULE - 1) // LARGE_ALIGNMENT_GRANULE * LARGE_ALIGNMENT_GRANULE
    return value


# tutel/impls/fast_dispatch.py extract_critical samples_per_expert (integer ceil).
def samples_per_expert(num_samples: int, num_global_experts: int) -> int:
    """ceil(num_samples / num_global_experts) in integer arithmetic."""
    return (num_samples + num_global_experts - 1) // num_global_experts


# tutel/impls/fast_dispatch.py extract_critical capacity.
def capacity(
    num_samples: int,
    num_global_experts: int,
    top_k: int,
    capacity_factor: float,
    alignment: int = 1,
    max_load: int | None = None,
) -> int:
    """Per-expert capacity C of the dispatched tensor [E, C, model_dim].

    - capacity_factor > 0: top_k * int(cf * samples_per_expert) (float product, then truncation);
    - capacity_factor == 0: ``max_load``, the group-wide maximum of tokens assigned to one expert;
    - capacity_factor < 0: min(max_load, top_k * int(-cf * samples_per_expert)).
    top_k is clipped to the number of experts. The result is rounded up to ``alignment``.
    ``num_samples`` is the local token count (group-wide max with inequivalent_tokens=True).
    """
    if alignment <= 0:
        raise ValueError(f"alignment must be positive, got {alignment}")
    top_k = min(top_k, num_global_experts)
    per_expert = samples_per_expert(num_samples, num_global_experts)
    if capacity_factor > 0:
        value = top_k * int(capacity_factor * per_expert)
    else:
        if max_load is None:
            raise ValueError("capacity_factor <= 0 needs max_load (the maximum per-expert assignment count)")
        value = max_load
        if capacity_factor < 0:
            value = min(value, top_k * int(-capacity_factor * per_expert))
    remainder = value % alignment
    if remainder > 0:
        value += alignment - remainder
    return value


# tutel/impls/fast_dispatch.py fast_encode: dispatched tensor [E, capacity, model_dim].
def dispatch_bytes(num_global_experts: int, capacity: int, model_dim: int, dtype_bytes: int) -> int:
    """Bytes of the dispatch tensor each GPU sends into the all-to-all (D in section 2.3)."""
    return num_global_experts * capacity * model_dim * dtype_bytes


# tutel/impls/moe_layer.py MOELayer.__init__ "Unexpected value of adaptive_degree" check.
def _check_degree(num_global_experts: int, world_size: int, adaptive_degree: int) -> int:
    shards = sharded_count(num_global_experts, world_size)
    if adaptive_degree not in valid_adaptive_degrees(shards):
        raise ValueError(
            f"Unexpected value of adaptive_degree: {adaptive_degree}, "
            f"expecting a candidate within {list(valid_adaptive_degrees(shards))}."
        )
    return shards


# gpu-rules.md 2.3 (from tutel/impls/moe_layer.py forward: repeat r times, all-to-all there and back).
def all_to_all_bytes(dispatch_bytes: int, adaptive_degree: int, training: bool = True) -> int:
    """All-to-all bytes: 2*r*D per forward (dispatch + combine), 4*r*D per training step; 0 for r=0."""
    return (4 if training else 2) * adaptive_degree * dispatch_bytes


# gpu-rules.md 2.3 zero-gather volume as an exact fraction (shared by the byte count and the argmin).
def _zero_gather_exact(
    total_expert_param_bytes: int, num_global_experts: int, world_size: int, adaptive_degree: int, training: bool
) -> Fraction:
    shards = _check_degree(num_global_experts, world_size, adaptive_degree)
    if adaptive_degree == 0:
        # every GPU gathers all experts from the whole group: P * (W - 1) / W
        forward = Fraction(total_expert_param_bytes * (world_size - 1), world_size)
    else:
        per_expert = Fraction(total_expert_param_bytes, num_global_experts)
        forward = per_expert / adaptive_degree - per_expert / shards
    return forward * (2 if training else 1)


# gpu-rules.md 2.3 (from tutel/experts/ffn.py forward: zero_gather within s/r GPUs, or all GPUs for r=0).
def zero_gather_bytes(
    total_expert_param_bytes: int,
    num_global_experts: int,
    world_size: int,
    adaptive_degree: int,
    training: bool = True,
) -> int:
    """Expert-parameter gather bytes: P_e/r - P_e/s per forward (r >= 1), P*(W-1)/W for r=0.

    Training adds the mirrored reduce-scatter (x2). Rounded up to a whole byte when P does not
    divide evenly.
    """
    exact = _zero_gather_exact(total_expert_param_bytes, num_global_experts, world_size, adaptive_degree, training)
    return math.ceil(exact)


# gpu-rules.md 2.3 total: 4*r*D + 2*(P_e/r - P_e/s) per training step.
def communication_bytes(
    dispatch_bytes: int,
    total_expert_param_bytes: int,
    num_global_experts: int,
    world_size: int,
    adaptive_degree: int,
    training: bool = True,
) -> int:
    """All-to-all plus zero-gather bytes for one r."""
    return all_to_all_bytes(dispatch_bytes, adaptive_degree, training) + zero_gather_bytes(
        total_expert_param_bytes, num_global_experts, world_size, adaptive_degree, training
    )


# gpu-rules.md 2.3: minimiser of 4*D*r + 2*P/(E*r) is r* = sqrt(P / (2*E*D)).
def continuous_optimal_adaptive_degree(
    dispatch_bytes: int, total_expert_param_bytes: int, num_global_experts: int
) -> float:
    """The real-valued r* of the closed-form model (before snapping to a valid r)."""
    return math.sqrt(total_expert_param_bytes / (2 * num_global_experts * dispatch_bytes))


# gpu-rules.md 2.3: the valid r with the smallest modelled communication.
def recommended_adaptive_degree(
    dispatch_bytes: int,
    total_expert_param_bytes: int,
    num_global_experts: int,
    world_size: int,
    training: bool = True,
    include_data_parallel: bool = True,
) -> int:
    """Valid r minimising all-to-all + zero-gather bytes (exact arithmetic); ties go to the smaller r.

    r = 0 (pure data parallel) is a candidate unless ``include_data_parallel`` is False.
    """
    shards = sharded_count(num_global_experts, world_size)
    candidates = [r for r in valid_adaptive_degrees(shards) if r > 0 or include_data_parallel]

    def cost(r: int) -> Fraction:
        return all_to_all_bytes(dispatch_bytes, r, training) + _zero_gather_exact(
            total_expert_param_bytes, num_global_experts, world_size, r, training
        )

    return min(candidates, key=lambda r: (cost(r), r))


# tutel/experts/ffn.py: fc1_weight [M, H], fc2_weight [H, M], fc1_bias [H], fc2_bias [M] per expert.
def ffn_expert_param_count(model_dim: int, hidden_size_per_expert: int) -> int:
    """Parameters of one Tutel FFN expert (whole expert, before sharding): 2*M*H + H + M."""
    return 2 * model_dim * hidden_size_per_expert + hidden_size_per_expert + model_dim
