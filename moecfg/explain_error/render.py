"""explain-error output: text (each line escaped: the log is untrusted) or JSON."""
from __future__ import annotations

import json

from moecfg.render import escape


def _matching(checked, codes) -> list:
    """The check's findings of this explanation's rules (the same cause, computed from the command)."""
    return [f for f in checked.findings if f[0] in codes] if checked else []


def text(name: str, explanations, cut: bool, checked=None) -> str:
    lines = []
    if cut:
        lines.append(f"{name}: longer than 8 MiB; read its last 8 MiB")
    for e in explanations:
        p = e.pattern
        codes = ", ".join(p.codes) if p.codes else "no moecfg rule"
        times = f" (x{e.count})" if e.count > 1 else ""
        lines.append(f"{name}:{e.line}: {p.title} [{codes}]{times}")
        lines.append(f"  log: {e.text.strip()[:240]}")
        if e.values:
            lines.append("  read: " + ", ".join(f"{k} = {v}" for k, v in e.values.items()))
        lines.append(("  means: " if p.static else "  no static cause known: ") + e.render(p.means))
        for no, what in e.causes:
            lines.append(f"  cause in the log, line {no}: {what}")
        if p.knobs and p.static and not e.causes:
            lines.append("  cause: the log does not show the command; the values come from " + ", ".join(p.knobs[:6]))
        for code, severity, message in _matching(checked, p.codes):
            lines.append(f"  moecfg check of the command on line {checked.line}: {code} {severity}: {message}")
        lines.append(("  fix: " if p.static else "  workarounds: ") + e.render(p.fix))
        see = " ".join(f"`moecfg explain {c}`" for c in p.codes[:2])
        lines.append(f"  source: {p.source}" + (f"; see {see}" if see else ""))
    if checked and explanations:
        errors = sorted({c for c, sev, _ in checked.findings if sev == "error"})
        lines.append(f"{name}:{checked.line}: moecfg check of this command: "
                     + (f"errors {', '.join(errors)} (`moecfg check` on it shows them all)" if errors else "no error"))
    if not explanations:
        lines.append(f"{name}: no error text moecfg knows (the known texts: `moecfg explain-error --list`)")
    return escape.lines(lines)


def as_json(name: str, explanations, cut: bool, checked=None) -> str:
    items = [{"key": e.pattern.key, "line": e.line, "count": e.count, "title": e.pattern.title,
              "codes": list(e.pattern.codes), "static_cause": e.pattern.static, "values": e.values,
              "log": e.text, "means": e.render(e.pattern.means),
              "causes": [{"line": n, "setting": w} for n, w in e.causes], "fix": e.render(e.pattern.fix),
              "source": e.pattern.source,
              "check": [{"code": c, "severity": sev, "message": m} for c, sev, m in _matching(checked, e.pattern.codes)]}
             for e in explanations]
    command = None if checked is None else {
        "line": checked.line, "findings": [{"code": c, "severity": sev, "message": m} for c, sev, m in checked.findings]}
    return json.dumps({"schema_version": 1, "log": name, "truncated": cut, "explanations": items, "command": command},
                      indent=2, ensure_ascii=True) + "\n"


def known_texts(patterns) -> str:
    """`explain-error --list`: every error text moecfg explains, with its rules and where it comes from."""
    lines = []
    for p in patterns:
        codes = ", ".join(p.codes) if p.codes else "no moecfg rule (no static cause)"
        lines.append(f"{p.key}: {p.title} [{codes}]")
        lines.append(f"  printed by: {p.source}")
    lines.append(f"{len(patterns)} error texts; `moecfg explain-error LOG` reads a log for them")
    return escape.lines(lines)
