"""Sweeps: the required HCCL buffer against bs (or ep) for several comm_algs and rule sets.

The formulas, no YAML: each point's buffer, and the codes of the rules that reject it (the v2 families run on
the config directly, buffer sufficiency aside: the sweep shows the buffer), so a point past a limit is marked,
not shown as valid (benchmarks/bench_sweep.py times 10,000 points). A point where the inputs allow no buffer
(an algorithm the rule set does not know, ep <= shared ranks) is None.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from moecfg.backends.ascend.shared.formulas import MB, ceil_mb
from moecfg.backends.ascend.shared.rulesets import RULESETS
from moecfg.backends.device.devices import HCCL_BUFFERS_PER_COMMUNICATOR, describe, device_bytes
from moecfg.backends.ascend.shared.model import derive
from moecfg.plan.problem import PlanError, Problem


@dataclass
class Series:
    comm_alg: str
    ruleset: str
    required_bytes: list  # per x: {domain: bytes} ({} if not computable)
    rejected: list = field(default_factory=list)  # per x: codes of the rules that reject the point (() if none)
    runs: str = ""  # the algorithm the op runs when comm_alg is unset (fullmesh_v1 on A3, by env on A2)

    @property
    def label(self) -> str:
        """`fullmesh_v2, CANN 9.1.0 rules`; unset: what runs (`comm_alg unset = fullmesh_v1, CANN latest rules`)."""
        alg = self.comm_alg or (f"comm_alg unset = {self.runs}" if self.runs else "comm_alg unset")
        return f"{alg}, CANN {self.ruleset} rules"

    @property
    def required_mb(self) -> list:
        """The HCCL_BUFFSIZE (MB) that covers every communicator, per x (None if not computable)."""
        return [max(map(ceil_mb, d.values())) if d else None for d in self.required_bytes]

    def to_json(self) -> dict:
        return {"label": self.label, "comm_alg": self.comm_alg, "ruleset": self.ruleset,
                "required_mb": self.required_mb, "required_bytes": self.required_bytes,
                "rejected_by": [list(codes) for codes in self.rejected]}


@dataclass
class Sweep:
    vs: str  # "bs" | "ep_world_size"
    xs: list
    fixed: dict  # the other axis, e.g. {"ep_world_size": 32}
    series: list
    limits: dict  # {"configured buffer": MB, "device memory": MB per HCCL buffer}
    quantity = "HCCL_BUFFSIZE"  # what the chart's y axis is

    @property
    def xname(self) -> str:
        return "bs" if self.vs == "bs" else "ep"

    @property
    def xlabel(self) -> str:
        return "bs (tokens per rank)" if self.vs == "bs" else "ep_world_size"

    def to_json(self) -> dict:
        return {"vs": self.vs, "x": self.xs, "fixed": self.fixed, "series": [s.to_json() for s in self.series],
                "limits_mb": self.limits}


def run(p: Problem, vs: str, xs: list, fixed: int, comm_algs, rulesets, buffer_mb: int | None = None,
        device_memory_gb: float | None = None) -> Sweep:
    for name in rulesets:
        if name not in RULESETS:
            raise PlanError(f"rule set {name!r} is not one of {', '.join(RULESETS)}")
    from moecfg.core.progress import track

    series = []
    for name in rulesets:
        rs = RULESETS[name]
        for alg in comm_algs:
            points = [(fixed, x) if vs == "bs" else (x, fixed) for x in track(xs, f"{name} {alg or 'comm_alg'}", 256)]
            pts = [p.required_bytes(ep, bs, rs, comm_alg=alg) for ep, bs in points]
            series.append(Series(alg, name, pts, [rejected_by(p, ep, bs, rs, alg) for ep, bs in points],
                                 "" if alg else _runs(p, points[0], rs)))
    other = "ep_world_size" if vs == "bs" else "bs"
    return Sweep(vs, list(xs), {other: fixed}, series, limits(p, buffer_mb, device_memory_gb))


def _runs(p: Problem, point: tuple, ruleset) -> str:
    """The algorithm an unset comm_alg resolves to (the op's own choice, shared/model.py), "" if not derivable."""
    try:
        return derive(p.config(*point, comm_alg=""), ruleset).alg
    except (ValueError, KeyError, TypeError, ZeroDivisionError):
        return ""


def rejected_by(p: Problem, ep: int, bs: int, ruleset, alg: str) -> tuple:
    """Codes of the errors the dispatch/combine v2 rules give the point, buffer rules aside (sorted)."""
    from moecfg.backends.ascend.shared.dispatch_v2 import FAMILIES
    from moecfg.core.registry import RULES

    cfg = p.config(ep, bs, comm_alg=alg)
    facts = derive(cfg, ruleset)
    codes = {f.code for family in FAMILIES for check in family.CHECKS for f in check(cfg, facts)
             if (f.severity or RULES[f.code].severity) == "error" and "buffer" not in RULES[f.code].tags}
    return tuple(sorted(codes))


def limits(p: Problem, buffer_mb: int | None, device_memory_gb: float | None) -> dict:
    """Horizontal lines of the chart, in MB of HCCL_BUFFSIZE."""
    out = {}
    if buffer_mb is not None:
        out["configured buffer"] = buffer_mb
    dev = device_bytes(p.product, device_memory_gb if device_memory_gb is not None else p.values.get("device_memory_gb"))
    if dev:
        groups = 2 if p.values.get("tp_world_size", 0) > 1 else 1
        per = dev // (HCCL_BUFFERS_PER_COMMUNICATOR * groups * MB)
        out[f"device memory ({describe(p.product, device_memory_gb)}, {groups * 2} buffers)"] = per
    return out
