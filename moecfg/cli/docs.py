"""`moecfg rules`, `moecfg explain` and `moecfg schema`: documentation and editor support (imports only click
here; docs and pydantic are imported when the command runs)."""
from __future__ import annotations

import json
import sys

import click


@click.command()
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
def rules(fmt):
    """List every rule: code, name, severity, products, rule sets and summary."""
    from moecfg.render.rule_docs import all_docs, rules_json, rules_text

    docs = all_docs()
    sys.stdout.write(json.dumps(rules_json(docs), indent=2) + "\n" if fmt == "json" else rules_text(docs))


@click.command()
@click.argument("rule")
def explain(rule):
    """What RULE (a code such as MC201 or a name such as moe-expert-divisibility) checks, why, examples, fix."""
    from moecfg.render.rule_docs import explain_text, lookup

    d = lookup(rule)
    if d is None:
        from moecfg.core.registry import RULES
        from moecfg.core.fields import suggest

        hint = suggest(rule, [r.name for r in RULES.values()] + list(RULES))
        raise click.UsageError(f"no rule {rule!r}{hint}; `moecfg rules` lists them")
    sys.stdout.write(explain_text(d))


@click.command()
@click.option("--kind", "kind", default=None, metavar="KIND",
              help="One backend (ascend, deepep, tutel); default: every kind (a document may be any of them).")
def schema(kind):
    """Print the JSON Schema of deployment files (for editors: yaml-language-server, VS Code)."""
    from moecfg.models.export import available_kinds, json_schema

    kinds = available_kinds()
    if kind is not None and kind not in kinds:
        raise click.UsageError(f"--kind {kind!r}: one of {', '.join(kinds)}")
    sys.stdout.write(json.dumps(json_schema(kind), indent=2) + "\n")
