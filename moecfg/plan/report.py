"""Output of `plan` and `sweep`: rich tables and bar charts, JSON, YAML ready for `moecfg check`, plots."""
from __future__ import annotations

import io
import json
import os

import yaml

from moecfg.version import __version__
from moecfg.render import escape
from moecfg.backends.ascend.formulas import ceil_mb

BAR_WIDTH = 48
CHART_ROWS = 24


def _console(color: bool, width: int = 120):
    from rich.console import Console

    return Console(file=io.StringIO(), force_terminal=color, no_color=not color, width=width, highlight=False,
                   markup=False)  # no rich markup from names and values


def _mb(req: dict) -> str:
    return ", ".join(f"{d} {ceil_mb(b)} MB" for d, b in req.items()) or "-"


def plan_text(answers, problem, color: bool = False) -> str:
    from rich.table import Table

    solved = answers[0].solved if answers else "buffer"
    name = problem.buffer_name
    title = {"buffer": f"smallest {name} per EP size", "bs": "largest bs per EP size",
             "check": "verdict per EP size"}[solved]
    table = Table(title=f"{problem.product}, rules {problem.ruleset.name}: {title}", title_justify="left")
    for col in ("ep", "bs", f"{name} MB", "required", "verdict", "next value"):
        table.add_column(col, justify="right" if col in ("ep", "bs", f"{name} MB") else "left")
    for a in answers:
        verdict = "ok" if a.ok else "rejected: " + " ".join(a.verdict.codes)
        if a.ok and a.verdict.warnings:
            verdict += " (warns " + " ".join(a.verdict.warnings) + ")"
        nxt = ""
        if a.next_verdict is not None:
            what = "bs" if a.solved == "bs" else "buffer"
            nxt = f"{what} {a.next_value}: " + (" ".join(a.next_verdict.codes) or "ok")
        table.add_row(str(a.ep), "-" if a.bs is None else str(a.bs), "-" if a.buffer_mb is None else str(a.buffer_mb),
                      _mb(a.required), verdict, nxt)
    con = _console(color)
    con.print(table)
    if problem.model_note:
        con.print(f"model: {problem.model_note}")
    for a in answers:
        if not a.ok and len(answers) == 1:
            for r in a.verdict.reasons:
                con.print(f"  {r}")
    valid = sum(a.ok for a in answers)
    con.print(f"{valid} of {len(answers)} EP size{'s' if len(answers) != 1 else ''} valid")
    return escape.terminal(con.file.getvalue(), colour=color)


def plan_json(answers, problem) -> str:
    return json.dumps({"schema_version": 1, "moecfg_version": __version__, "product": problem.product,
                       "ruleset": problem.ruleset.name, "model": problem.model_note,
                       "answers": [a.to_json() for a in answers],
                       "summary": {"candidates": len(answers), "valid": sum(a.ok for a in answers)}}, indent=2) + "\n"


def plan_yaml(answers, problem) -> str:
    """One document per valid answer: the file `moecfg check` accepts."""
    docs = [a for a in answers if a.ok and a.bs is not None and a.buffer_mb is not None]
    if not docs:
        return ""
    out = []
    for a in docs:
        head = (f"# moecfg plan: ep_world_size {a.ep}, bs {a.bs}, {problem.buffer_name} "
                f"{a.buffer_mb} MB ({_mb(a.required)} required)\n")
        if problem.model_note:
            head += f"# model: {escape.text(problem.model_note)}\n"
        out.append(head + yaml.safe_dump(problem.document(a.ep, a.bs, a.buffer_mb), sort_keys=False))
    return "---\n".join(out)


def _sample(n: int, rows: int | None = CHART_ROWS) -> list:
    """Indices of the rows the text shows: all of them (rows None), else `rows` spread evenly, ends included."""
    if rows is None or n <= rows:
        return list(range(n))
    step = (n - 1) / (rows - 1)
    return sorted({round(i * step) for i in range(rows)})


def _rejected(series, i: int) -> tuple:
    """Codes of the rules that reject point i (series of sweeps that do not judge points have none)."""
    rejected = getattr(series, "rejected", None)
    return rejected[i] if rejected else ()


def _cell(series, mbs, i: int) -> str:
    if mbs[i] is None:
        return "n/a"
    codes = _rejected(series, i)
    return f"{mbs[i]} ({', '.join(codes)})" if codes else str(mbs[i])


def _sweep_notes(sw, rows) -> list[str]:
    notes = []
    if any(_rejected(s, i) for s in sw.series for i in range(len(sw.xs))):
        notes.append("(MCxxx): the rules reject that point (moecfg explain MCxxx); its figure is the buffer the op "
                     "would need, not a valid configuration")
    if len(rows) < len(sw.xs):
        notes.append(f"{len(rows)} of {len(sw.xs)} rows shown (evenly spaced); --rows all shows every row")
    return notes


def sweep_text(sw, color: bool = False, rows: int | None = CHART_ROWS) -> str:
    from rich.table import Table

    con = _console(color)
    xname = sw.xname
    fixed = ", ".join(f"{k} {v}" for k, v in sw.fixed.items())
    con.print(f"required {sw.quantity} (MB) vs {xname}" + (f" ({fixed})" if fixed else ""))  # not wrapped to the table
    table = Table()
    table.add_column(xname, justify="right")
    for s in sw.series:
        table.add_column(s.label, justify="right")
    rows = _sample(len(sw.xs), rows)
    mbs = [s.required_mb for s in sw.series]
    for i in rows:
        table.add_row(str(sw.xs[i]), *[_cell(s, m, i) for s, m in zip(sw.series, mbs)])
    con.print(table)
    con.print(chart(sw, rows))
    for note in _sweep_notes(sw, rows):
        con.print(note, soft_wrap=True)
    return escape.terminal(con.file.getvalue(), colour=color)


def chart(sw, rows) -> str:
    """Horizontal bars per x and series; `|` marks each limit line that falls inside the scale."""
    values = [v for s in sw.series for v in s.required_mb if v is not None]
    if not values:
        return "(nothing to chart: no point is computable)"
    top = max(values)
    shown = {name: mb for name, mb in sw.limits.items() if mb <= 2 * top}
    scale = max([top, *shown.values()])
    marks = {min(BAR_WIDTH - 1, mb * BAR_WIDTH // scale): name for name, mb in shown.items()}
    glyphs = "█▓▒░#*+="
    lines = []
    for i in rows:
        for j, s in enumerate(sw.series):
            mb = s.required_mb[i]
            n = 0 if not mb else max(1, mb * BAR_WIDTH // scale)  # 0 MB (no buffer needed): no bar
            bar = [glyphs[j % len(glyphs)] if c < n else " " for c in range(BAR_WIDTH)]
            for col in marks:
                bar[col] = "|"
            label = f"{sw.xs[i]:>6}" if j == 0 else " " * 6
            codes = _rejected(s, i)
            lines.append(f"{label} {''.join(bar)} {'n/a' if mb is None else mb}"
                         + (f" rejected ({', '.join(codes)})" if codes else ""))
    legend = [f"{glyphs[j % len(glyphs)]} {s.label}" for j, s in enumerate(sw.series)]
    legend += [f"| {name} = {mb} MB" for name, mb in shown.items()]
    legend += [f"  {name} = {mb} MB (off the scale)" for name, mb in sw.limits.items() if name not in shown]
    return "\n".join(lines + ["scale: " + f"{BAR_WIDTH} columns = {scale} MB"] + legend)


def sweep_json(sw) -> str:
    return json.dumps({"schema_version": 1, "moecfg_version": __version__, **sw.to_json()}, indent=2) + "\n"


class PlotUnavailable(Exception):
    pass


def _plot_series(ax, sw) -> None:
    """Each series in its colour: solid where the rules accept the point, dotted with x marks where they reject it."""
    for j, s in enumerate(sw.series):
        ok = [(x, y) for i, (x, y) in enumerate(zip(sw.xs, s.required_mb)) if y is not None and not _rejected(s, i)]
        bad = [(x, y) for i, (x, y) in enumerate(zip(sw.xs, s.required_mb)) if y is not None and _rejected(s, i)]
        if ok:
            ax.plot(*zip(*ok), color=f"C{j}", label=s.label)
        if bad:
            codes = sorted({c for i in range(len(sw.xs)) for c in _rejected(s, i)})
            ax.plot(*zip(*bad), color=f"C{j}", linestyle=":", marker="x", markersize=4,
                    markevery=max(1, len(bad) // 24), label=f"{s.label}: rejected ({', '.join(codes)})")


def _plot_limits(ax, sw) -> None:
    """Limit lines inside the data's range are drawn; one far above (device memory) is a labelled arrow at the
    top instead of a line that would squash the data to the bottom of the chart."""
    values = [v for s in sw.series for v in s.required_mb if v is not None]
    top = max(values) if values else 1
    above = []
    for i, (name, mb) in enumerate(sw.limits.items()):  # one colour per line, after the series' colours
        if mb <= 1.5 * top:
            ax.axhline(mb, linestyle="--", linewidth=1, color=f"C{len(sw.series) + i}", label=f"{name}: {mb} MB")
        else:
            above.append(f"{name}: {mb} MB")
    ax.set_ylim(0, max([top] + [mb for mb in sw.limits.values() if mb <= 1.5 * top]) * 1.08)
    for k, text in enumerate(above):
        ax.annotate(f"\u2191 {text} (above the chart)", xy=(0.01, 0.985 - 0.05 * k), xycoords="axes fraction",
                    va="top", fontsize="small", color="dimgray")


def plot(sw, path: str) -> None:
    """Write a line chart (svg/png by suffix) with the limit lines; needs matplotlib (extra `plot`)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable("--plot needs matplotlib: pip install 'moecfg[plot]' (or pip install matplotlib)") from None
    fig, ax = plt.subplots(figsize=(8, 5))
    _plot_series(ax, sw)
    _plot_limits(ax, sw)
    ax.set_xlabel(sw.xlabel)
    ax.set_ylabel(f"required {sw.quantity} (MB)")
    ax.legend(fontsize="small")
    from moecfg.core.output import atomic_path

    with atomic_path(path, "--plot") as tmp:
        fig.savefig(tmp, format=os.path.splitext(path)[1][1:].lower() or plt.rcParams["savefig.format"])
    plt.close(fig)
