"""`moecfg rules`, `moecfg explain` and `moecfg schema`: documentation and editor support (this module is
imported when one of them runs; the docs and pydantic only inside the command)."""
from __future__ import annotations

import json
import sys

import click


@click.command(short_help="List every rule, or a rule set's limits.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@click.option("--ruleset", "rulesets", multiple=True, metavar="NAME",
              help="A CANN rule set (8.5, 9.0, 9.1, 9.1.0, latest, ... or a version): once, its limits; twice, "
                   "what changed from the first to the second.")
@click.option("--diff", "diff_pair", nargs=2, default=None, metavar="OLD NEW", help="Same as --ruleset OLD --ruleset NEW.")
def rules(fmt, rulesets, diff_pair):
    """List every rule: code, name, severity, products, rule sets and summary; or a rule set's limits."""
    names = list(diff_pair or ()) + list(rulesets)
    if names:
        _ruleset_limits(fmt, names)
        return
    from moecfg.render.rule_docs import all_docs, rules_json, rules_text

    docs = all_docs()
    sys.stdout.write(json.dumps(rules_json(docs), indent=2) + "\n" if fmt == "json" else rules_text(docs))


def _ruleset_name(text: str) -> str:
    from moecfg.backends.ascend.shared.rulesets import TIMELINE, resolve

    name, warning = resolve(text)
    if warning:
        click.echo(f"moecfg: {warning}", err=True)
    if name is None:
        raise click.UsageError(f"--ruleset {text!r}: not a rule set or CANN version (one of {', '.join(TIMELINE)})")
    return name


def _ruleset_limits(fmt: str, names: list) -> None:
    from moecfg.backends.ascend import ruleset_diff
    from moecfg.backends.ascend.shared.rulesets import RULESETS

    if len(names) > 2:
        raise click.UsageError("give one rule set (its limits) or two (what changed between them)")
    resolved = [_ruleset_name(n) for n in names]
    head = [{"name": n, "source": RULESETS[n].source} for n in resolved]
    if len(resolved) == 1:
        rows = [{"path": p, "value": v, "rule": ruleset_diff.rule_of(p)}
                for p, v in ruleset_diff.limits(resolved[0]).items()]
        body = {"ruleset": head[0], "limits": rows}
        lines = [f"{r['path']} = {r['value']!r}" + (f"  ({r['rule']})" if r["rule"] else "") for r in rows]
    else:
        rows = ruleset_diff.diff(*resolved)
        body = {"from": head[0], "to": head[1], "changes": rows}
        lines = [f"{r['path']}: {r['old']!r} -> {r['new']!r}" + (f"  ({r['rule']})" if r["rule"] else "") for r in rows]
        lines.append(f"{len(rows)} limit(s) differ" if rows else "no limit differs")
    if fmt == "json":
        sys.stdout.write(json.dumps(body, indent=2, default=list) + "\n")
        return
    title = " -> ".join(f"{h['name']} ({h['source']})" for h in head)
    sys.stdout.write(f"Rule set {title}\n" + "".join(f"  {line}\n" for line in lines))


@click.command(short_help="What a rule checks, why it matters, and the fix.")
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


@click.command(short_help="Print the JSON Schema of deployment files.")
@click.option("--kind", "kind", default=None, metavar="KIND",
              help="One backend (ascend, deepep, tutel); default: every kind (a document may be any of them).")
def schema(kind):
    """Print the JSON Schema of deployment files (for editors: yaml-language-server, VS Code)."""
    from moecfg.models.export import available_kinds, json_schema

    kinds = available_kinds()
    if kind is not None and kind not in kinds:
        raise click.UsageError(f"--kind {kind!r}: one of {', '.join(kinds)}")
    sys.stdout.write(json.dumps(json_schema(kind), indent=2) + "\n")
