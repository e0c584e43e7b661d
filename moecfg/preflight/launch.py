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
from moecfg.preflight.tools import read_small

MAX_WORDS = 4096  # argv words looked at for a model directory


@dataclass
class Outcome:
    facts: Facts
    report: object  # core.diagnostics.Report
    models: dict[str, str] = field(default_factory=dict)  # model path as written -> its config.json
    assumed: list[str] = field(default_factory=list)
    from_settings: list[str] = field(default_factory=list)  # "product <- .moecfg.yaml": what the settings supplied


def model_configs(argv: list[str]) -> dict[str, str]:
    """Each argv word (or `--flag=value`) naming a directory that holds a config.json: the weights are mounted here,
    so the model's dimensions are read from its own config instead of a preset or a `models:` setting. The path is
    the operator's own command: read wherever it is (absolute), not only under the working directory."""
    found = {}
    for word in argv[:MAX_WORDS]:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if value and not value.startswith("-") and len(value) < 4096 and "\x00" not in value:
            config = os.path.join(value, "config.json")
            if os.path.isfile(config):
                found[value] = os.path.abspath(config)
    return found


_SHELLS = ("sh", "bash", "dash", "zsh", "ash", "ksh")
SCRIPT_CAP = 1024 * 1024  # bytes of a `bash FILE` script read


def shell_script(argv: list[str]) -> str | None:
    """The script a shell runs from a file (`bash start.sh`, `sh -e run.sh`: the most common container command),
    read from this machine; None when argv is not that form or the file cannot be read. `bash -c` needs no help:
    the shell reader reads every option form of it from the command line itself."""
    path = script_path(argv)
    return None if path is None else read_small(path, SCRIPT_CAP)


def script_path(argv: list[str]) -> str | None:
    """The file of `bash FILE` (None: argv is not that form)."""
    if not argv or os.path.basename(argv[0]) not in _SHELLS:
        return None
    i = 1
    while i < len(argv) and argv[i].startswith(("-", "+")) and argv[i] not in ("-", "--"):
        if "c" in argv[i].lstrip("-+") and not argv[i].startswith("--"):
            return None  # `bash -ec '...'`: the script is on the command line
        i += 1 + (argv[i] in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"))
    i += i < len(argv) and argv[i] == "--"
    if i >= len(argv):
        return None
    return argv[i]


def _words(script: str) -> list[str]:
    import shlex

    try:
        return shlex.split(script[:65536], comments=True)
    except ValueError:  # an unterminated quote: the check reports it (MC020)
        return script[:65536].split()


def launch_text(argv: list[str]) -> str:
    """The shell text of exactly what is exec'd: `env A=1 -u B ...`, `bash -o pipefail -c '...'`, `sh -euxc` are
    read by the shell reader as bash would run them; `bash FILE` is the file's script."""
    import shlex

    return shell_script(argv) or shlex.join(argv)


def judge(argv: list[str], env: dict, facts: Facts, product: str | None, cann: str | None,
          settings=None) -> Outcome:
    """`settings`: the FileSettings of the working directory's .moecfg.yaml (None: none); what this machine
    says wins over it, and it fills only what the machine could not tell."""
    from moecfg.api import _options
    from moecfg.core.diagnostics import Report
    from moecfg.checking.launch import lint_launch_file
    from moecfg.frameworks import LaunchContext
    from moecfg.sources.readers import read_shell
    from moecfg.sources.shell.repair import ASK_BASH

    used = _from_settings(facts, settings, product, cann)
    product = product or facts.product or used.get("product")
    cann = cann or facts.cann or used.get("cann")
    product_from = "--product" if product and product != facts.product and "product" not in used else \
        (".moecfg.yaml" if "product" in used else facts.product_from)
    script = launch_text(argv)
    if script_path(argv) is not None and shell_script(argv) is None:  # a FIFO, a device, > 1 MiB, binary: said
        facts.unread.append(f"script {script_path(argv)}: not read (not a regular text file of at most 1 MiB): "
                            "the launch it runs is not checked")
    words = _words(script)
    words += [inner for w in words[:MAX_WORDS] if any(c in w for c in " \t\n") for inner in _words(w)]  # bash -c
    models = model_configs(words)
    versions = dict(used.get("framework_versions", ()))
    versions.update(facts.framework_versions())
    ascend = product if product in ("A2", "A3") else None
    memory = facts.device_memory_gb if facts.device_memory_gb is not None else used.get("device_memory_gb")
    ctx = LaunchContext(product=product, product_source=product_from, cann=cann,
                        framework_versions=tuple(sorted(versions.items())),
                        models=tuple(models.items()) or tuple(used.get("models", ())),
                        settings_dir=used.get("settings_dir"), models_trusted=bool(models),
                        device_memory_gb=memory, device=product if product and not ascend else None)
    token = ASK_BASH.set(False)  # preflight starts nothing but the device tools and, once passed, the command
    try:
        launch_file = read_shell(script, environment=env)
        results = lint_launch_file(launch_file, "<launch>", ctx, _options(cann, ascend))
    finally:
        ASK_BASH.reset(token)
    _relabel(results, facts.cann_from if cann == facts.cann else ("--cann" if "cann" not in used else ".moecfg.yaml"))
    outcome = Outcome(facts, Report(results=results, files=1), models)
    outcome.assumed = _assumed(facts, product, cann, versions)
    outcome.from_settings = [f"{k} <- .moecfg.yaml" for k in used if k not in ("settings_dir",)]
    return outcome


def _from_settings(facts: Facts, settings, product: str | None, cann: str | None) -> dict:
    """What the settings file supplies that neither the command line nor this machine told."""
    if settings is None:
        return {}
    used: dict = {}
    if not product and not facts.product and settings.product:
        used["product"] = settings.product
    if not cann and not facts.cann and settings.cann_version:
        used["cann"] = settings.cann_version
    machine = facts.framework_versions()
    versions = tuple((k, v) for k, v in settings.framework_versions if k not in machine)
    if versions:
        used["framework_versions"] = versions
    if settings.models:
        used["models"] = settings.models
        used["settings_dir"] = settings.settings_dir
    if facts.device_memory_gb is None and settings.device_memory_gb:
        used["device_memory_gb"] = settings.device_memory_gb
    return used


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


def _assumed(facts: Facts, product: str | None, cann: str | None, versions: dict) -> list[str]:
    out = []
    if product is None:
        out.append("product unknown: the rules that need it are skipped (MC042 names them)")
    if cann is None and product in (None, "A2", "A3"):
        out.append("CANN release unknown: the `latest` rule set applies (MC011)")
    if not versions:
        out.append("no framework installed here: the newest supported framework version's derivation applies (MC040)")
    return out
