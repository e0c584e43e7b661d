"""`kind: deepep`, `api: v2`: DeepEP V2 `ElasticBuffer` — validate, check, size the buffer."""
from __future__ import annotations

from moecfg.core.record import field_names, record
from moecfg.backends import Analysis, Options
from moecfg.backends.deepep.ops.v2 import formulas as v2
from moecfg.backends.deepep.ops.v2.fields import V2_FIELDS
from moecfg.backends.deepep.shared.rules import usage
from moecfg.backends.deepep.ops.v2 import rules
from moecfg.backends.device import rules as device_rules


@record(frozen=True, slots=True)
class Elastic:
    num_ranks: int
    num_experts: int
    num_max_tokens_per_rank: int
    hidden: int
    num_topk: int
    use_fp8_dispatch: bool
    num_bytes: int | None
    num_cpu_bytes: int
    allow_hybrid_mode: bool
    allow_multiple_reduction: bool
    num_allocated_qps: int
    num_nvl_ranks: int

    @classmethod
    def from_values(cls, values: dict) -> "Elastic":
        return cls(**{n: values.get(n) for n in field_names(cls)})


def analyze(doc, options: Options) -> Analysis:
    from moecfg.backends.deepep.kind import validate

    vals, findings, broken = validate(doc, V2_FIELDS)
    out = Analysis(findings=findings, kind="deepep", op="v2")
    if broken:
        return out
    e = Elastic.from_values(vals)
    gate = list(rules.value_ranges(e))
    findings.extend(gate)
    if gate:
        return out
    t = v2.topology(e.num_ranks, min(e.num_nvl_ranks, e.num_ranks) if e.num_ranks % e.num_nvl_ranks == 0
                    else e.num_ranks, e.allow_hybrid_mode)
    for check in rules.CHECKS:
        findings.extend(check(e, t))
    s = rules.size(e, t)
    if s is None or rules.HIDDEN.code in {fd.code for fd in findings}:
        return out
    if e.num_bytes is not None and not findings:
        fd = usage.oversized_finding("num_bytes", e.num_bytes, s.num_bytes, "get_buffer_size_hint,")
        findings.extend([fd] if fd else [])
    parts = [("num_bytes", e.num_bytes or 0, s.num_bytes), ("workspace", v2.workspace_bytes(), v2.workspace_bytes())]
    findings.extend(device_rules.check_gpu(parts, vals.get("device"), vals.get("device_memory_gb"),
                                           ("num_max_tokens_per_rank",), "lower num_max_tokens_per_rank or hidden"))
    out.buffers = {"elastic": buffer_json(e, t, s)}
    out.derived = derived(e, t, s)
    return out


def buffer_json(e: Elastic, t: v2.Topology, s: v2.ElasticSize) -> dict:
    out = {"required_bytes": s.num_bytes}
    if e.num_bytes is not None:
        out |= {"configured_bytes": e.num_bytes, "configured_from": "num_bytes"}
    out["sufficient"] = None if e.num_bytes is None else e.num_bytes >= s.num_bytes
    out["formula"] = ("align_2MiB(max(dispatch, combine)); " + ("hybrid: dispatch = tok_d * (up * out * T + T + out * "
                      "(T + 1280)), combine = tok_c * (min(up, k) * out * T + min(out, k) * T + out * (T + 1280))"
                      if t.hybrid else "direct: dispatch = tok_d * (send + ranks) * T, combine = tok_c * (send * ranks "
                      "+ min(ranks, k)) * T (send = 0 over NVLink)"))
    out["terms"] = {"T": e.num_max_tokens_per_rank, "hidden": e.hidden, "k (sized)": s.num_topk_sized,
                    "scaleout (out)": t.num_scaleout_ranks, "scaleup (up)": t.num_scaleup_ranks,
                    "tok_d": v2.dispatch_token_bytes(e.hidden, s.num_topk_sized, e.use_fp8_dispatch),
                    "tok_c": v2.combine_token_bytes(e.hidden, s.num_topk_sized),
                    "dispatch": s.dispatch_bytes, "combine": s.combine_bytes}
    out["note"] = ("ElasticBuffer.get_buffer_size_hint (calculate_buffer_size); num_topk 0 is sized as 32"
                   if not e.num_topk else "ElasticBuffer.get_buffer_size_hint (calculate_buffer_size)")
    return out


def derived(e: Elastic, t: v2.Topology, s: v2.ElasticSize) -> dict:
    qps = e.num_allocated_qps or v2.auto_allocated_qps(e.allow_hybrid_mode)
    return {"mode": "hybrid" if t.hybrid else "direct", "num_rdma_ranks": t.num_rdma_ranks,
            "num_nvl_ranks": t.num_nvl_ranks, "num_scaleout_ranks": t.num_scaleout_ranks,
            "num_scaleup_ranks": t.num_scaleup_ranks, "is_scaleup_nvlink": t.is_scaleup_nvlink,
            "local_experts": e.num_experts // e.num_ranks, "num_topk_sized": s.num_topk_sized,
            "dispatch_bytes": s.dispatch_bytes, "combine_bytes": s.combine_bytes,
            "workspace_bytes": v2.workspace_bytes(), "num_allocated_qps": qps,
            "gpu_bytes_per_rank": max(e.num_bytes or 0, s.num_bytes) - e.num_cpu_bytes + v2.workspace_bytes(),
            "num_allocated_qps_note": "auto: 65 hybrid with fast RDMA atomics (129 without), 17 direct"
            if not e.num_allocated_qps else "from the file"}
