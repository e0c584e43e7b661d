"""A planning problem: the fixed part of an `ascend` document (product, model, options) and the two ways to
judge a candidate: the pure formulas (fast, for sweeps and binary searches) and the real engine (the
verdict, with rule codes) on the candidate's YAML.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from moecfg.backends.ascend import fields as ascend_fields
from moecfg.backends.ascend.shared.formulas import MB, ceil_mb
from moecfg.backends.ascend.shared.model import AscendConfig, derive
from moecfg.backends.ascend.shared.rulesets import RULESETS, resolve
from moecfg.backends import Options
from moecfg.core.input_rules import VALIDATOR_CODES
from moecfg.core.fields import Validator
from moecfg.sources.manifests.yaml_source import Span, YamlDocument

_VALIDATOR = Validator(**VALIDATOR_CODES)
PLAN_OP = "dispatch_combine_v2"
BUFFER_RULES = ("MC501", "MC502", "MC503")  # the window checks: a buffer too small for the candidate


class PlanError(Exception):
    """Inputs the planner cannot work with (message for the user; exit code 2)."""


@dataclass
class Problem:
    base: dict  # document without bs / ep_world_size / HCCL_BUFFSIZE or ccl_buffer_size (added per candidate)
    cann: str | None = None  # --cann
    model_note: str = ""  # where the model values come from
    values: dict = field(default_factory=dict)  # validated base values (defaults filled)

    @property
    def product(self) -> str:
        return self.values["product"]

    @property
    def ruleset(self):
        name, _ = resolve(self.cann or self.values.get("cann_version"))
        if name is None:
            raise PlanError(f"cann version {self.cann or self.values.get('cann_version')!r} is not a CANN version")
        return RULESETS[name]

    @property
    def context_mode(self) -> bool:
        """api aclnn_v5: the buffer solved for is ccl_buffer_size (buffer_mb MiB), not HCCL_BUFFSIZE."""
        return self.values.get("api") == "aclnn_v5"

    @property
    def buffer_name(self) -> str:
        return "ccl_buffer_size" if self.context_mode else "HCCL_BUFFSIZE"

    def document(self, ep: int, bs: int, buffer_mb: int | None = None) -> dict:
        doc = dict(self.base)
        if self.cann:
            doc["cann_version"] = self.cann
        elif "cann_version" not in doc:  # pin the rule set the plan was solved with: the file checks clean (no MC011)
            doc["cann_version"] = self.ruleset.name
        doc["ep_world_size"], doc["bs"] = ep, bs
        if buffer_mb is not None and self.context_mode:
            doc["ccl_buffer_size"] = buffer_mb * MB
        elif buffer_mb is not None:
            doc["env"] = {**(doc.get("env") or {}), "HCCL_BUFFSIZE": buffer_mb}
        return doc

    def config(self, ep: int, bs: int, buffer_mb: int | None = None, **extra) -> AscendConfig:
        values = dict(self.values, ep_world_size=ep, bs=bs, **extra)
        if buffer_mb is not None:
            values["env"] = {**values.get("env", {}), "HCCL_BUFFSIZE": buffer_mb}
        return AscendConfig.from_values(values, values.keys())

    def required_bytes(self, ep: int, bs: int, ruleset=None, **extra) -> dict:
        """{domain: bytes} by the formulas (no YAML, no rules); {} when the inputs allow no buffer."""
        from moecfg.backends.ascend.shared.rules.buffers import requirements

        cfg = self.config(ep, bs, **extra)
        return {r.domain: r.required_bytes for r in requirements(cfg, derive(cfg, ruleset or self.ruleset))}

    def required_mb(self, ep: int, bs: int, **extra) -> int | None:
        """HCCL_BUFFSIZE (MB) that covers every communicator, or None if not computable."""
        need = self.required_bytes(ep, bs, **extra)
        if not need:
            return None
        # context mode: the window is ccl_buffer_size - 1 MB (CWS[M] L152), so one MiB more
        return max(ceil_mb(b) for b in need.values()) + (1 if self.context_mode else 0)

    def verdict(self, ep: int, bs: int, buffer_mb: int | None):
        """The engine's DocumentResult for the candidate (the real rules, as `moecfg check` runs them)."""
        from moecfg.checking.engine import lint_text

        text = yaml.safe_dump(self.document(ep, bs, buffer_mb), sort_keys=False)
        return lint_text(text, "<plan>", Options(cann=self.cann))[0]


def build(base: dict, cann: str | None = None, model_note: str = "") -> Problem:
    """Validate the fixed part (with placeholders for the solved fields) and return the Problem."""
    from moecfg.presets.expand import expand_ascend

    probe = dict(base)
    probe.setdefault("bs", 1)
    probe.setdefault("ep_world_size", 1)
    doc = YamlDocument(index=0, data=probe, start=Span(1, 1, 1, 1))
    problems = [f.message for f in expand_ascend(doc)]
    table = getattr(ascend_fields, "OP_FIELDS", {}).get(PLAN_OP, ascend_fields.FIELDS)
    values, findings, broken = _VALIDATOR.validate(doc.data, table)
    problems += [f.message for f in findings]
    if problems or broken:
        raise PlanError("; ".join(problems) or "the fixed fields cannot be read")
    if values.get("kind") not in (None, "ascend") or values.get("op") not in (None, PLAN_OP):
        raise PlanError(f"the planner solves `kind: ascend` documents of op {PLAN_OP}")
    values["env"] = {k: v for k, v in (values.get("env") or {}).items() if isinstance(v, int)}
    problem = Problem(base=base, cann=cann, model_note=model_note, values=values)
    problem.ruleset  # raises PlanError for a bad version
    return problem
