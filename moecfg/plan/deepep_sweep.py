"""DeepEP sweeps: the NVL / RDMA buffers DeepEP needs against tokens per rank (low-latency) or num_ranks (normal).

DeepEP's formulas (through the deepep kind's `requirements`, so the numbers are the ones `moecfg check` compares
with) and, per point, the codes of the DeepEP rule families that reject it (buffer sufficiency aside), with no YAML
(benchmarks/bench_sweep.py times 10,000 points). A point DeepEP cannot size (a rank count without a default
config, a hidden size the layout rejects) is None.
Limit lines: the configured buffers, the device memory less the 32 MiB workspace, and DeepEP's own ceiling
(the 32 GiB wall in low-latency mode, INT_MAX for a normal-mode RDMA buffer).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from moecfg.backends.deepep.ops.v1 import formulas as fx
from moecfg.plan.deepep_problem import TOKENS, DeepEPProblem
from moecfg.backends.device.devices import describe, device_bytes

MB = 1 << 20


def ceil_mb(value: int) -> int:
    return -(-value // MB)


@dataclass
class DeepEPSeries:
    domain: str  # "nvl" | "rdma"
    num_sms: int | None  # normal mode: the Buffer.num_sms of this series; None in low-latency mode
    required_bytes: list  # per x: bytes, or None where DeepEP cannot size the buffer
    show_sms: bool = False  # several num_sms compared: name them in the label
    rejected: list = field(default_factory=list)  # per x: codes of the rules that reject the point (() if none)

    @property
    def label(self) -> str:
        return f"{self.domain} @ {self.num_sms} SMs" if self.show_sms else self.domain

    @property
    def required_mb(self) -> list:
        return [None if b is None else ceil_mb(b) for b in self.required_bytes]

    def to_json(self) -> dict:
        return {"label": self.label, "domain": self.domain, "num_sms": self.num_sms,
                "required_bytes": self.required_bytes, "required_mb": self.required_mb,
                "rejected_by": [list(codes) for codes in self.rejected]}


@dataclass
class DeepEPSweep:
    mode: str
    vs: str  # TOKENS | "num_ranks"
    xs: list
    fixed: dict  # the other axis, e.g. {"num_ranks": 16}
    series: list
    limits_bytes: dict  # {name: bytes}
    quantity = "DeepEP buffer"

    @property
    def xname(self) -> str:
        return "tokens/rank" if self.vs == TOKENS else "num_ranks"

    @property
    def xlabel(self) -> str:
        return f"{TOKENS} (T)" if self.vs == TOKENS else "num_ranks (GPUs)"

    @property
    def limits(self) -> dict:
        """The limit lines in MB (2^20 bytes, rounded down: a buffer must fit under the line)."""
        return {name: b // MB for name, b in self.limits_bytes.items()}

    def to_json(self) -> dict:
        return {"kind": "deepep", "mode": self.mode, "vs": self.vs, "x": self.xs, "fixed": self.fixed,
                "series": [s.to_json() for s in self.series], "limits_bytes": self.limits_bytes,
                "limits_mb": self.limits}


def run(p: DeepEPProblem, vs: str, xs: list, fixed: int, num_sms=(None,), nvl: int | None = None,
        rdma: int | None = None, device_memory_gb: float | None = None) -> DeepEPSweep:
    """Required bytes per x; `vs` is TOKENS (low-latency) or "num_ranks"; `num_sms` values are compared as series."""
    from moecfg.core.progress import track

    domains = ("rdma",) if p.low_latency else ("nvl", "rdma")
    sms_list = [None] if p.low_latency else list(num_sms)
    series = []
    for sms in sms_list:
        extra = {} if sms is None else {"num_sms": sms}
        todo = track(xs, "sweeping" if sms is None else f"num_sms {sms}", 256)
        at = [(fixed, x) if vs == TOKENS else (x, fixed) for x in todo]
        points = [p.required_bytes(ranks, tokens, **extra) for ranks, tokens in at]
        rejected = [rejected_by(p, ranks, tokens, **extra) for ranks, tokens in at]
        shown = sms if sms is not None else (None if p.low_latency else p.values["num_sms"])
        for domain in domains:
            series.append(DeepEPSeries(domain, shown, [pt.get(domain) for pt in points], len(sms_list) > 1, rejected))
    fixed_axis = {"num_ranks": fixed} if vs == TOKENS else ({TOKENS: fixed} if p.low_latency else {})
    return DeepEPSweep(p.mode, vs, list(xs), fixed_axis, series, limits(p, nvl, rdma, device_memory_gb))


def rejected_by(p: DeepEPProblem, num_ranks: int, tokens: int | None, **extra) -> tuple:
    """Codes of the errors DeepEP's value gate and rule families give the point, buffer rules aside (sorted)."""
    from moecfg.backends.deepep.ops.v1.analysis import run_families
    from moecfg.backends.deepep.ops.v1.model import derive
    from moecfg.backends.deepep.ops.v1.rules.values import value_ranges
    from moecfg.core.registry import RULES

    d = p.deployment(num_ranks, tokens if p.low_latency else None, **extra)
    found = list(value_ranges(d)) or [f for v in d.views() for f in run_families(v, derive(v))]
    return tuple(sorted({f.code for f in found if (f.severity or RULES[f.code].severity) == "error"
                         and "buffer" not in RULES[f.code].tags}))


def limits(p: DeepEPProblem, nvl: int | None, rdma: int | None, device_memory_gb: float | None) -> dict:
    """Horizontal lines of the chart, in bytes."""
    out = {}
    for name, value in (("num_nvl_bytes", nvl), ("num_rdma_bytes", rdma)):
        if value is not None:
            out[f"configured {name}"] = value
    gb = device_memory_gb if device_memory_gb is not None else p.values.get("device_memory_gb")
    device = p.values.get("device") or ""
    dev = device_bytes(device, gb)
    if dev:
        out[f"device memory ({describe(device, gb)}) - 32 MiB workspace"] = dev - fx.NUM_WORKSPACE_BYTES
    if p.low_latency:
        out["DeepEP 32 GiB wall (B3)"] = fx.MAX_BUFFER_BYTES_ANY_MODE.value
    else:
        out["INT_MAX (normal-mode RDMA, B2)"] = fx.INT_MAX
    return out
