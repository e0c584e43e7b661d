"""explain-error output: text (each line escaped: the log is untrusted) or JSON."""
from __future__ import annotations

import json

from moecfg.render import escape


def text(name: str, explanations, cut: bool) -> str:
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
        lines.append(("  fix: " if p.static else "  workarounds: ") + e.render(p.fix))
        see = " ".join(f"`moecfg explain {c}`" for c in p.codes[:2])
        lines.append(f"  source: {p.source}" + (f"; see {see}" if see else ""))
    if not explanations:
        lines.append(f"{name}: no error text moecfg knows (the known texts: docs/preflight.md)")
    return escape.lines(lines)


def as_json(name: str, explanations, cut: bool) -> str:
    items = [{"key": e.pattern.key, "line": e.line, "count": e.count, "title": e.pattern.title,
              "codes": list(e.pattern.codes), "static_cause": e.pattern.static, "values": e.values,
              "log": e.text, "means": e.render(e.pattern.means),
              "causes": [{"line": n, "setting": w} for n, w in e.causes], "fix": e.render(e.pattern.fix),
              "source": e.pattern.source} for e in explanations]
    return json.dumps({"schema_version": 1, "log": name, "truncated": cut, "explanations": items},
                      indent=2, ensure_ascii=True) + "\n"
