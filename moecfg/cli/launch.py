"""`moecfg explain-launch FILE...`: the op calls a launch makes, with each argument's derivation and buffers."""
from __future__ import annotations

import sys

import click

from moecfg.cli.common import launch_options, options
from moecfg.cli.runner import not_empty


@click.command(name="explain-launch", short_help="Show the op calls each launch makes.")
@click.argument("paths", nargs=-1, required=True)
@launch_options
@click.option("--cann", "cann", metavar="VERSION", default=None, callback=not_empty,
              help="CANN release whose rules apply.")
def explain_launch(paths, product, framework_versions, config_path, cann):
    """Show the op calls each launch makes: every argument, how the framework derives it, and the buffers."""
    from moecfg.checking.engine import PathError, check_paths
    from moecfg.checking.settings import Cli, ConfigError, Settings
    from moecfg.render.launch_view import render

    try:
        settings = Settings(Cli(config=config_path, cann=cann))
        report = check_paths(paths, options(cann, product, framework_versions), settings)
    except PathError as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigError as exc:
        raise click.ClickException(f"config: {exc}") from None
    sys.stdout.write(render(report))
