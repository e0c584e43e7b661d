"""Ascend rule families. Each module's docstring is its user documentation; each exports CHECKS,
functions `(cfg: AscendConfig, f: Facts) -> Iterable[Finding]` that read limits from `f.limits`."""

from moecfg.core.diagnostics import Finding


def where(cfg, f) -> str:
    return f"{cfg.product}, CANN {f.ruleset.name} rules"


def finding(rule, path, message, severity=None, fix=None) -> Finding:
    if isinstance(path, str):
        path = (path,)
    return Finding(rule.code, path, message, severity, fix=fix)


def outside(name, value, lo, hi, cfg, f, extra="") -> str:
    return f"`{name}` = {value} is outside [{lo}, {hi}] ({where(cfg, f)}{extra})"
