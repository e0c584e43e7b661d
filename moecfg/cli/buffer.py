"""`moecfg buffer`: the calculator. Imported only when `buffer` runs; its field flags come from the field
tables of every kind, so building this command imports them (never on the `check` path)."""
from __future__ import annotations

import sys

import click

from moecfg.cli.common import ASCEND_PRODUCTS, FAIL_ON, ConfigFailure, common_options, emit, exit_code, launch_options, options


KINDS = {"ascend": "Ascend fields (--kind ascend, the default)", "deepep": "DeepEP fields (--kind deepep)",
         "tutel": "Tutel fields (--kind tutel)"}
# Field flags with another spelling among the common options: kept working, not listed (one spelling in --help).
HIDDEN_ALIASES = {"cann_version": "--cann"}


class FieldOption(click.Option):
    """A flag made from a kind's field table; --help lists it under its kind's heading."""

    def __init__(self, *args, kind: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = kind


class BufferCommand(click.Command):
    """--help: the common options first, then one section per kind, each in its field table's order."""

    def format_options(self, ctx, formatter) -> None:
        sections = {"Options": []} | {title: [] for title in KINDS.values()}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None:
                sections[KINDS.get(getattr(param, "kind", ""), "Options")].append(record)
        for title, rows in sections.items():
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _field_flags():
    """--bs, --ep-world-size, ... from the field tables of every kind (scalar fields only), in table order."""
    from moecfg.backends import fields_module

    seen, flags = set(), []
    for kind in KINDS:
        mod = fields_module(kind)
        if mod is None:
            continue
        for f in mod.FIELDS:
            if f.type in ("mapping",) or f.name in seen or f.name in ("kind", "product"):  # --product: common
                continue
            seen.add(f.name)
            flags.append(click.option("--" + f.name.replace("_", "-"), f.name, cls=FieldOption, kind=kind,
                                      default=None, metavar="VALUE", help=f.doc or None,
                                      hidden=f.name in HIDDEN_ALIASES))
    return flags


@click.argument("file", required=False)
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Set a field (dotted for mappings: env.HCCL_BUFFSIZE=1024); values are YAML scalars.")
@click.option("--kind", "kind", default=None, help="Backend when no FILE is given (default ascend).")
@click.option("--hccl-buffsize", "hccl_buffsize", default=None, metavar="MB", help="Shortcut for --set env.HCCL_BUFFSIZE=MB.")
@click.option("--model-config", "model_config", type=click.Path(), default=None, metavar="PATH",
              help="A Hugging Face config.json: fills the model fields the document does not set (ascend, deepep).")
@common_options
@launch_options
@click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
              help="Exit 1 on diagnostics at this level (default: only when the input is invalid).")
def buffer(file, sets, kind, hccl_buffsize, model_config, fmt, output, cann, product, framework_versions, config_path,
           fail_on, **fields):
    """Required buffer sizes with the formula and its terms, from FILE and/or --set / field flags. FILE may be a
    launch (script, manifest): its settings file, --product and --framework-version apply as in `check`."""
    from moecfg.checking.calculator import run_buffer
    from moecfg.core.record import replace
    from moecfg.checking.settings import Cli, ConfigError, Settings

    overrides = [f"{k}={v}" for k, v in fields.items() if v is not None] + list(sets)
    if hccl_buffsize is not None:
        overrides.append(f"env.HCCL_BUFFSIZE={hccl_buffsize}")
    if kind:
        overrides.append(f"kind={kind}")
    preset = None
    if model_config:
        from moecfg.cli.plan import read_preset

        preset = read_preset(model_config)
    try:
        policy = Settings(Cli(config=config_path, cann=cann)).for_file(file) if file is not None else None
    except ConfigError as exc:
        raise ConfigFailure(f"config: {exc}") from None
    if product and product.upper() in ASCEND_PRODUCTS:  # documents too: the field of the built document, or of
        if file is None or overrides:                   # FILE's documents that do not name their product
            overrides.append(f"product={product.upper()}")
        elif policy is not None:
            policy = replace(policy, defaults=tuple(d for d in policy.defaults if d[0] != "product")
                             + (("product", product.upper()),))
    report = run_buffer(file, overrides, options(cann, product, framework_versions), preset, policy)
    emit(report, fmt, output, "buffer")
    if fail_on:
        sys.exit(exit_code(report, fail_on))
    sys.exit(1 if _input_invalid(report) else 0)


def _input_invalid(report) -> bool:
    """An error that is not about buffer sufficiency: the calculator's answer cannot be trusted."""
    from moecfg.core.registry import RULES

    return any(d.severity == "error" and "buffer" not in RULES[d.code].tags
               for r in report.results for d in r.diagnostics) or not report.results


for _flag in reversed(_field_flags()):  # decorators apply bottom-up: reversed keeps each table's order
    buffer = _flag(buffer)
buffer = click.command(name="buffer", cls=BufferCommand,
                       short_help="Required buffer sizes, with the formula and its terms.")(buffer)
