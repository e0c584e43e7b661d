"""The click group of every command (cli/__init__.py's COMMANDS), each command's module imported on first use."""
from __future__ import annotations

import importlib

import click

from moecfg.cli.commands import COMMANDS
from moecfg.version import __version__


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
