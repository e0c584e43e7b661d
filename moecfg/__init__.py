"""moecfg: validate MoE expert-parallel deployment configs and size their communication buffers.

Public API (imported lazily: `import moecfg` loads neither pydantic nor rich):

    moecfg.check(config, *, cann=None, product=None) -> moecfg.models.Report
    moecfg.check_launch(argv_or_command, env=None, *, product=None, cann=None, ...) -> Report
    moecfg.required_buffers(config, *, cann=None) -> dict[str, moecfg.models.Requirement]
    moecfg.catalog(product, ruleset="latest") -> the rule set's limits as a validated pydantic model
    moecfg.models -> pydantic models of every kind/op and of the report
"""
from __future__ import annotations


from moecfg.version import __version__
__all__ = ["__version__", "check", "check_launch", "required_buffers", "catalog", "models"]

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): checkers read it as True
if TYPE_CHECKING:  # for type checkers and IDEs; at run time these load on first use
    from moecfg import models
    from moecfg.api import catalog, check, check_launch, required_buffers

_API = ("check", "check_launch", "required_buffers", "catalog")


def __getattr__(name: str):
    if name in _API:
        from moecfg import api

        return getattr(api, name)
    if name == "models":
        import importlib

        return importlib.import_module("moecfg.models")
    raise AttributeError(f"module 'moecfg' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_API) | {"models"})
