"""Command line: a click group that imports a command's module only when that command runs; the plainest
`moecfg check PATH...` (no option) runs without importing click at all (cli/plain.py: start-up is most of a
one-file check), with the same output and exit codes.

`moecfg check` imports cli/check.py and the linter, never the planner, the calculator's flag tables, the
docs or pydantic; `moecfg --help` lists every command from the static table below without importing any.
Exit codes (contract §4): 0 nothing at or above --fail-on, 1 findings, 2 usage error or unreadable path,
3 internal error (cli/runner.py).
"""
from __future__ import annotations

import sys

from moecfg.cli.commands import COMMANDS  # noqa: F401  (the table --help lists)


def main(argv=None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if argv is None and len(args) > 1 and args[0] == "check" and all(a == "-" or not a.startswith("-") for a in args[1:]):
        from moecfg.cli.plain import run_check

        run_check(args[1:])  # exits, unless the run needs click's usage-error message: then click runs it again
    from moecfg.cli.group import cli
    from moecfg.cli.runner import run

    run(cli, argv)


def __getattr__(name: str):
    if name == "cli":  # the click group (tests and embedding programs); loaded on first use
        from moecfg.cli.group import cli

        return cli
    raise AttributeError(f"module 'moecfg.cli' has no attribute {name!r}")
