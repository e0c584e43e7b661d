"""`op: combine_add_rms_norm`: dispatch v2 (aclnn DispatchV3) paired with MoeDistributeCombineAddRmsNorm.

The document holds the dispatch/combine v2 fields plus the Add + RmsNorm inputs. Every v2 rule family runs
unchanged (the pair still goes through the DispatchV2 and CombineV2 tilings); the op's own rules are in
rules.py. A3 only: A2 has no binary, so an A2 document gets one error and nothing else.
"""
from __future__ import annotations

from moecfg.core.record import record
from moecfg.backends import Analysis, Options
from moecfg.backends.device import rules as device_rules
from moecfg.backends.ascend.shared import formulas as fx
from moecfg.backends.ascend import kind
from moecfg.backends.ascend.shared import dispatch_v2
from moecfg.backends.ascend.shared.catalog import RuleSet
from moecfg.backends.ascend.ops.combine_add_rms_norm.catalog import ADD_RMS_NORM_RULES, AddRmsNormRules
from moecfg.backends.ascend.shared.model import AscendConfig, Facts, derive
from moecfg.backends.ascend.ops.combine_add_rms_norm import rules as add_rms_norm
from moecfg.backends.ascend.shared.rules import buffers

OP = "combine_add_rms_norm"


@record(frozen=True, slots=True)
class AddRmsNormConfig:
    base: AscendConfig  # the dispatch/combine v2 fields
    norm_eps: float | None
    residual_x_dtype: str
    residual_x_shape: tuple | None
    gamma_dtype: str
    gamma_shape: tuple | None
    elastic_scale_down: dict | None

    @property
    def product(self) -> str:
        return self.base.product


@record(frozen=True, slots=True)
class AddRmsNormFacts:
    base: Facts  # v2 facts (local experts, A, algorithm, ...)
    ruleset: RuleSet
    limits: AddRmsNormRules


def _normalize(data: dict) -> dict:
    """YAML 1.1 reads `1e-6` as a string: accept it as the number it is."""
    eps = data.get("norm_eps")
    if isinstance(eps, str):
        try:
            return {**data, "norm_eps": float(eps)}
        except ValueError:
            pass
    return data


def analyze(doc, options: Options) -> Analysis:
    values, findings, broken, ruleset = kind.validate(doc, options, OP, _normalize)
    out = Analysis(findings=findings, kind="ascend", op=OP, product=values.get("product"),
                   ruleset=ruleset.name if ruleset else None)
    if ruleset is None or broken:
        return out
    limits = ADD_RMS_NORM_RULES[ruleset.name]
    if values["product"] not in limits.products:
        findings.extend(add_rms_norm.product_unsupported(values["product"], ruleset.name))
        return out
    base = AscendConfig.from_values(values, doc.data.keys())
    base_facts = derive(base, ruleset)
    dispatch_v2.run_families(base, base_facts, findings)
    findings.extend(device_rules.check(base, base_facts, values.get("device_memory_gb")))  # MC9xx
    cfg = AddRmsNormConfig(base, values["norm_eps"], values["residual_x_dtype"], values["residual_x_shape"],
                           values["gamma_dtype"], values["gamma_shape"], values["elastic_scale_down"])
    facts = AddRmsNormFacts(base_facts, ruleset, limits)
    for check in add_rms_norm.CHECKS:
        findings.extend(check(cfg, facts))
    out.buffers = buffer_table(cfg, facts)
    out.derived = derived(cfg, facts)
    return out


def buffer_table(cfg: AddRmsNormConfig, f: AddRmsNormFacts) -> dict:
    """The v2 requirements (the code's verdict) plus, for the EP window, the figure the seed page documents."""
    table = {r.domain: r.to_json() for r in buffers.requirements(cfg.base, f.base)}
    doc = add_rms_norm.documented_ep_bytes(cfg, f)
    if "ep" in table and doc is not None:
        table["ep"]["documented_bytes"] = doc
        table["ep"]["documented_mb"] = fx.ceil_mb(doc)
    return table


def derived(cfg: AddRmsNormConfig, f: AddRmsNormFacts) -> dict:
    d = dispatch_v2.derived(cfg.base, f.base)
    bs, h = cfg.base.bs, cfg.base.h
    d["outputs"] = {"y": {"shape": [bs, 1, h], "dtype": cfg.base.x_dtype, "bytes": bs * h * 2},
                    "rstd": {"shape": [bs, 1, 1], "dtype": "fp32", "bytes": bs * 4},
                    "x": {"shape": [bs, 1, h], "dtype": cfg.base.x_dtype, "bytes": bs * h * 2}}
    after = add_rms_norm.after_scale_down(cfg, f)
    if after is not None:
        d["elastic_scale_down"] = after
    if cfg.base.elastic_info:
        d["elastic_info_len"] = 4 + 2 * cfg.base.ep_world_size
    return d
