"""What a config file and the command line change about one file's results, as frozen data, and the
function that applies it. The engine receives a `FileSettings` (resolved once per file by core/settings)
and calls `apply` / `fill_defaults` itself; nothing here reads files or calls back into settings."""
from __future__ import annotations

from moecfg.core.record import record


@record(frozen=True, slots=True)
class FileSettings:
    """Everything that applies to one checked file: its config file merged with the command line."""

    fail_on: str = "error"
    inline_suppressions: bool = True
    ignore: tuple = ()  # codes and code prefixes: config + command line + the per-path ignores that match
    severity: tuple = ()  # (code or prefix, severity) overrides; the longest matching key wins
    defaults: tuple = ()  # (field, value) for documents that do not set the field (cann_version, product)
    # Launch files (docs/contract.md §5.2): what a command line cannot tell.
    product: str | None = None
    cann_version: str | None = None
    framework_versions: tuple = ()  # (framework, version)
    models: tuple = ()  # (model string or "*", preset name or config.json path)
    settings_dir: str | None = None  # model config paths are relative to the settings file
    device: str | None = None  # GPU model of GPU launches (settings `device`)
    device_memory_gb: float | None = None
    unread: str = "list"  # "error": a launch seen but not read in this file fails the run (issue 30)


def fill_defaults(data: dict, defaults) -> None:
    """Add config defaults that the document's kind knows and the document does not set."""
    if not defaults:
        return
    kind = data.get("kind", "ascend")
    if not isinstance(kind, str):
        return
    from moecfg.backends import fields_module

    mod = fields_module(kind)
    if mod is None:
        return
    names = {f.name for f in _table(mod, data)}
    for key, value in dict(defaults).items():
        if key in names and key not in data:
            data[key] = value


def _table(mod, data: dict) -> tuple:
    """The fields the document's own op takes (a kind with one table per op), else the kind's table: a default
    the op does not take would become an unknown-key error on a document that never wrote the key."""
    per_op = getattr(mod, "OP_FIELDS", None)
    if per_op is not None:
        op = data.get("op", getattr(mod, "DEFAULT_OP", None))
        if isinstance(op, str) and op in per_op:
            return per_op[op]
    return mod.FIELDS


def apply(results, text: str | None, starts, fs: FileSettings) -> None:
    """Inline suppressions, then ignores, then severity overrides, in place."""
    if text is not None and fs.inline_suppressions and "moecfg:" in text:
        from moecfg.core.suppress import apply as apply_suppressions

        apply_suppressions(results, text, starts or [1] * len(results))
    ignored = fs.ignore
    for r in results:
        if ignored:
            r.diagnostics = [d for d in r.diagnostics if not d.code.startswith(ignored)]
        for d in r.diagnostics:
            sev = override(fs.severity, d.code)
            if sev:
                d.severity = sev


def override(table, code: str):
    best = None
    for key, sev in table:  # the longest matching code or prefix wins
        if code.startswith(key) and (best is None or len(key) > len(best[0])):
            best = (key, sev)
    return best[1] if best else None
