"""`kind: deepep`: validate the document, run the DeepEP rule families, size the NVL and RDMA buffers."""
from __future__ import annotations

from moecfg.backends import Analysis, Options
from moecfg.backends.device import rules as device_rules
from moecfg.presets.expand import expand_deepep
from moecfg.core.input_rules import VALIDATOR_CODES
from moecfg.core.fields import Validator
from moecfg.backends.deepep import formulas as fx
from moecfg.backends.deepep.fields import FIELDS
from moecfg.backends.deepep.model import DeepEPDeployment, Facts, derive
from moecfg.backends.deepep.rules import buffers, configs, experts, hidden, low_latency, topology, values

FAMILIES = (topology, configs, hidden, experts, low_latency, buffers)
_VALIDATOR = Validator(**VALIDATOR_CODES)


def analyze(doc, options: Options) -> Analysis:
    findings = expand_deepep(doc)  # model: / redundant_experts:
    vals, more, broken = _VALIDATOR.validate(doc.data, FIELDS, (), doc.raw_scalars)
    findings += more
    out = Analysis(findings=findings, kind="deepep", op=vals.get("mode"))
    if broken:
        return out
    d = DeepEPDeployment.from_values(vals)
    gate = list(values.value_ranges(d))
    findings.extend(gate)
    if gate:
        return out
    f = derive(d)
    for family in FAMILIES:
        for check in family.CHECKS:
            findings.extend(check(d, f))
    findings.extend(device_rules.check_deepep(d, f, vals.get("device"), vals.get("device_memory_gb")))  # MC9xx
    out.buffers = {r.domain: r.to_json() for r in buffers.requirements(d, f)}
    out.derived = derived(d, f)
    return out


def _config_json(c: fx.DeepEPConfig | None):
    if c is None:
        return None
    return {"num_sms": c.num_sms, "nvl_send": c.nvl_send, "nvl_recv": c.nvl_recv, "rdma_send": c.rdma_send,
            "rdma_recv": c.rdma_recv,
            "rdma_recv_stored": fx.stored_rdma_chunked_recv(c.rdma_send, c.rdma_recv) if c.rdma_send > 0 else None}


def derived(d: DeepEPDeployment, f: Facts) -> dict:
    out = {"num_nodes": f.num_rdma_ranks, "nvl_peers": f.num_nvl_ranks, "internode": f.internode,
           "nvshmem": f.nvshmem, "local_experts": f.local_experts, "hidden_bytes": f.hidden_bytes}
    if d.low_latency:
        return out | _low_latency_derived(d, f)
    out |= {"num_channels": d.num_sms // 2, "config_source": f.config_source,
            "dispatch_config": _config_json(f.dispatch), "combine_config": _config_json(f.combine)}
    if f.internode:
        out["num_qps_per_rank_valid"] = f"{d.num_sms // 2} or >= {d.num_sms}"
    return out


def _low_latency_derived(d, f) -> dict:
    t = d.num_max_dispatch_tokens_per_rank
    out = {"max_tokens_per_rank_for_qp_depth": fx.low_latency_max_tokens_for_qp_depth(d.nvshmem_qp_depth),
           "max_experts_for_device_sms": fx.low_latency_max_experts(d.device_sms),
           "recommended_num_qps_per_rank": f.local_experts}
    if f.local_experts is not None:
        tensors = fx.low_latency_dispatch_tensors(t, d.hidden, d.num_ranks, d.num_experts, use_fp8=d.dtype == "fp8")
        out["ll_dispatch_tensors"] = {
            "packed_recv_x": [f.local_experts, d.num_ranks * t, d.hidden],
            "packed_recv_x_bytes": tensors.packed_recv_x_bytes,
            "packed_recv_x_scales_bytes": tensors.packed_recv_x_scales_bytes,
            "packed_recv_src_info_bytes": tensors.packed_recv_src_info_bytes,
            "packed_recv_layout_range_bytes": tensors.packed_recv_layout_range_bytes,
            "packed_recv_count_bytes": tensors.packed_recv_count_bytes,
            "total_bytes": tensors.total_bytes,
        }
    return out
