"""`--format github`: GitHub Actions workflow commands, one annotation per diagnostic.

    ::error file=deploy/a3.yaml,line=7,col=17,endLine=7,endColumn=20,title=MC201 moe-expert-divisibility::...

error -> `::error`, warning -> `::warning`, info -> `::notice`; a summary line follows. Chosen
automatically when GITHUB_ACTIONS=true and no --format is given.
"""
from __future__ import annotations

from moecfg.render.escape import github_data as _data, github_property as _prop
from moecfg.render.text import _summary

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _repo_path(name: str) -> str:
    """The file as GitHub matches it to the pull request's diff: relative to the repository, `./` dropped (the
    walk of `moecfg check` with no path, or of `.`, names `./deploy/a.yaml`)."""
    while name.startswith("./"):
        name = name[2:]
    return name


def annotation(r, d) -> str:
    props = [f"file={_prop(_repo_path(r.file))}", f"line={d.line}", f"col={d.column}"]
    if d.end_line is not None:
        props += [f"endLine={d.end_line}", f"endColumn={d.end_column}"]
    props.append(f"title={_prop(f'{d.code} {d.name}')}")
    return f"::{COMMAND[d.severity]} {','.join(props)}::{_data(d.message)}"


def render(report, *, color: bool = False, command: str = "check") -> str:
    lines = [annotation(r, d) for r in report.results for d in r.diagnostics]
    lines.append(_summary(report))
    return "\n".join(lines) + "\n"
