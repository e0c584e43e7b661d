"""`kind: ascend`: validate the document, pick the rule set, run the rule families, size the buffers."""
from __future__ import annotations

from ..diagnostics import Finding
from ..kinds import Analysis, Options
from ..rules_input import ENV_UNKNOWN, INVALID_VALUE, VALIDATOR_CODES, VERSION_UNKNOWN, VERSION_UNPINNED
from ..schema import Validator
from .fields import ENV_FIELDS, FIELDS
from .model import AscendConfig, derive
from .rules import attrs, buffers, comm_alg, experts, inputs
from .rulesets import RULESETS, resolve
from ..plan import device_rules
from ..presets.expand import expand_ascend

FAMILIES = (attrs, experts, comm_alg, inputs, buffers)
_VALIDATOR = Validator(**VALIDATOR_CODES)


def _env(values: dict, raw: dict, findings: list) -> bool:
    env = values.get("env") or {}
    checked, env_findings, broken = _VALIDATOR.validate(env, ENV_FIELDS, ("env",), raw)
    for fd in env_findings:
        if fd.code == VALIDATOR_CODES["unknown"]:
            fd = Finding(ENV_UNKNOWN.code, fd.path, fd.message.replace("unknown key", "environment variable")
                         + " is not used by moecfg", at_key=True)
        findings.append(fd)
    values["env"] = {k: v for k, v in checked.items() if v is not None}
    return broken


def _ruleset(values: dict, options: Options, present, findings: list):
    version = options.cann or values.get("cann_version")
    name, warning = resolve(version)
    path = ("cann_version",)
    if name is None:
        findings.append(Finding(INVALID_VALUE.code, path, f"`cann_version` = {version!r} is not a CANN version "
                                "(write e.g. 8.5.0, 9.0.1, 9.1 or latest)"))
        return None
    if warning:
        findings.append(Finding(VERSION_UNKNOWN.code, path, warning))
    if version is None:
        findings.append(Finding(VERSION_UNPINNED.code, (), "no cann_version: checking with the `latest` rule set "
                                "(upstream head); pin the release you deploy, e.g. cann_version: 9.0.1"))
    return RULESETS[name]


def analyze(doc, options: Options) -> Analysis:
    preset_findings = expand_ascend(doc)  # model: / redundant_experts: presets (moecfg.presets.expand)
    data = doc.data
    values, findings, broken = _VALIDATOR.validate(data, FIELDS, (), doc.raw_scalars)
    findings[:0] = preset_findings
    broken |= _env(values, doc.raw_scalars, findings)
    out = Analysis(findings=findings, kind="ascend", op=values.get("op"), product=values.get("product"))
    ruleset = _ruleset(values, options, data.keys(), findings)
    if ruleset is None or broken or any(fd.code in (VALIDATOR_CODES["too_large"],) for fd in findings):
        out.ruleset = ruleset.name if ruleset else None
        return out
    out.ruleset = ruleset.name
    cfg = AscendConfig.from_values(values, data.keys())
    facts = derive(cfg, ruleset)
    for family in FAMILIES:
        for check in family.CHECKS:
            findings.extend(check(cfg, facts))
    findings.extend(device_rules.check(cfg, facts, values.get("device_memory_gb")))  # MC9xx
    reqs = buffers.requirements(cfg, facts)
    out.buffers = {r.domain: r.to_json() for r in reqs}
    out.derived = derived(cfg, facts)
    return out


def derived(cfg: AscendConfig, f) -> dict:
    d = {"comm_alg": f.alg or None, "local_expert_num": f.local_moe, "max_bs": f.max_bs, "global_bs": f.global_bs,
         "A": f.recv_moe_rank}
    if f.recv_shared_rank is not None:
        d["A_shared_rank"] = f.recv_shared_rank
    if cfg.product == "A3":
        d["shared_expert_num"] = f.shared_num
    start = cfg.moe_expert_num
    for name in ("zero", "copy", "const"):
        n = getattr(cfg, f"{name}_expert_num")
        if n > 0:
            d[f"{name}_expert_ids"] = [start, start + n]  # half-open [first, end)
            start += n
    return d
