"""`kind: tutel` (Tutel's MoE layer): validate the document, derive capacity and parallelism as Tutel does, size the
dispatch tensor."""
from __future__ import annotations

from moecfg.backends import Analysis, Options
from moecfg.core.input_rules import VALIDATOR_CODES
from moecfg.core.fields import Validator
from moecfg.backends.tutel.ops.moe_layer import rules
from moecfg.backends.tutel.ops.moe_layer.fields import FIELDS
from moecfg.backends.tutel.ops.moe_layer.model import Facts, TutelDeployment, communication, derive, recommended_degree

_VALIDATOR = Validator(**VALIDATOR_CODES)


def analyze(doc, options: Options) -> Analysis:
    vals, findings, broken = _VALIDATOR.validate(doc.data, FIELDS, (), doc.raw_scalars)
    out = Analysis(findings=findings, kind="tutel")
    if broken:
        return out
    t = TutelDeployment.from_values(vals)
    gate = list(rules.value_ranges(t))
    findings.extend(gate)
    if gate:
        return out
    f = derive(t)
    for check in rules.CHECKS:
        findings.extend(check(t, f))
    comm = communication(t, f)
    best = recommended_degree(t, f)
    out.buffers = {"dispatch": _dispatch_buffer(t, f, comm, best)}
    out.derived = derived(t, f, comm, best)
    return out


def _dispatch_buffer(t: TutelDeployment, f: Facts, comm: list, best: int) -> dict:
    per_r = ", ".join(f"r={row['r']} ({row['mode']}): {row['total_bytes']} B" for row in comm)
    return {
        "required_bytes": f.dispatch_bytes,
        "sufficient": None,
        "formula": "num_global_experts * capacity * model_dim * dtype_bytes",
        "terms": {"num_global_experts": t.num_global_experts, "capacity": f.capacity, "model_dim": t.model_dim,
                  "dtype_bytes": t.dtype_bytes},
        "note": (f"{_capacity_text(t, f)}; communication per GPU per training step: {per_r}; "
                 f"recommended adaptive_degree = {best}"),
    }


def _capacity_text(t: TutelDeployment, f: Facts) -> str:
    spe = f"ceil({t.tokens_per_device} / {t.num_global_experts}) = {f.samples_per_expert}"
    if t.capacity_factor > 0:
        raw = f"{f.top_k} * int({t.capacity_factor!r} * {f.samples_per_expert})"
    elif t.capacity_factor == 0:
        raw = f"max_expert_load {t.max_expert_load}"
    else:
        raw = f"min({t.max_expert_load}, {f.top_k} * int({-t.capacity_factor!r} * {f.samples_per_expert}))"
    return f"capacity = {raw} with samples_per_expert {spe}, aligned up to {f.alignment} = {f.capacity}"


def derived(t: TutelDeployment, f: Facts, comm: list, best: int) -> dict:
    return {"sharded_count": f.sharded_count, "num_local_experts": f.num_local_experts, "top_k": f.top_k,
            "samples_per_expert": f.samples_per_expert, "megablocks_size": f.megablocks_size,
            "alignment": f.alignment, "capacity": f.capacity,
            "valid_adaptive_degrees": list(f.valid_degrees), "adaptive_degree": f.degree,
            "dispatch_shape": [t.num_global_experts, f.capacity, t.model_dim],
            "expert_param_bytes": f.param_bytes, "communication": comm, "recommended_adaptive_degree": best}
