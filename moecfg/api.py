"""The Python API: the same engine, rules and formulas as `moecfg check`, called in-process.

    import moecfg
    report = moecfg.check({"product": "A3", "bs": 128, "h": 7168, "k": 8, "ep_world_size": 32,
                           "moe_expert_num": 256, "env": {"HCCL_BUFFSIZE": 1024}})
    if not report.valid:
        sys.exit("\\n".join(d.message for d in report.diagnostics))

pydantic is imported when a function here runs, never by `import moecfg`.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from moecfg.models.report import Report, Requirement

Config = Union[Mapping[str, Any], str, "os.PathLike[str]", Any]  # dict, pydantic model, YAML text or a path


def _options(cann: str | None, product: str | None):
    """The engine's Options (used by preflight and explain-error as well): models/check.py builds them."""
    from moecfg.models.check import options

    return options(cann, product)


def check(config: Config, *, cann: str | None = None, product: str | None = None, name: str = "<config>") -> Report:
    """Check a deployment: a dict, a moecfg pydantic model, YAML text or a path (file or folder; launch files
    too). `cann` overrides the documents' cann_version; `product` is the hardware of launch files."""
    from moecfg.models.check import check_config

    return check_config(config, cann=cann, product=product, name=name)


def required_buffers(config: Config, *, cann: str | None = None) -> dict[str, Requirement]:
    """The buffer each communicator needs (bytes, MB, formula, terms) for a one-document config."""
    from moecfg.models.check import core_check
    from moecfg.models.report import Requirement

    report = core_check(config, cann, None, "<config>")
    out: dict[str, Requirement] = {}
    for result in report.results:
        for domain, b in result.buffers.items():
            out[domain] = Requirement(domain=domain, **b)
    return out


def check_launch(command: str | Sequence[str], env: Mapping[str, str] | None = None, *, product: str | None = None,
                 cann: str | None = None, framework_versions: Mapping[str, str] | None = None,
                 models: Mapping[str, str] | None = None, name: str = "<launch>") -> Report:
    """Check a launch: an argv list (`["vllm", "serve", "m", "--tensor-parallel-size", "4"]`) or a shell command
    string, with its environment. The framework derives the op calls as in `moecfg check` on a script."""
    from moecfg.checking.launch import lint_launch_file
    from moecfg.core.diagnostics import Report as CoreReport
    from moecfg.models.check import options, to_report
    from moecfg.frameworks import LaunchContext

    ctx = LaunchContext(product=product.upper() if product else None, product_source="product=" if product else "",
                        cann=cann, framework_versions=tuple(sorted((framework_versions or {}).items())),
                        models=tuple((models or {}).items()))
    from moecfg.checking.guard import checked

    from moecfg.checking.coverage import Coverage
    from moecfg.core.coverage import state_of

    coverage = Coverage(name)  # what the framework recognised but did not derive (Derivation.unread)

    def lint():  # an internal error is MC019 on the launch, as in `moecfg check` (checking/guard.py)
        return lint_launch_file(_launch_file(command, env or {}), name, ctx, options(cann, product), 0, coverage)

    results = checked("<launch>", lint)
    if not results:  # no framework recognised it: a launcher of the recognition table is named, not read
        import shlex

        coverage.sniff(command if isinstance(command, str) else shlex.join(map(str, command)), "shell")
    return to_report(CoreReport(results=results, files=1, unread=coverage.unread,
                                 states=[state_of(name, results, [], coverage.unread)]))


def _launch_file(command, env: Mapping[str, str]):
    from moecfg.sources.launch import EnvEntry, Launch, LaunchFile, Word
    from moecfg.sources.textmap import Span

    exports = "".join(f"export {k}={_quote(v)}\n" for k, v in env.items())
    if isinstance(command, str):
        from moecfg.sources.readers import read_shell

        return read_shell(exports + command)
    words, col = [], 1
    for arg in command:
        text = str(arg)
        words.append(Word(text, Span(1, col, 1, col + len(text))))
        col += len(text) + 1
    entries = {k: EnvEntry(k, str(v), Span(1, 1, 1, 1)) for k, v in env.items()}
    return LaunchFile(launches=[Launch(argv=tuple(words), env=entries, context="argv")])


def _quote(value) -> str:
    return "'" + str(value).replace("'", "'\"'\"'") + "'"


def catalog(product: str, ruleset: str = "latest"):
    """The dispatch/combine v2 limits of `product` (A2 | A3) in a CANN rule set, as validated pydantic data."""
    from moecfg.models.catalogs import catalog as build

    return build(product, ruleset)
