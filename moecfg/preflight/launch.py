"""A launch judged with the machine's facts: the same derivation and rules as `moecfg check` on a script.

The command line and the environment are exactly what the launch gets (argv after `--`, os.environ). The engine
entry point is checking.launch.lint_launch_file, the function `moecfg.api.check_launch` calls; only the
LaunchContext differs: its product, device memory, CANN release, framework versions and model config.json come
from this machine (machine.py) instead of settings files and hints.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from moecfg.preflight.machine import Facts

MAX_WORDS = 4096  # argv words looked at for a model directory


@dataclass
class Outcome:
    facts: Facts
    report: object  # core.diagnostics.Report
    models: dict[str, str] = field(default_factory=dict)  # model path as written -> its config.json
    assumed: list[str] = field(default_factory=list)


def model_configs(argv: list[str]) -> dict[str, str]:
    """Each argv word (or `--flag=value`) naming a directory that holds a config.json: the weights are mounted here,
    so the model's dimensions are read from its own config instead of a preset or a `models:` setting."""
    found = {}
    for word in argv[:MAX_WORDS]:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if value and not value.startswith("-") and len(value) < 4096:
            config = os.path.join(value, "config.json")
            if os.path.isfile(config):
                found[value] = config
    return found


_SHELLS = ("sh", "bash", "dash", "zsh", "ash")


def shell_script(argv: list[str]) -> str | None:
    """The script of `bash -c '<script>'` (a Kubernetes `command: [bash, -c, ...]`): read as a shell script, with
    the environment as exports before it; None for a plain command."""
    if len(argv) >= 3 and os.path.basename(argv[0]) in _SHELLS and argv[1] in ("-c", "-lc", "-ec", "-xc", "-euc"):
        return argv[2]
    return None


def _words(script: str) -> list[str]:
    import shlex

    try:
        return shlex.split(script[:65536], comments=True)
    except ValueError:  # an unterminated quote: the check reports it (MC020)
        return script[:65536].split()


def judge(argv: list[str], env: dict, facts: Facts, product: str | None, cann: str | None) -> Outcome:
    from moecfg.api import _launch_file, _options
    from moecfg.core.diagnostics import Report
    from moecfg.checking.launch import lint_launch_file
    from moecfg.frameworks import LaunchContext

    product = product or facts.product
    cann = cann or facts.cann
    product_from = "--product" if product and product != facts.product else facts.product_from
    command = shell_script(argv)
    models = model_configs(_words(command) if command is not None else argv)
    ascend = product if product in ("A2", "A3") else None
    ctx = LaunchContext(product=product, product_source=product_from, cann=cann,
                        framework_versions=tuple(sorted(facts.framework_versions().items())),
                        models=tuple(models.items()), device_memory_gb=facts.device_memory_gb,
                        device=product if product and not ascend else None)
    launch_file = _launch_file(argv if command is None else command, env)
    results = lint_launch_file(launch_file, "<launch>", ctx, _options(cann, ascend))
    _relabel(results, facts.cann_from if cann == facts.cann else "--cann")
    outcome = Outcome(facts, Report(results=results, files=1), models)
    outcome.assumed = _assumed(facts, product, cann)
    return outcome


def _relabel(results, cann_from: str) -> None:
    """The derivation texts name the settings file as the source of what the context carries; here it came from
    this machine (package metadata, the model directory, the toolkit's version file)."""
    words = ((" (config.json) in the settings", " (the directory the command names)"),
             (" in the settings", " (package metadata)"), ("<- settings", f"<- {cann_from}"))
    for r in results:
        derivation = getattr(r, "derivation", None)
        for key, text in (derivation or {}).items():
            if isinstance(text, str):
                for old, new in words:
                    text = text.replace(old, new)
                derivation[key] = text


def _assumed(facts: Facts, product: str | None, cann: str | None) -> list[str]:
    out = []
    if product is None:
        out.append("product unknown: the rules that need it are skipped (MC042 names them)")
    if cann is None and product in (None, "A2", "A3"):
        out.append("CANN release unknown: the `latest` rule set applies (MC011)")
    frameworks = facts.framework_versions()
    if not frameworks:
        out.append("no framework installed here: the newest supported framework version's derivation applies (MC040)")
    return out
