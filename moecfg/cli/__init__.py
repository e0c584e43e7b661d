"""Command line: a click group that imports a command's module only when that command runs.

`moecfg check` imports cli/check.py and the linter, never the planner, the calculator's flag tables, the
docs or pydantic; `moecfg --help` lists every command from the static table below without importing any.
Exit codes (contract §4): 0 nothing at or above --fail-on, 1 findings, 2 usage error or unreadable path,
3 internal error (cli/runner.py).
"""
from __future__ import annotations

import importlib

import click

from moecfg import __version__

# name -> (module, attribute, short help). The short help is each command's own `short_help` (a test checks
# that they agree), kept here so that `moecfg --help` imports no command module.
COMMANDS = {
    "buffer": ("moecfg.cli.buffer", "buffer", "Required buffer sizes, with the formula and its terms."),
    "check": ("moecfg.cli.check", "check", "Lint deployment files, directories and stdin."),
    "explain": ("moecfg.cli.docs", "explain", "What a rule checks, why it matters, and the fix."),
    "explain-error": ("moecfg.cli.explain_error", "explain_error", "Explain a failed launch's error log."),
    "explain-launch": ("moecfg.cli.launch", "explain_launch", "Show the op calls each launch makes."),
    "preflight": ("moecfg.cli.preflight", "preflight", "Check a launch on this machine, then run it."),
    "plan": ("moecfg.cli.plan", "plan", "Solve what to set over EP sizes / rank counts."),
    "rules": ("moecfg.cli.docs", "rules", "List every rule, or a rule set's limits."),
    "schema": ("moecfg.cli.docs", "schema", "Print the JSON Schema of deployment files."),
    "sweep": ("moecfg.cli.plan", "sweep", "Required buffer vs tokens per rank or EP size."),
}


class LazyGroup(click.Group):
    """Commands resolved from COMMANDS on first use; `--help` lists them from the table."""

    def list_commands(self, ctx) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx, name: str):
        if name not in self.commands and name in COMMANDS:
            module, attr, _ = COMMANDS[name]
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return self.commands.get(name)

    def format_commands(self, ctx, formatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx) if name in COMMANDS]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="moecfg")
def cli():
    """Lint MoE expert-parallel deployment configs and size their communication buffers, before launch."""


def main(argv=None) -> None:
    from moecfg.cli.runner import run

    run(cli, argv)
