"""A DeepEP planning problem: the fixed part of a `kind: deepep` document (mode, model, options) and the two ways
to judge a candidate (num_ranks, tokens per rank, buffer bytes): DeepEP's formulas through the deepep kind's own
`requirements` (fast, for sweeps and binary searches) and the real engine on the candidate's YAML (the verdict).
"""
from __future__ import annotations

from dataclasses import dataclass

import yaml

from moecfg.backends.deepep import fields as deepep_fields
from moecfg.backends.deepep.ops.v1.model import DeepEPDeployment, derive
from moecfg.backends.deepep.ops.v1.rules import buffers as deepep_buffers
from moecfg.backends.deepep.ops.v1.rules.values import value_ranges
from moecfg.backends import Options
from moecfg.core.input_rules import VALIDATOR_CODES
from moecfg.core.fields import Validator
from moecfg.sources.manifests.yaml_source import Span, YamlDocument
from moecfg.plan.problem import PlanError

_VALIDATOR = Validator(**VALIDATOR_CODES)
TOKENS = "num_max_dispatch_tokens_per_rank"
SOLVED_KEYS = ("num_ranks", TOKENS, "num_nvl_bytes", "num_rdma_bytes")  # given per candidate, never in `base`
BUFFER_RULES = ("MC650", "MC651")  # below DeepEP's hint: rejected even where it is only a warning (README sizing)


@dataclass
class DeepEPProblem:
    base: dict  # document without num_ranks / tokens / buffer bytes (added per candidate)
    values: dict  # validated base values (preset expanded, defaults filled)
    model_note: str = ""

    @property
    def mode(self) -> str:
        return self.values["mode"]

    @property
    def low_latency(self) -> bool:
        return self.mode == "low_latency"

    def document(self, num_ranks: int, tokens: int | None = None, nvl: int | None = None,
                 rdma: int | None = None) -> dict:
        doc = dict(self.base, num_ranks=num_ranks)
        for key, value in ((TOKENS, tokens), ("num_nvl_bytes", nvl), ("num_rdma_bytes", rdma)):
            if value is not None:
                doc[key] = value
        return doc

    def deployment(self, num_ranks: int, tokens: int | None = None, **extra) -> DeepEPDeployment:
        return DeepEPDeployment.from_values(dict(self.values, num_ranks=num_ranks, **{TOKENS: tokens}, **extra))

    def required_bytes(self, num_ranks: int, tokens: int | None = None, **extra) -> dict:
        """{"nvl": bytes, "rdma": bytes} by DeepEP's formulas; {} when DeepEP could not size the buffers."""
        d = self.deployment(num_ranks, tokens if self.low_latency else None, **extra)
        if next(value_ranges(d), None) is not None:
            return {}
        return {r.domain: r.required_bytes for r in deepep_buffers.requirements(d, derive(d))}

    def verdict(self, num_ranks: int, tokens: int | None, nvl: int | None, rdma: int | None):
        """The engine's DocumentResult for the candidate (the real rules, as `moecfg check` runs them)."""
        from moecfg.checking.engine import lint_text

        text = yaml.safe_dump(self.document(num_ranks, tokens, nvl, rdma), sort_keys=False)
        return lint_text(text, "<plan>", Options())[0]


def build(base: dict, model_note: str = "") -> DeepEPProblem:
    """Validate the fixed part (placeholders for the solved fields) and return the problem."""
    from moecfg.presets.expand import expand_deepep

    given = [k for k in SOLVED_KEYS if k in base]
    if given:
        raise PlanError(f"give {', '.join(given)} with the plan/sweep options, not --set")
    if base.get("kind", "deepep") != "deepep":
        raise PlanError("the DeepEP planner solves `kind: deepep` documents")
    base = {"kind": "deepep", **base}
    probe = dict(base, num_ranks=8, **{TOKENS: 1})
    doc = YamlDocument(index=0, data=probe, start=Span(1, 1, 1, 1))
    problems = [f.message for f in expand_deepep(doc)]
    values, findings, broken = _VALIDATOR.validate(doc.data, deepep_fields.FIELDS)
    problems += [f.message for f in findings]
    if problems or broken:
        raise PlanError("; ".join(problems) or "the fixed fields cannot be read")
    return DeepEPProblem(base=dict(base), values=values, model_note=model_note)
