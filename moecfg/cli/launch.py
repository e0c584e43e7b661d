"""`moecfg explain-launch FILE...`: the op calls a launch makes, with each argument's derivation and buffers."""
from __future__ import annotations

import sys

import click

from moecfg.cli.runner import not_empty


@click.command(name="explain-launch", short_help="Show the op calls each launch makes.")
@click.argument("paths", nargs=-1, required=True)
@click.option("--product", type=click.Choice(["A2", "A3"], case_sensitive=False), default=None,
              help="Hardware of the launch (a command line does not name it).")
@click.option("--cann", "cann", metavar="VERSION", default=None, callback=not_empty,
              help="CANN release whose rules apply.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Settings file to use instead of searching .moecfg.yaml / pyproject.toml.")
def explain_launch(paths, product, cann, config_path):
    """Show the op calls each launch makes: every argument, how the framework derives it, and the buffers."""
    from moecfg.backends import Options
    from moecfg.checking.engine import PathError, check_paths
    from moecfg.checking.settings import Cli, ConfigError, Settings
    from moecfg.render.launch_view import render

    try:
        settings = Settings(Cli(config=config_path, cann=cann))
        report = check_paths(paths, Options(cann=cann, product=product.upper() if product else None), settings)
    except PathError as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigError as exc:
        raise click.ClickException(f"config: {exc}") from None
    sys.stdout.write(render(report))
