"""The validated `kind: tutel` document (`TutelDeployment`) and what Tutel derives from it (`Facts`)."""
from __future__ import annotations

from moecfg.core.record import field_names, record
from moecfg.backends.tutel.ops.moe_layer import formulas as fx

DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}


@record(frozen=True, slots=True)
class TutelDeployment:
    """A validated Tutel document: the moe_layer's arguments."""

    world_size: int
    num_global_experts: int
    top_k: int
    capacity_factor: float
    tokens_per_device: int
    model_dim: int
    hidden_size_per_expert: int
    dtype: str
    adaptive_degree: int
    a2a_ffn_overlap_degree: int
    megablocks_size: int
    max_expert_load: int | None
    grad_enabled: bool = True

    @classmethod
    def from_values(cls, values: dict) -> "TutelDeployment":
        return cls(**{n: values.get(n) for n in field_names(cls)})

    @property
    def dtype_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]


@record(frozen=True, slots=True)
class Facts:
    """What Tutel derives from a deployment: sharding, local experts, valid adaptive degrees."""

    sharded_count: int  # GPUs sharing one expert (s)
    num_local_experts: int  # experts per GPU (1 when E < W)
    top_k: int  # after clipping to E
    valid_degrees: tuple  # valid r
    degree: int  # r after Tutel's clamp to [0, s]
    megablocks_size: int  # the value forward() uses (0 when Tutel switches megablocks off)
    alignment: int
    samples_per_expert: int
    capacity: int
    dispatch_bytes: int  # D = E * C * M * dtype bytes
    param_bytes: int  # P = E * (2MH + H + M) * dtype bytes


def derive(t: TutelDeployment) -> Facts:
    """Facts of a deployment whose counts are positive (the value-range rule runs first)."""
    e, w = t.num_global_experts, t.world_size
    shards, local = fx.sharded_count(e, w), max(e // w, 1)
    mega = fx.effective_megablocks_size(t.megablocks_size, local, t.grad_enabled, w)
    align = fx.alignment(shards, t.a2a_ffn_overlap_degree, mega)
    cap = fx.capacity(t.tokens_per_device, e, t.top_k, t.capacity_factor, align, t.max_expert_load)
    return Facts(shards, local, min(t.top_k, e), fx.valid_adaptive_degrees(shards),
                 fx.clamp_adaptive_degree(t.adaptive_degree, shards), mega, align,
                 fx.samples_per_expert(t.tokens_per_device, e), cap,
                 fx.dispatch_bytes(e, cap, t.model_dim, t.dtype_bytes),
                 e * fx.ffn_expert_param_count(t.model_dim, t.hidden_size_per_expert) * t.dtype_bytes)


def parallel_mode(r: int, shards: int) -> str:
    """Tutel README v0.2 names of the adaptive degrees."""
    if r == 0:
        return "DP"
    if r == shards and shards > 1:
        return "MP+EP"
    return "DP+EP" if r == 1 else "DP+MP+EP"


def communication(t: TutelDeployment, f: Facts) -> list[dict]:
    """The section 2.3 model per valid r: bytes per GPU per training step."""
    rows = []
    for r in f.valid_degrees:
        a2a = fx.all_to_all_bytes(f.dispatch_bytes, r)
        gather = fx.zero_gather_bytes(f.param_bytes, t.num_global_experts, t.world_size, r)
        rows.append({"r": r, "mode": parallel_mode(r, f.sharded_count), "all_to_all_bytes": a2a,
                     "zero_gather_bytes": gather, "total_bytes": a2a + gather})
    return rows


def recommended_degree(t: TutelDeployment, f: Facts) -> int:
    return fx.recommended_adaptive_degree(f.dispatch_bytes, f.param_bytes, t.num_global_experts, t.world_size)
