"""`kind: deepep`, `api: v1` (default): DeepEP's legacy `Buffer` — validate, run the V1 rule families, size the
buffers. `mode: auto` runs every V1 family once per kernel mode the Buffer serves (normal and low-latency) and
sizes the one Buffer for both.
"""
from __future__ import annotations

from moecfg.backends import Analysis, Options
from moecfg.backends.deepep import kind
from moecfg.backends.deepep.ops.v1 import config_forms
from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.backends.deepep.ops.v1.fields import ENV_FIELDS, V1_FIELDS
from moecfg.backends.deepep.ops.v1.model import DeepEPDeployment, Facts, derive
from moecfg.backends.deepep.ops.v1.rules import buffers, configs, cross, experts, hidden, low_latency, topology, values
from moecfg.backends.deepep.shared.rules import usage
from moecfg.backends.device import rules as device_rules
from moecfg.core import registry
from moecfg.core.diagnostics import Finding
from moecfg.core.input_rules import ENV_UNKNOWN, VALIDATOR_CODES

FAMILIES = (topology, configs, hidden, experts, low_latency, cross)


def _v1_data(data: dict):
    out, findings, sms = config_forms.normalize(data)
    findings += config_forms.sms_findings(out, sms)
    return out, findings, bool(findings)


def _env(vals: dict, raw: dict, findings: list) -> bool:
    env, found, broken = kind._VALIDATOR.validate(vals.get("env") or {}, ENV_FIELDS, ("env",), raw)
    for fd in found:
        if fd.code == VALIDATOR_CODES["unknown"]:
            fd = Finding(ENV_UNKNOWN.code, fd.path, fd.message.replace("unknown key", "environment variable")
                         + " is not used by moecfg's DeepEP rules", at_key=True)
        findings.append(fd)
    if env.get("NVSHMEM_QP_DEPTH") is not None:
        vals["nvshmem_qp_depth"] = env["NVSHMEM_QP_DEPTH"]
    return broken


def analyze(doc, options: Options) -> Analysis:
    vals, findings, broken = kind.validate(doc, V1_FIELDS, _v1_data)
    broken |= _env(vals, doc.raw_scalars, findings)
    out = Analysis(findings=findings, kind="deepep", op=vals.get("mode"))
    if broken:
        return out
    d = DeepEPDeployment.from_values(vals)
    gate = _unique(g for v in d.views() for g in values.value_ranges(v))
    findings.extend(gate)
    if gate:
        return out
    f = derive(d)
    findings.extend(_unique(fd for v in d.views() for fd in run_families(v, derive(v))))
    for check in buffers.CHECKS:
        findings.extend(check(d, f))
    findings.extend(quiet_where_wrong(findings, (fd for check in usage.CHECKS for fd in check(d, f))))
    findings.extend(device_rules.check_deepep(d, f, vals.get("device"), vals.get("device_memory_gb")))  # MC9xx
    out.buffers = {r.domain: r.to_json() for r in buffers.requirements(d, f)}
    out.derived = derived(d, f)
    return out


def run_families(d: DeepEPDeployment, f: Facts):
    for family in FAMILIES:
        for check in family.CHECKS:
            yield from check(d, f)


def quiet_where_wrong(findings: list, infos) -> list:
    """The wasted-memory infos, except on a field that already has an error or warning."""
    flagged = {fd.path for fd in findings if (fd.severity or registry.get(fd.code).severity) != "info"}
    return [fd for fd in infos if fd.path not in flagged]


def _unique(findings) -> list:
    seen, out = set(), []
    for fd in findings:
        key = (fd.code, fd.path, fd.message)
        if key not in seen:
            seen.add(key)
            out.append(fd)
    return out


def _config_json(c: fx.DeepEPConfig | None):
    if c is None:
        return None
    return {"num_sms": c.num_sms, "nvl_send": c.nvl_send, "nvl_recv": c.nvl_recv, "rdma_send": c.rdma_send,
            "rdma_recv": c.rdma_recv,
            "rdma_recv_stored": fx.stored_rdma_chunked_recv(c.rdma_send, c.rdma_recv) if c.rdma_send > 0 else None}


def derived(d: DeepEPDeployment, f: Facts) -> dict:
    out = {"num_nodes": f.num_rdma_ranks, "nvl_peers": f.num_nvl_ranks, "internode": f.internode,
           "nvshmem": f.nvshmem, "local_experts": f.local_experts, "hidden_bytes": f.hidden_bytes,
           "low_latency_mode": d.low_latency_mode}
    if d.mode == "auto" and f.local_experts is not None:
        out["recommended_num_qps_per_rank"] = max(d.num_sms, f.local_experts)  # SGLang: max(num_sms, E / R)
    if d.low_latency_mode:
        out |= _low_latency_derived(d, f)
    if d.low_latency:
        return out
    out |= {"num_channels": d.num_sms // 2, "config_source": f.config_source,
            "dispatch_config": _config_json(f.dispatch), "combine_config": _config_json(f.combine)}
    if f.internode:
        out["num_qps_per_rank_valid"] = f"{d.num_sms // 2} or >= {d.num_sms}"
    return out


def _low_latency_derived(d, f) -> dict:
    t = d.num_max_dispatch_tokens_per_rank
    out = {"max_tokens_per_rank_for_qp_depth": fx.low_latency_max_tokens_for_qp_depth(d.nvshmem_qp_depth),
           "max_experts_for_device_sms": fx.low_latency_max_experts(d.device_sms)}
    if d.low_latency:
        out["recommended_num_qps_per_rank"] = f.local_experts
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
