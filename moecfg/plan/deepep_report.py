"""Output of `moecfg plan --kind deepep`: a rich table, JSON, and YAML ready for `moecfg check`."""
from __future__ import annotations

import json

import yaml

from moecfg.version import __version__
from moecfg.render import escape
from moecfg.plan.deepep_problem import TOKENS
from moecfg.plan.report import _console

TITLES = {"buffers": "smallest DeepEP buffers per rank count", "tokens": "most tokens per rank for the RDMA buffer",
          "check": "verdict per rank count"}


def _what(answers) -> str:
    solved = answers[0].solved if answers else ()
    return "tokens" if TOKENS in solved else ("buffers" if solved else "check")


def _bytes(value) -> str:
    return "-" if value is None else f"{value:,}"


def _required(req: dict) -> str:
    return ", ".join(f"{d} {b:,}" for d, b in req.items()) or "-"


def _verdict(a) -> str:
    text = "ok" if a.ok else "rejected: " + " ".join(a.verdict.codes)
    if a.ok and a.verdict.warnings:
        text += " (warns " + " ".join(a.verdict.warnings) + ")"
    return text


def _next(a) -> str:
    short = {TOKENS: "T", "num_nvl_bytes": "nvl", "num_rdma_bytes": "rdma"}
    return "; ".join(f"{short[p.field]} {p.value:,}: {' '.join(p.verdict.codes) or 'ok'}" for p in a.next)


def plan_text(answers, problem, color: bool = False) -> str:
    from rich.table import Table

    table = Table(title=f"DeepEP {problem.mode}: {TITLES[_what(answers)]}", title_justify="left")
    cols = ("num_ranks", "tokens/rank", "num_nvl_bytes", "num_rdma_bytes", "required bytes", "verdict", "next value")
    for col in cols if problem.low_latency else cols[:1] + cols[2:]:  # tokens size only low-latency buffers
        table.add_column(col, justify="right" if col in cols[:4] else "left")
    for a in answers:
        row = [str(a.num_ranks), "-" if a.tokens is None else str(a.tokens), _bytes(a.nvl_bytes), _bytes(a.rdma_bytes),
               _required(a.required), _verdict(a), _next(a)]
        table.add_row(*(row if problem.low_latency else row[:1] + row[2:]))
    con = _console(color, width=160)
    con.print(table)
    if problem.model_note:
        con.print(f"model: {problem.model_note}")
    for a in answers:
        if a.limited_by and a.ok:
            con.print(f"  num_ranks {a.num_ranks}: T = {a.tokens} is the largest; T + 1 is stopped by {a.limited_by}")
        if not a.ok and len(answers) == 1:
            for r in a.verdict.reasons:
                con.print(f"  {r}")
    valid = sum(a.ok for a in answers)
    con.print(f"{valid} of {len(answers)} rank count{'s' if len(answers) != 1 else ''} valid")
    return escape.terminal(con.file.getvalue(), colour=color)


def plan_json(answers, problem) -> str:
    return json.dumps({"schema_version": 1, "moecfg_version": __version__, "kind": "deepep", "mode": problem.mode,
                       "model": problem.model_note, "answers": [a.to_json() for a in answers],
                       "summary": {"candidates": len(answers), "valid": sum(a.ok for a in answers)}}, indent=2) + "\n"


def plan_yaml(answers, problem) -> str:
    """One document per valid answer: the file `moecfg check` accepts."""
    out = []
    for a in answers:
        if not a.ok or (problem.low_latency and a.tokens is None):
            continue
        head = (f"# moecfg plan: DeepEP {problem.mode}, num_ranks {a.num_ranks}"
                + (f", {a.tokens} tokens per rank" if a.tokens is not None else "")
                + f" (required: {_required(a.required)} bytes)\n")
        if problem.model_note:
            head += f"# model: {escape.text(problem.model_note)}\n"
        out.append(head + yaml.safe_dump(problem.document(a.num_ranks, a.tokens, a.nvl_bytes, a.rdma_bytes),
                                         sort_keys=False))
    return "---\n".join(out)
