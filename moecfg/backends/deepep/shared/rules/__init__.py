"""DeepEP rule families (MC6xx). Each module's docstring is its user documentation; each exports CHECKS,
functions `(d: DeepEPDeployment, f: Facts) -> Iterable[Finding]` whose limits come from each API's formulas.py."""

from moecfg.core.diagnostics import Finding

# The DeepEP commit every V1 rule source cites (csrc/legacy/*, deep_ep/buffers/legacy.py; see formulas.py).
AT = "deepseek-ai/DeepEP@dd758ca "


def finding(rule, path, message, severity=None, fix=None) -> Finding:
    if isinstance(path, str):
        path = (path,)
    return Finding(rule.code, path, message, severity, fix=fix)


def mode_text(d) -> str:
    return "low-latency mode" if d.low_latency else "normal mode"


def yaml_doc(base: dict, **changes) -> str:
    """A rule example: `base` with keys replaced or added (None removes), as YAML text."""
    d = {k: v for k, v in (base | changes).items() if v is not None}
    lines = []
    for key, value in d.items():
        if isinstance(value, dict):
            lines.append(f"{key}:")
            lines.extend(f"  {k}: {_scalar(v)}" for k, v in value.items())
        else:
            lines.append(f"{key}: {_scalar(value)}")
    return "\n".join(lines) + "\n"


def _scalar(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return str(value)
