"""`moecfg explain-launch FILE`: each op call a launch makes, argument by argument with its derivation, and the
buffer each rank needs -- the view a user wants before touching a flag. Plain text; JSON is `check --format json`."""
from __future__ import annotations

from moecfg.render import escape
from moecfg.render.text import _buffer_rows, _title, size


def _flat(arguments: dict):
    for key, value in arguments.items():
        if isinstance(value, dict):
            yield from ((f"{key}.{k}", v) for k, v in value.items())
        else:
            yield key, value


def _gib(n: int) -> str:
    return size(n)  # the same units as every other size: MiB/GiB with the exact bytes


def _budget_lines(budget) -> list[str]:
    """The per-rank memory table: each communication buffer, then the memory the framework leaves for them."""
    if not budget:
        return []
    source = f" ({budget['device_from']})" if budget.get("device_from") else ""
    out = [f"  memory per rank on {budget.get('device', '?')}{source}:"]
    for name, b in budget.get("buffers", {}).items():
        out.append(f"      {name:<18} {_gib(b['bytes']):>28}  ({b.get('from', '')})")
    out.append(f"      {'total':<18} {_gib(budget.get('total_bytes', 0)):>28}")
    if budget.get("outside_fraction_bytes") is not None:
        out.append(f"      outside {budget.get('framework_fraction_from', 'the framework fraction')}: "
                   f"{_gib(budget['outside_fraction_bytes'])}; headroom {_gib(budget.get('headroom_bytes', 0))}")
    return out


def render(report) -> str:
    lines: list[str] = []
    launches = [r for r in report.results if r.launch or r.arguments is not None]
    if not launches:
        return "no framework launch found (moecfg reads vllm serve, sglang.launch_server, ... in scripts and manifests)\n"
    for r in launches:
        lines.append(_title(r) + ("no op call derived (see the findings below)" if r.op is None else ""))
        if r.op == "none":
            lines.extend(f"  {d.message}" for d in r.diagnostics if d.code == "MC041")
        derivation = r.derivation or {}
        for key, value in _flat(r.arguments or {}):
            how = derivation.get(key, "")
            value = str(value).lower() if isinstance(value, bool) else value  # as the user writes it, not Python's
            shown = how if how.startswith(f"{value} ") else f"{value}" + (f"  ({how})" if how else "")
            lines.append(f"  {key} = {shown}")
        lines.extend(_budget_lines((r.derived or {}).get("memory_budget")))
        for domain, required, conf, status in _buffer_rows(r.buffers):
            lines.append(f"  buffer {domain}: required {required} per rank; configured {conf}: {status}")
        problems = [d for d in r.diagnostics if d.severity != "info" or d.code != "MC041"]
        for d in problems:
            lines.append(f"  {d.severity} {d.code} (line {d.line}): {d.message}")
        lines.append("")
    return escape.lines(lines)[:-1]  # untrusted text (file names, values): one line each, no escapes, no `::`
