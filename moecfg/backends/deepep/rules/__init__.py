"""DeepEP rule families (MC6xx). Each module's docstring is its user documentation; each exports CHECKS,
functions `(d: DeepEPDeployment, f: Facts) -> Iterable[Finding]` whose limits come from `deepep.formulas`."""

from moecfg.core.diagnostics import Finding


def finding(rule, path, message, severity=None) -> Finding:
    if isinstance(path, str):
        path = (path,)
    return Finding(rule.code, path, message, severity)


def mode_text(d) -> str:
    return "low-latency mode" if d.low_latency else "normal mode"
