"""`moecfg buffer`: build documents from a file and/or command-line overrides, then analyse them."""
from __future__ import annotations

import click
import yaml

from moecfg.core.diagnostics import Report
from moecfg.checking.engine import lint_bytes, lint_text
from moecfg.sources.files import Unreadable, read
from moecfg.sources.manifests.yaml_source import YamlProblem, decode, parse_stream


def _parse_override(item: str):
    if "=" not in item:
        raise click.UsageError(f"--set {item!r}: expected KEY=VALUE")
    key, _, raw = item.partition("=")
    key = key.strip().replace("-", "_")
    if not key:
        raise click.UsageError(f"--set {item!r}: empty key")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except (yaml.YAMLError, ValueError, TypeError, KeyError, IndexError, OverflowError):  # `bs=0x_`, 5000 digits
        value = raw  # kept as text: the field's check reports it
    if isinstance(value, dict):  # a mapping is set key by key (dotted keys), not as a literal
        value = raw
    return key.split("."), value


def _apply(data: dict, overrides) -> dict:
    """Set each dotted key; a non-mapping on the way is replaced by a mapping (the override wins)."""
    for parts, value in overrides:
        node = data
        for p in parts[:-1]:
            if not isinstance(node.get(p), dict):
                node[p] = {}
            node = node[p]
        node[parts[-1]] = value
    return data


def _fill(data: dict, preset) -> dict:
    """`--model-config`: the preset's fields for the document's kind, where the document does not set them."""
    if preset is not None:
        from moecfg.presets.expand import preset_values

        kind = data.get("kind", "ascend")
        data.update(preset_values(kind.strip().lower() if isinstance(kind, str) else "", preset, data))
    return data


def run_buffer(file, overrides, options, preset=None, policy=None) -> Report:
    """`policy`: the FILE's settings (core/policy.FileSettings; None: none apply), as `check` applies them."""
    parsed = [_parse_override(o) for o in overrides]
    report = Report()
    if file is not None:
        try:
            raw = read(file)
        except Unreadable as exc:
            raise click.UsageError(f"{file}: {exc}") from None
        name = "<stdin>" if file == "-" else file
        if not parsed and preset is None:
            report.results = lint_bytes(raw, name, options, policy)
            report.files = 1
            return report
        try:  # the strict loader (depth and alias budgets), not PyYAML's recursive pure-Python one
            docs = [d.data for d in parse_stream(decode(raw)) if d.data is not None]
        except YamlProblem:
            report.results = lint_bytes(raw, name, options, policy)  # reports the problem with its position
            report.files = 1
            return report
        docs = [d if isinstance(d, dict) else {} for d in docs] or [{}]
        name += " (with overrides)"
    else:
        if not parsed and preset is None:
            raise click.UsageError("give a FILE, --set KEY=VALUE or field flags such as --ep-world-size 16")
        docs, name = [{}], "<command line>"
    try:
        text = yaml.safe_dump_all([_fill(_apply(d, parsed), preset) for d in docs], sort_keys=False)
    except RecursionError:  # the dumper recurses: a document nested some hundred levels
        raise click.UsageError(f"{name}: nested too deeply to apply --set; check the file without overrides") from None
    report.results = lint_text(text, name, options, policy)
    report.files = 1
    return report
