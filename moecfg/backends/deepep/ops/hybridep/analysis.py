"""`kind: deepep`, `api: hybridep`: NVIDIA Hybrid-EP `HybridEPBuffer` — validate and check its limits."""
from __future__ import annotations

from moecfg.core.record import field_names, record
from moecfg.backends import Analysis, Options
from moecfg.backends.deepep.ops.hybridep import formulas as hx
from moecfg.backends.deepep.ops.hybridep.fields import HYBRIDEP_FIELDS
from moecfg.backends.deepep.ops.hybridep import rules


@record(frozen=True, slots=True)
class HybridEP:
    num_ranks: int
    hidden_dim: int
    max_num_of_tokens_per_rank: int
    num_local_experts: int
    use_fp8: bool
    num_of_hybrid_ep_ranks_per_nvlink_domain: int
    num_of_tokens_per_chunk_dispatch_api: int
    num_of_tokens_per_chunk_combine_api: int
    num_sms_dispatch_api: int | None
    num_sms_combine_api: int | None
    device_sms: int

    @classmethod
    def from_values(cls, values: dict) -> "HybridEP":
        return cls(**{n: values.get(n) for n in field_names(cls)})


def analyze(doc, options: Options) -> Analysis:
    from moecfg.backends.deepep.kind import validate

    vals, findings, broken = validate(doc, HYBRIDEP_FIELDS)
    out = Analysis(findings=findings, kind="deepep", op="hybridep")
    if broken:
        return out
    h = HybridEP.from_values(vals)
    gate = list(rules.value_ranges(h))
    findings.extend(gate)
    if gate:
        return out
    for check in rules.CHECKS:
        findings.extend(check(h))
    out.derived = derived(h)
    return out


def derived(h: HybridEP) -> dict:
    domains = h.num_ranks // h.num_of_hybrid_ep_ranks_per_nvlink_domain
    padded = hx.buffer_tokens_per_rank(h.max_num_of_tokens_per_rank, h.num_of_tokens_per_chunk_combine_api)
    out = {"num_of_nodes": domains, "buffer_tokens_per_rank": padded,
           "num_sms_dispatch_api": h.num_sms_dispatch_api or hx.default_sms(max(domains, 1)),
           "num_sms_combine_api": h.num_sms_combine_api or hx.default_sms(max(domains, 1)),
           "hidden_multiple": hx.hidden_multiple(h.use_fp8)}
    if domains > 1:
        out |= {"ib_tx_depth": hx.tx_depth(padded), "max_tokens_per_rank_multinode":
                hx.max_tokens_multinode_padded(h.num_of_tokens_per_chunk_combine_api)}
    return out
